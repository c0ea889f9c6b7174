#include "lock_impls/profiles/redsync.hpp"

namespace redlock_sim::profiles {

RedlockOptions redsync_v4(uint32_t node_count) {
  const Duration expiry = Duration::from_ms(8'000);
  return RedlockOptions{
      .node_count = node_count,
      .ttl = expiry,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::parallel,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = expiry / 20,             // timeoutFactor 0.05
      .release_timeout = Duration::from_s(3600),  // Unlock: the caller's context
      .cleanup_timeout = expiry / 20,  // the release after a failed try shares its timeout
      .drift = Drift{.ppm = 10'000, .constant_ms = 0, .rounding = DriftRounding::exact},
      .validity_check = ValidityCheck::positive,
      .retry_count = 31,
      .retry_delay = RetryDelay{.min_ms = 50, .jitter_ms = 199},
      .release_after_failed_attempt = true,
      .token_format = TokenFormat::base64,
      .token_size = 16,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .extend_command = RedlockExtendCommand::pexpire_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value_or_report_missing,
      .use_evalsha = true,
      .extend_checks_validity = true,
      .release_quorum = majority(node_count),
  };
}

RedlockOptions redsync_v4_fail_fast(uint32_t node_count) {
  RedlockOptions options = redsync_v4(node_count);
  options.wait = FanOutMode::return_at_quorum;
  return options;
}

}  // namespace redlock_sim::profiles
