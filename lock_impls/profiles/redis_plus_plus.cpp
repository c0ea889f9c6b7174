#include "lock_impls/profiles/redis_plus_plus.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class RedLockMutexClient : public LibraryClient<RedLockMutexOptions> {
 public:
  using LibraryClient::LibraryClient;

  // RedLockMutexVessel::lock.
  Task<Grant> acquire(std::string resource) override {
    const std::string random_string = make_token(port(), TokenFormat::alphanumeric, 20);
    const Instant start_time = now();  // LockInfo::startTime, once, before the retry loop
    const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
    const Duration drift = drift_for(options_.ttl, options_.drift);  // int(ttl * 0.01) + 2 ms
    const uint32_t retry_count = tries_for(options_.retry_count, options_.attempts_cap);
    const Command set_nx_px = make_command("SET", resource, random_string, "NX", "PX", ttl_ms);
    Grant grant;
    for (uint32_t i = 0; i < retry_count; ++i) {
      grant.attempts = i + 1;
      uint32_t num_locked = 0;
      bool thrown = false;  // _lock_instance threw: there is no try/catch in lock()
      for (NodeId instance = 0; instance < options_.node_count; ++instance) {
        const Outcome set = co_await port().send(instance, set_nx_px, options_.request_timeout);
        if (!set.replied() || set.reply.is_error()) {
          thrown = true;
          break;
        }
        if (set.reply.is_ok()) ++num_locked;
      }
      const Instant deadline = start_time + options_.ttl - drift;
      const Duration time_remaining = deadline - now();
      grant.nodes_locked = num_locked;
      note("attempt " + std::to_string(i + 1) + ": " + std::to_string(num_locked) + "/" +
           std::to_string(options_.node_count) + " nodes, validity " + ms_text(time_remaining));
      if (thrown) {
        grant.failure = "error";  // the keys already set stay until their TTL
        co_return grant;
      }
      if (time_remaining <= Duration::zero()) {
        grant.failure = "validity";
        co_await unlock(resource, random_string);
        break;  // "The should not retry after the TTL expiration."
      }
      if (num_locked >= quorum()) {
        // "We have the lock."
        grant_lease(grant, resource, random_string,
                    Deadline{.clock = options_.clock, .at = deadline});
        co_return grant;
      }
      grant.failure = "taken";
      co_await unlock(resource, random_string);
      // Sleep, only if it's _not_ the last attempt.
      if (i != retry_count - 1) co_await port().sleep(draw_delay(port(), options_.retry_delay));
    }
    co_return grant;
  }

  // RedLockMutex::unlock: the library reports nothing back, so the caller is always told yes.
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;
    ReleaseResult result;
    result.nodes = co_await unlock(lease->resource, lease->value);
    result.released = true;
    note("release: " + std::to_string(result.nodes) + "/" + std::to_string(options_.node_count) +
         " nodes");
    co_return result;
  }

  // RedLockMutexVessel::extend_lock, as RedLockMutex calls it: with a LockInfo made afresh
  // (startTime now, time_remaining ttl), so the local "already expired" check never fires.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ExtendResult result;
    ++lease->extensions;
    const Instant start_time = now();  // extended_lock_info.startTime
    const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
    const Call pexpire_if_ours =
        make_call(scripts::pexpire_if_value, lease->resource, {lease->value, ttl_ms});
    uint32_t num_locked = 0;
    for (NodeId instance = 0; instance < options_.node_count; ++instance) {
      const Outcome extended =
          co_await send_call(port(), instance, pexpire_if_ours, options_.request_timeout, false);
      if (!extended.replied() || extended.reply.is_error()) {
        // The script's exception escapes extend_lock, before any unlock.
        result.nodes = num_locked;
        result.failure = "error";
        co_return result;
      }
      if (extended.reply.is_integer(1)) ++num_locked;
    }
    const Instant deadline = start_time + options_.ttl - drift_for(options_.ttl, options_.drift);
    const Duration time_remaining = deadline - now();
    result.nodes = num_locked;
    note("extend: " + std::to_string(num_locked) + "/" + std::to_string(options_.node_count) +
         " nodes, validity " + ms_text(time_remaining));
    if (num_locked >= quorum() && time_remaining > Duration::zero()) {
      result.extended = true;
      result.deadline = Deadline{.clock = options_.clock, .at = deadline};
      ++lease->renewals;
      lease->deadline = result.deadline;
      co_return result;
    }
    result.lock_gone = true;
    result.failure = num_locked >= quorum() ? "validity" : "quorum";
    co_await unlock(lease->resource, lease->value);
    co_return result;
  }

 private:
  // RedLockMutexVessel::unlock: the delete script on each instance in turn; an error stops the
  // loop (the exception leaves unlock). Returns the instances that deleted our key.
  Task<uint32_t> unlock(const std::string& resource, const std::string& random_string) {
    return delete_on_each(resource, random_string, options_.request_timeout,
                          /*stop_at_error=*/true);
  }
};

RedlockOptions redis_plus_plus_redlock_mutex(uint32_t node_count, Duration ttl) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = ttl,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::sequential,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms},
      .validity_check = ValidityCheck::positive,
      .validity_from_first_attempt = true,
      .retry_count = 2,
      .retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 200},
      .release_after_failed_attempt = true,
      .stop_when_validity_gone = true,
      .abort_on_node_error = true,
      .token_format = TokenFormat::alphanumeric,
      .token_size = 20,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .extend_command = RedlockExtendCommand::pexpire_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .extend_checks_validity = true,
      .extend_refuses_expired_lease = false,
      .extend_unlocks_on_failure = true,
      .release_quorum = 0,
  };
}

RedlockOptions redis_plus_plus_red_mutex(uint32_t node_count, Duration ttl) {
  RedlockOptions options = redis_plus_plus_redlock_mutex(node_count, ttl);
  options.validity_from_first_attempt = false;  // each try_lock is a fresh one-try lock
  options.retry_count = -1;
  options.retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 5};
  options.token_per_attempt = true;
  return options;
}

WatchdogOptions redis_plus_plus_lock_watcher(Duration ttl) {
  return WatchdogOptions{.period = ttl / 2,
                         .tells_holder = true,
                         .stops_on_error = true,
                         .stops_when_gone = true,
                         .unlocks_on_failure = false,
                         .hides_deadline = true};
}

RedlockOptions redis_plus_plus_tx(RedlockOptions scripted) {
  RedlockOptions options = std::move(scripted);
  options.drift = Drift{.ppm = 0, .constant_ms = 0, .rounding = DriftRounding::exact};
  options.release_after_failed_attempt = false;
  options.release_after_validity_failure = false;
  options.extend_command = RedlockExtendCommand::get_then_pexpire_true_if_not_owner;
  options.extend_unlocks_on_failure = false;
  return options;
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

namespace {

// RedLockMutexVessel's parameters: lock()'s ttl, retry_count, retry_delay and drift factor, the
// connection's socket timeout, the clock, and RedMutexOptions::scripting. It has no fan-out,
// wait or extension-quorum setting: every loop visits each instance in turn.
ParamTable redlock_mutex_params(const profiles::RedLockMutexOptions& d, ParamSpec scripting) {
  return plus(timing_params(d), {std::move(scripting)});
}

}  // namespace

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redis_plus_plus_locks() {
  std::vector<LockEntry> list;
  const ParamSpec scripting =
      flag_param("scripting", true, "false: RedMutexTx (WATCH/GET/MULTI extend, no drift)");
  list.push_back(lock_entry(
      "redis-plus-plus-redlockmutex", LockKind::profile,
      "C++: sequential, start fixed before the retry loop, a node error escapes leaving keys",
      "sewenew/redis-plus-plus RedLockMutexVessel @ 2c47000",
      redlock_mutex_params(profiles::RedLockMutexOptions{}, scripting),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        if (!p.flag("scripting")) {
          const RedlockOptions o =
              profiles::redis_plus_plus_redlock_mutex(p.node_count(), Duration::from_ms(10'000));
          return redlock_client(port, p, profiles::redis_plus_plus_tx(o));
        }
        const profiles::RedLockMutexOptions o{
            .node_count = p.node_count(),
            .ttl = p.ms("ttl_ms"),
            .clock = p.choice("clock") == 0 ? ClockKind::wall : ClockKind::monotonic,
            .request_timeout = p.ms("request_timeout_ms"),
            .retry_count = static_cast<int32_t>(p.integer("retry_count")),
            .retry_delay = RetryDelay{.min_ms = p.integer("retry_delay_ms_min"),
                                      .jitter_ms = p.integer("retry_jitter_ms")},
            .drift = Drift{.ppm = p.integer("drift_ppm"),
                           .constant_ms = p.integer("drift_constant_ms"),
                           .rounding = DriftRounding::floor_ms},
            .attempts_cap = 100'000};
        return std::make_unique<profiles::RedLockMutexClient>(port, o);
      }));
  list.push_back(lock_entry(
      "redis-plus-plus-redmutex", LockKind::profile,
      "C++: polls try_lock every 0-5 ms; LockWatcher extends every ttl/2 and tells on failure",
      "sewenew/redis-plus-plus RedMutex @ 2c47000",
      plus(redlock_params(profiles::redis_plus_plus_red_mutex(5, Duration::from_ms(3'000))),
           {period_param(), tells_param(true), scripting}),
      [](Port& port, const ParamValues& p) {
        RedlockOptions o =
            profiles::redis_plus_plus_red_mutex(p.node_count(), Duration::from_ms(3'000));
        if (!p.flag("scripting")) o = profiles::redis_plus_plus_tx(o);
        std::unique_ptr<LockClient> inner = redlock_client(port, p, o);
        const Duration ttl = static_cast<RedlockClient&>(*inner).options().ttl;
        return watched(port, p, std::move(inner), profiles::redis_plus_plus_lock_watcher(ttl));
      }));
  for (LockEntry& entry : list)
    entry.multi_node = true;  // every listed node is one of its masters
  return list;
}

}  // namespace redlock_sim
