#include "lock_impls/profiles/redlock_py.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class RedlockPyClient : public LibraryClient<RedlockPyOptions> {
 public:
  using LibraryClient::LibraryClient;

  // Redlock.lock(resource, ttl).
  Task<Grant> acquire(std::string resource) override {
    Grant grant;
    const std::string val = make_token(port(), TokenFormat::alphanumeric, 22);  // get_unique_id()
    // "Add 2 milliseconds to the drift": drift = int(ttl * self.clock_drift_factor) + 2
    const Duration drift = drift_for(options_.ttl, options_.drift);
    const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
    const Command set_nx_px = make_command("SET", resource, val, "NX", "PX", ttl_ms);
    const uint32_t retry_count = tries_for(options_.retry_count, options_.attempts_cap);
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
    ReleaseResult result;
    result.nodes = co_await unlock_all(lease->resource, lease->value);
    result.released = true;
    note("release: " + nodes_text(result.nodes, options_.node_count));
    co_return result;
  }

  // The class has no extend.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ++lease->extensions;
    ExtendResult result;
    result.failure = "unsupported";
    co_return result;
  }

 private:
  // `for server in self.servers: self.unlock_instance(server, resource, val)`: the delete
  // script on each server in turn, errors swallowed. Returns the servers that deleted our key.
  Task<uint32_t> unlock_all(const std::string& resource, const std::string& val) {
    // unlock_instance: server.eval(self.unlock_script, 1, resource, val) inside try/except
    const Call unlock_script = make_call(scripts::delete_if_value, resource, {val});
    uint32_t deleted = 0;
    for (NodeId server = 0; server < options_.node_count; ++server) {
      const Outcome outcome =
          co_await send_call(port(), server, unlock_script, options_.unlock_timeout, false);
      if (outcome.replied() && outcome.reply.is_integer(1)) ++deleted;
    }
    co_return deleted;
  }

  // int(time.time() * 1000)
  Instant time_ms() { return Instant::from_ms(now_on(options_.clock).ms_floor()); }
};

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redlock_py_locks() {
  std::vector<LockEntry> list;
  const profiles::RedlockPyOptions d;
  // Redlock(connection_list, retry_count, retry_delay) and lock(resource, ttl); the clock, the
  // socket timeout and the drift factor are the model's rows. No fan-out, wait or extension.
  list.push_back(lock_entry(
      "redlock-py", LockKind::profile,
      "sequential, wall clock in whole ms, 3 tries fixed 200 ms, quorum with errors raises "
      "without releasing",
      "SPSCommerce/redlock-py @ 42ef491", timing_params(d),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        profiles::RedlockPyOptions o;
        o.node_count = p.node_count();
        apply_timing(p, o);
        // `retry_count or self.default_retry_count`: a configured 0 falls back (issue #24).
        if (o.retry_count == 0) o.retry_count = profiles::RedlockPyOptions{}.retry_count;
        return std::make_unique<profiles::RedlockPyClient>(port, o);
      }));
  for (LockEntry& entry : list)
    entry.multi_node = true;  // every listed node is one of its masters
  return list;
}

}  // namespace redlock_sim
