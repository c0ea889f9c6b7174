#include "lock_impls/profiles/pottery.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

RedlockOptions pottery(uint32_t node_count, Duration auto_release_time) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = auto_release_time,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::parallel,
      // as_completed: return once a majority succeeded; a failed try waits for every master.
      .wait = FanOutMode::return_at_quorum_success,
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::exact},
      .validity_check = ValidityCheck::positive,
      .retry_count = -1,
      .retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 200},
      .release_after_failed_attempt = true,
      .token_format = TokenFormat::uuid,
      .token_size = 16,
      .token_per_attempt = true,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .extend_command = RedlockExtendCommand::pexpire_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .extend_checks_validity = false,
      .extensions_max = 3,
      .release_quorum = majority(node_count),
      .release_wait = FanOutMode::return_at_quorum_success,  // returns once a majority released
      .release_uses_latest_token = true,  // `_uuid` lives on the instance (bug list item 28)
  };
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> pottery_locks() {
  std::vector<LockEntry> list;
  const RedlockOptions d = profiles::pottery(5, Duration::from_ms(10'000));
  list.push_back(lock_entry(
      "pottery", LockKind::profile,
      "parallel with bail-out at quorum, new uuid per attempt, infinite retries, at most 3 "
      "extensions without validity",
      "brainix/pottery @ e2f40424",
      plus(redlock_params(d),
           {integer_param("num_extensions", "extensions", d.extensions_max, 0, 1'000'000,
                          "Redlock(num_extensions=...): successful extends allowed")}),
      [](Port& port, const ParamValues& p) {
        RedlockOptions o = profiles::pottery(p.count("nodes"), Duration::from_ms(10'000));
        o.extensions_max = static_cast<int32_t>(p.integer("num_extensions"));
        return redlock_client(port, p, o);
      }));
  return list;
}

}  // namespace redlock_sim
