#include "lock_impls/profiles/redlock_py.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class RedlockPyClient : public LibraryClient<RedlockPyOptions> {
 public:
  using LibraryClient::LibraryClient;

  // Redlock.lock(resource, ttl).
  Task<Grant> acquire(std::string resource) override {
    const std::string val = make_token(port(), TokenFormat::alphanumeric, 22);  // get_unique_id()
    // "Add 2 milliseconds to the drift": drift = int(ttl * self.clock_drift_factor) + 2
    const Duration drift = drift_for(options_.ttl, options_.drift);
    const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
    const Command set_nx_px = make_command("SET", resource, val, "NX", "PX", ttl_ms);
    const uint32_t retry_count = tries_for(options_.retry_count, options_.attempts_cap);
    Grant grant;
    for (uint32_t retry = 0; retry < retry_count; ++retry) {  // while retry < self.retry_count
      grant.attempts = retry + 1;
      uint32_t n = 0;
      uint32_t redis_errors = 0;  // a RedisError from lock_instance is collected, not raised
      const Instant start_time = time_ms();
      for (NodeId server = 0; server < options_.node_count; ++server) {
        // lock_instance: server.set(resource, val, nx=True, px=ttl)
        const Outcome set = co_await port().send(server, set_nx_px, options_.request_timeout);
        if (!set.replied() || set.reply.is_error()) {
          ++redis_errors;
        } else if (set.reply.is_ok()) {
          ++n;
        }
      }
      const Instant end_time = time_ms();
      // validity = int(ttl - elapsed_time - drift), elapsed_time = end - start_time
      const Instant deadline = start_time + options_.ttl - drift;
      const Duration validity = deadline - end_time;
      grant.nodes_locked = n;
      note("attempt " + std::to_string(retry + 1) + ": " + nodes_text(n, options_.node_count) +
           ", validity " + ms_text(validity));
      if (validity > Duration::zero() && n >= quorum()) {
        if (redis_errors > 0) {
          // raise MultipleRedlockException(redis_errors): the caller gets no Lock to unlock
          // with, and the keys stay until their TTL.
          grant.failure = "error";
          co_return grant;
        }
        // return Lock(validity, resource, val)
        grant_lease(grant, resource, val, Deadline{.clock = options_.clock, .at = deadline});
        co_return grant;
      }
      grant.failure = n >= quorum() ? "validity" : "taken";
      co_await unlock_all(resource, val);
      // retry += 1; time.sleep(self.retry_delay): after the last try too.
      co_await port().sleep(draw_delay(port(), options_.retry_delay));
    }
    co_return grant;  // return False
  }

  // Redlock.unlock(lock): the caller is never told of a failure (only a RedisError would raise,
  // and unlock_instance swallows those).
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;
    const uint32_t deleted = co_await unlock_all(lease->resource, lease->value);
    note("release: " + nodes_text(deleted, options_.node_count));
    co_return release_with_quorum(deleted, /*enough=*/true);  // it always "succeeds"
  }

  // The class has no extend.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    co_return extend_unsupported(*lease);
  }

 private:
  // `for server in self.servers: self.unlock_instance(server, resource, val)`: unlock_instance
  // is server.eval(self.unlock_script, 1, resource, val) inside try/except, so an error is
  // swallowed and the next server tried. Returns the servers that deleted our key.
  Task<uint32_t> unlock_all(const std::string& resource, const std::string& val) {
    return delete_on_each(resource, val, options_.unlock_timeout, /*stop_at_error=*/false);
  }

  // int(time.time() * 1000)
  Instant time_ms() { return Instant::from_ms(now_on(options_.clock).ms_floor()); }
};

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
// Redlock(connection_list, retry_count, retry_delay) and lock(resource, ttl); the clock, the
// socket timeout and the drift factor are the model's rows. No fan-out, wait or extension.
std::vector<LockEntry> redlock_py_locks() {
  using profiles::RedlockPyOptions;
  return {profiles::library_profile<profiles::RedlockPyClient>({
      // `retry_count or self.default_retry_count`: a configured 0 falls back (issue #24).
      .adjust =
          [](const ParamValues&, RedlockPyOptions& o) {
            if (o.retry_count == 0) o.retry_count = RedlockPyOptions{}.retry_count;
          },
      .text = {.name = "redlock-py",
               .description = "sequential, wall clock in whole ms, 3 tries fixed 200 ms, quorum "
                              "with errors raises without releasing",
               .models = "SPSCommerce/redlock-py @ 42ef491"},
  })};
}

}  // namespace redlock_sim
