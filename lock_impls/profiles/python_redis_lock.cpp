#include "lock_impls/profiles/python_redis_lock.hpp"

namespace redlock_sim::profiles {

SingleInstanceOptions python_redis_lock(Duration expire) {
  const int64_t wait_ms = expire == Duration::zero() ? 1'000 : expire.ms_floor();
  return SingleInstanceOptions{
      .ttl = expire,
      .clock = ClockKind::monotonic,
      .request_timeout = Duration::from_s(3600),
      .deadline = DeadlineModel::none,
      .retry_count = -1,
      .retry_delay = RetryDelay{.min_ms = wait_ms, .jitter_ms = 0},
      .token_format = TokenFormat::base64,
      .token_size = 18,
      .acquire_command = SingleAcquire::set_nx_ex,
      .release_command = SingleRelease::delete_and_signal,
      .extend_command = SingleExtend::expire_seconds_if_value,
      .use_evalsha = true,
      .key_prefix = "lock:",
  };
}

WatchdogOptions python_redis_lock_renewal(Duration expire) {
  return WatchdogOptions{.period = expire * 2 / 3,
                         .tells_holder = false,
                         .stops_on_error = true,
                         .stops_when_gone = true,
                         .unlocks_on_failure = false,
                         .hides_deadline = true};
}

}  // namespace redlock_sim::profiles
