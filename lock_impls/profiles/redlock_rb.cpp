#include "lock_impls/profiles/redlock_rb.hpp"

namespace redlock_sim::profiles {

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
