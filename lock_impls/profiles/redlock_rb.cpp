#include "lock_impls/profiles/redlock_rb.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

// What this file models (the registration at its end reads it).
constexpr LockText redlock_rb_text{
    .name = "redlock-rb",
    .description =
        "sequential with 100 ms timeouts, validity >= 0, extend re-creates a lapsed key (#36)",
    .models = "leandromoreira/redlock-rb 2.x @ f176e57"};

RedlockOptions redlock_rb(uint32_t node_count, Duration ttl) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = ttl,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::sequential,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = Duration::from_ms(100),
      .release_timeout = Duration::from_ms(100),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms},
      .validity_check = ValidityCheck::non_negative,
      .retry_count = 3,
      .retry_delay = RetryDelay{.min_ms = 200, .jitter_ms = 49},
      .release_after_failed_attempt = true,
      .token_format = TokenFormat::uuid,
      .token_size = 16,
      .token_per_attempt = true,  // lock_instances draws SecureRandom.uuid on every try
      .acquire_command = RedlockAcquireCommand::script_set_if_absent_or_same,
      .extend_command = RedlockExtendCommand::set_if_absent_or_same,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .use_evalsha = true,
      .extend_tries = 1,
      .extend_checks_validity = true,
      .extend_unlocks_on_failure = true,
      .release_quorum = 0,
  };
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redlock_rb_locks() {
  return {redlock_profile({
      .text = profiles::redlock_rb_text,
      .options =
          [](uint32_t node_count) {
            return profiles::redlock_rb(node_count, Duration::from_ms(10'000));
          },
      .more = {flag_param("extend_only_if_locked", false, "extend may not re-create")},
      .adjust =
          [](const ParamValues& p, RedlockOptions& o) {
            if (p.flag("extend_only_if_locked")) {
              o.extend_command = RedlockExtendCommand::set_if_absent_or_same_only_if_locked;
            }
          },
  })};
}

}  // namespace redlock_sim
