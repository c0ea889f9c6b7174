#include "lock_impls/profiles/pottery.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class PotteryClient : public LibraryClient<PotteryOptions> {
 public:
  using LibraryClient::LibraryClient;

  // Redlock.acquire(blocking=True, timeout=-1): `while ...: if acquire_masters(): return True`,
  // then `time.sleep(random.uniform(0, self._RETRY_DELAY))`; each try is __acquire_masters.
  Task<Grant> acquire(std::string resource) override {
    const std::string px = std::to_string(options_.ttl.ms_floor());  // int(auto_release_time*1000)
    const Duration drift = drift_for(options_.ttl, options_.drift);  // self.__drift()
    const uint32_t tries = tries_for(options_.retry_count, options_.attempts_cap);
    Grant grant;
    for (uint32_t attempt = 1; attempt <= tries; ++attempt) {
      grant.attempts = attempt;
      // __acquire_masters: self._uuid = str(uuid.uuid4()); self._extension_num = 0
      uuid_ = make_token(port(), TokenFormat::uuid, 16);
      const Instant start = now();  // with ContextTimer() as timer
      std::vector<NodeRequest> futures;
      for (NodeId master = 0; master < options_.node_count; ++master) {
        // __acquire_master: master.set(self.key, self._uuid, px=..., nx=True)
        futures.push_back({.node = master,
                           .command = make_command("SET", resource, uuid_, "NX", "PX", px),
                           .timeout = options_.request_timeout});
      }
      const std::vector<Outcome> outcomes =
          co_await port().fan_out(std::move(futures), as_completed());
      uint32_t num_masters_acquired = 0;
      for (const Outcome& outcome : outcomes)
        num_masters_acquired += redlock_acquire_success(outcome) ? 1 : 0;
      // validity_time = auto_release_time - __drift() - timer.elapsed(); `if validity_time > 0`
      const Instant deadline = start + options_.ttl - drift;
      const Duration validity = deadline - now();
      grant.nodes_locked = num_masters_acquired;
      note("attempt " + std::to_string(attempt) + ": " +
           nodes_text(num_masters_acquired, options_.node_count) + ", validity " +
           ms_text(validity));
      const bool quorum = num_masters_acquired >= majority(options_.node_count);
      if (quorum && validity > Duration::zero()) {
        grant_lease(grant, resource, uuid_, Deadline{.clock = options_.clock, .at = deadline});
        co_return grant;
      }
      grant.failure = quorum ? "validity" : "taken";
      // with contextlib.suppress(ReleaseUnlockedLock): self.__release(raise_on_redis_errors=False)
      co_await release_masters(resource);
      if (attempt < tries) co_await port().sleep(draw_delay(port(), options_.retry_delay));
    }
    co_return grant;
  }

  // Redlock.release: ReleaseUnlockedLock unless a majority released.
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;
    const uint32_t nodes = co_await release_masters(lease->resource);
    note("release: " + nodes_text(nodes, options_.node_count));
    co_return release_with_quorum(nodes, nodes >= majority(options_.node_count));
  }

  // Redlock.extend: TooManyExtensions past num_extensions, then the extend script (compare and
  // PEXPIRE) on every master, as_completed until a majority extended. No validity computation:
  // the new expiry counts from the extension's start.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ExtendResult result;
    ++lease->extensions;
    // `if self._extension_num >= self.num_extensions`; only a success increments it.
    if (options_.num_extensions >= 0 &&
        lease->renewals >= static_cast<uint32_t>(options_.num_extensions)) {
      result.failure = "too many extensions";
      co_return result;
    }
    const Instant start = now();
    // __extend_master: the extend script with (self._uuid, auto_release_time_ms)
    std::vector<std::string> keys{lease->resource};
    std::vector<std::string> args{uuid_, std::to_string(options_.ttl.ms_floor())};
    const std::vector<Outcome> outcomes = co_await run_script(
        port(), all_nodes(options_.node_count), scripts::pexpire_if_value, std::move(keys),
        std::move(args), options_.request_timeout, as_completed(), false);
    uint32_t redis_errors = 0;
    for (const Outcome& outcome : outcomes) {
      result.nodes += redlock_acquire_success(outcome) ? 1 : 0;
      redis_errors += (!outcome.replied() || outcome.reply.is_error()) ? 1 : 0;
    }
    const Instant deadline = start + options_.ttl - drift_for(options_.ttl, options_.drift);
    note("extend: " + nodes_text(result.nodes, options_.node_count) + ", validity " +
         ms_text(deadline - now()));
    if (result.nodes >= majority(options_.node_count)) {
      result.extended = true;  // self._extension_num += 1
      result.deadline = Deadline{.clock = options_.clock, .at = deadline};
      ++lease->renewals;
      lease->deadline = result.deadline;
      co_return result;
    }
    result.lock_gone = redis_errors == 0;
    result.failure = "quorum";  // raise ExtendUnlockedLock
    co_return result;
  }

 private:
  // The release script on every master, as_completed until more than N//2 released (it reads
  // `self._uuid`, the latest acquire's, not the grant's: bug list item 28). Returns how many did.
  Task<uint32_t> release_masters(const std::string& key) {
    // __release_master: the release script with (self._uuid,)
    std::vector<std::string> keys{key};
    std::vector<std::string> args{uuid_};
    const std::vector<Outcome> outcomes = co_await run_script(
        port(), all_nodes(options_.node_count), scripts::delete_if_value, std::move(keys),
        std::move(args), options_.release_timeout, as_completed(), false);
    uint32_t num_masters_released = 0;
    for (const Outcome& outcome : outcomes)
      num_masters_released += redlock_acquire_success(outcome) ? 1 : 0;
    co_return num_masters_released;
  }

  // `for future in as_completed(futures)`, returning once `num > len(self.masters) // 2`.
  FanOutOptions as_completed() const {
    return FanOutOptions{.mode = FanOutMode::return_at_quorum_success,
                         .quorum = majority(options_.node_count),
                         .success = &redlock_acquire_success};
  }

  std::string uuid_;  // `self._uuid`: one per instance, replaced by every __acquire_masters
};

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
// Redlock(masters, auto_release_time, num_extensions) and acquire(); the clock, the socket
// timeout, the retry delay and the drift factor are the model's rows. No fan-out, wait or
// extension quorum: every call is as_completed over all masters, a majority to succeed.
std::vector<LockEntry> pottery_locks() {
  using profiles::PotteryOptions;
  return {profiles::library_profile<profiles::PotteryClient>({
      .more = {integer_param("num_extensions", "extensions", PotteryOptions{}.num_extensions, 0,
                             1'000'000, "Redlock(num_extensions=...): successful extends allowed")},
      .adjust =
          [](const ParamValues& p, PotteryOptions& o) {
            o.num_extensions = static_cast<int32_t>(p.integer("num_extensions"));
          },
      .text = {.name = "pottery",
               .description = "parallel with bail-out at quorum, new uuid per attempt, infinite "
                              "retries, at most 3 extensions without validity",
               .models = "brainix/pottery @ e2f40424"},
  })};
}

}  // namespace redlock_sim
