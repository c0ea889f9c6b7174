#include "lock_impls/profiles/aioredlock.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class AioredlockClient : public LibraryClient<AioredlockOptions> {
 public:
  using LibraryClient::LibraryClient;

  // Aioredlock.lock(resource): one uuid4 for every try; a final failure runs the cleanup
  // (`unset_lock`, in the background in the library, awaited here) and raises.
  Task<Grant> acquire(std::string resource) override {
    const std::string lock_identifier = make_token(port(), TokenFormat::uuid, 16);
    const SetLock set = co_await set_lock(resource, lock_identifier, false);
    Grant grant{.attempts = set.tries, .nodes_locked = set.successful_sets};
    if (set.locked) {
      grant_lease(grant, resource, lock_identifier,
                  Deadline{.clock = options_.clock, .at = set.deadline});
      co_return grant;
    }
    grant.failure = set.successful_sets >= quorum() ? "validity" : "taken";
    co_await unset_lock(resource, lock_identifier);  // _set_lock's cleanup()
    co_return grant;
  }

  // Aioredlock.unlock(lock): Redis.unset_lock raises LockError unless a quorum of instances
  // deleted the key or found it missing.
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;  // lock.valid = False
    const uint32_t nodes = co_await unset_lock(lease->resource, lease->value);
    note("release: " + nodes_text(nodes, options_.node_count));
    co_return release_with_quorum(nodes, nodes >= quorum());
  }

  // Aioredlock.extend(lock): `_set_lock(lock.resource, lock.id, new_lease_time)`, the same SET
  // script, so an absent key is created again; on failure `self.unlock(lock)`. The library then
  // unsets twice (_set_lock's background cleanup and extend's unlock); the model sends one.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ExtendResult result;
    ++lease->extensions;
    const SetLock set = co_await set_lock(lease->resource, lease->value, true);
    result.nodes = set.successful_sets;
    if (set.locked) {
      result.extended = true;
      result.deadline = Deadline{.clock = options_.clock, .at = set.deadline};
      ++lease->renewals;
      lease->deadline = result.deadline;
      co_return result;
    }
    result.lock_gone = set.errors == 0;
    result.failure = set.successful_sets >= quorum() ? "validity" : "quorum";
    co_await unset_lock(lease->resource, lease->value);
    co_return result;
  }

 private:
  // What `_set_lock` ends with: the tries it made and its last try's count and deadline.
  struct SetLock {
    uint32_t tries = 0;
    uint32_t successful_sets = 0;
    uint32_t errors = 0;  // error replies (a refusal is one) and timeouts of the last try
    Instant deadline;
    bool locked = false;
  };
  // Aioredlock._set_lock(resource, lock_identifier, lease_time); `extending` only names the
  // trace note of each try.
  // Aioredlock._set_lock: `for n in range(self.retry_count)`, sleeping before every try but the
  // first; a try that did not lock a quorum (`except LockError: continue`) or whose
  // `lease_time - elapsed_time - drift <= 0` goes on to the next with the same identifier and no
  // unlock. The cleanup after the last failed try is the caller's (see acquire and extend).
  Task<SetLock> set_lock(const std::string& resource, const std::string& lock_identifier,
                         bool extending) {
    SetLock result;
    const Duration drift = drift_for(options_.ttl, options_.drift);  // lease_time * 0.01 + 0.002
    const std::string lock_timeout_ms = std::to_string(options_.ttl.ms_floor());
    const FanOutOptions gather{
        .mode = FanOutMode::wait_for_all, .quorum = quorum(), .success = &redlock_acquire_success};
    const uint32_t retry_count = tries_for(options_.retry_count, options_.attempts_cap);
    for (uint32_t n = 0; n < retry_count; ++n) {
      if (n != 0) co_await port().sleep(draw_delay(port(), options_.retry_delay));
      result.tries = n + 1;
      // Redis.set_lock: start_time = time.monotonic(); gather(Instance.set_lock ...), each an
      // EVALSHA of SET_LOCK_SCRIPT (EVAL after NOSCRIPT)
      const Instant start_time = now_on(options_.clock);
      std::vector<std::string> keys{resource};
      std::vector<std::string> args{lock_identifier, lock_timeout_ms};
      const std::vector<Outcome> successes = co_await run_script(
          port(), all_nodes(options_.node_count), scripts::set_if_absent_or_same_or_error,
          std::move(keys), std::move(args), options_.request_timeout, gather, true);
      const Instant end_time = now_on(options_.clock);
      result.successful_sets = 0;
      result.errors = 0;
      for (const Outcome& s : successes) {
        result.successful_sets += redlock_acquire_success(s) ? 1 : 0;
        result.errors += (!s.replied() || s.reply.is_error()) ? 1 : 0;
      }
      result.deadline = start_time + options_.ttl - drift;
      const Duration validity = result.deadline - end_time;
      note((extending ? std::string("extend") : "attempt " + std::to_string(n + 1)) + ": " +
           nodes_text(result.successful_sets, options_.node_count) + ", validity " +
           ms_text(validity));
      // `locked = successful_sets >= int(len(self.instances) / 2) + 1`, then the validity test
      if (result.successful_sets >= quorum() && validity > Duration::zero()) {
        result.locked = true;  // break
        co_return result;
      }
    }
    co_return result;  // "break never reached": raise error
  }

  // Redis.unset_lock: the unset script on every instance, gathered. Returns how many deleted
  // our key or found none.
  Task<uint32_t> unset_lock(const std::string& resource, const std::string& lock_identifier) {
    std::vector<std::string> keys{resource};
    std::vector<std::string> args{lock_identifier};
    const FanOutOptions gather{
        .mode = FanOutMode::wait_for_all, .quorum = quorum(), .success = &redlock_acquire_success};
    const std::vector<Outcome> successes = co_await run_script(
        port(), all_nodes(options_.node_count), scripts::delete_if_value_missing_ok,
        std::move(keys), std::move(args), options_.unset_timeout, gather, true);
    uint32_t unset = 0;
    for (const Outcome& s : successes)
      unset += redlock_acquire_success(s) ? 1 : 0;
    co_return unset;
  }
};

WatchdogOptions aioredlock_watchdog(Duration internal_lock_timeout) {
  return WatchdogOptions{.period = internal_lock_timeout * 6 / 10,
                         .tells_holder = true,
                         .stops_on_error = true,
                         .stops_when_gone = true,
                         .unlocks_on_failure = true,
                         .hides_deadline = true,
                         .one_watchdog_per_resource = true};
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
// Aioredlock(redis_connections, retry_count, retry_delay_min/max, internal_lock_timeout); the
// clock, the command timeout and the drift factor are the model's rows. No fan-out, wait or
// extension quorum: every call gathers all instances and needs a majority.
std::vector<LockEntry> aioredlock_locks() {
  return {profiles::library_profile<profiles::AioredlockClient>({
      .more = {auto_extend_param(true), period_param()},
      // The watchdog period follows the lease actually configured (0.6 * lease).
      .watchdog =
          [](const profiles::AioredlockOptions& o) { return profiles::aioredlock_watchdog(o.ttl); },
      .text = {.name = "aioredlock",
               .description = "asyncio: gather waits for all nodes, SET script re-creates on "
                              "extend, watchdog every 6 s",
               .models = "joanvila/aioredlock @ 685d1b5"},
  })};
}

}  // namespace redlock_sim
