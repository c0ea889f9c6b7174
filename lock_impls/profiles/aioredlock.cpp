#include "lock_impls/profiles/aioredlock.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

RedlockOptions aioredlock(uint32_t node_count, Duration lease) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = lease,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::parallel,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::exact},
      .validity_check = ValidityCheck::positive,
      .retry_count = 2,
      .retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      // `except LockError: continue`: no unlock between tries, the same identifier kept; only
      // the final failure unlocks.
      .release_after_failed_attempt = false,
      .release_after_validity_failure = false,
      .release_on_final_failure = true,
      .token_format = TokenFormat::uuid,
      .token_size = 16,
      .acquire_command = RedlockAcquireCommand::script_set_if_absent_or_same_or_error,
      .extend_command = RedlockExtendCommand::set_if_absent_or_same_or_error,
      .release_command = RedlockReleaseCommand::delete_if_value_missing_ok,
      .use_evalsha = true,
      .extend_tries = 3,
      .extend_retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      .extend_checks_validity = true,
      .extend_unlocks_on_failure = true,
      .release_quorum = majority(node_count),
  };
}

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
std::vector<LockEntry> aioredlock_locks() {
  std::vector<LockEntry> list;
  list.push_back(lock_entry(
      "aioredlock", LockKind::profile,
      "asyncio: gather waits for all nodes, SET script re-creates on extend, watchdog every 6 s",
      "joanvila/aioredlock @ 685d1b5",
      plus(redlock_params(profiles::aioredlock(5, Duration::from_ms(10'000))),
           {auto_extend_param(true), period_param()}),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        RedlockOptions o = profiles::aioredlock(p.count("nodes"), Duration::from_ms(10'000));
        std::unique_ptr<LockClient> inner = redlock_client(port, p, o);
        if (!p.flag("auto_extend")) return inner;
        // The watchdog period follows the lease actually configured (0.6 * lease).
        const Duration lease = static_cast<RedlockClient&>(*inner).options().ttl;
        return watched(port, p, std::move(inner), profiles::aioredlock_watchdog(lease));
      }));
  return list;
}

}  // namespace redlock_sim
