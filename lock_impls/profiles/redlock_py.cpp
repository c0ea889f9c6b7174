#include "lock_impls/profiles/redlock_py.hpp"

namespace redlock_sim::profiles {

RedlockOptions redlock_py(uint32_t node_count, Duration ttl) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = ttl,
      .clock = ClockKind::wall,
      .fan_out = FanOut::sequential,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms},
      .validity_check = ValidityCheck::positive,
      .elapsed_in_whole_ms = true,
      .retry_count = 2,  // "retry_count 3" counts tries
      .retry_delay = RetryDelay{.min_ms = 200, .jitter_ms = 0},
      .sleep_after_last_attempt = true,
      .release_after_failed_attempt = true,
      .fail_if_quorum_with_errors = true,
      .token_format = TokenFormat::alphanumeric,
      .token_size = 22,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .can_extend = false,
      .release_quorum = 0,
  };
}

}  // namespace redlock_sim::profiles
