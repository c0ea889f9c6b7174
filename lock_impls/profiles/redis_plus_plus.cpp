#include "lock_impls/profiles/redis_plus_plus.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

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

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redis_plus_plus_locks() {
  std::vector<LockEntry> list;
  const ParamSpec scripting =
      flag_param("scripting", true, "false: RedMutexTx (WATCH/GET/MULTI extend, no drift)");
  list.push_back(lock_entry(
      "redis-plus-plus-redlockmutex", LockKind::profile,
      "C++: sequential, start fixed before the retry loop, a node error escapes leaving keys",
      "sewenew/redis-plus-plus RedLockMutexVessel @ 2c47000",
      plus(redlock_params(profiles::redis_plus_plus_redlock_mutex(5, Duration::from_ms(10'000))),
           {scripting}),
      [](Port& port, const ParamValues& p) {
        RedlockOptions o =
            profiles::redis_plus_plus_redlock_mutex(p.count("nodes"), Duration::from_ms(10'000));
        if (!p.flag("scripting")) o = profiles::redis_plus_plus_tx(o);
        return redlock_client(port, p, o);
      }));
  list.push_back(lock_entry(
      "redis-plus-plus-redmutex", LockKind::profile,
      "C++: polls try_lock every 0-5 ms; LockWatcher extends every ttl/2 and tells on failure",
      "sewenew/redis-plus-plus RedMutex @ 2c47000",
      plus(redlock_params(profiles::redis_plus_plus_red_mutex(5, Duration::from_ms(3'000))),
           {period_param(), tells_param(true), scripting}),
      [](Port& port, const ParamValues& p) {
        RedlockOptions o =
            profiles::redis_plus_plus_red_mutex(p.count("nodes"), Duration::from_ms(3'000));
        if (!p.flag("scripting")) o = profiles::redis_plus_plus_tx(o);
        std::unique_ptr<LockClient> inner = redlock_client(port, p, o);
        const Duration ttl = static_cast<RedlockClient&>(*inner).options().ttl;
        return watched(port, p, std::move(inner), profiles::redis_plus_plus_lock_watcher(ttl));
      }));
  return list;
}

}  // namespace redlock_sim
