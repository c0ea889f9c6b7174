#include "lock_impls/profiles/python_redis_lock.hpp"

#include "lock_impls/families/family_params.hpp"

#include <algorithm>

namespace redlock_sim::profiles {

// What this file models (the registration at its end reads it).
constexpr LockText python_redis_lock_text{
    .name = "python-redis-lock",
    .description = "Python: one node, expire=None means no TTL, renewal thread dies silently",
    .models = "ionelmc/python-redis-lock 4.0.1 @ e448f12"};

SingleInstanceOptions python_redis_lock(Duration expire) {
  return SingleInstanceOptions{
      .ttl = expire,
      .clock = ClockKind::monotonic,
      .request_timeout = Duration::from_s(3600),
      .deadline = DeadlineModel::none,
      .retry_count = -1,
      .retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 0},  // unused: it waits on a signal
      .token_format = TokenFormat::base64,
      .token_size = 18,
      .acquire_command = SingleAcquire::set_nx_ex,
      .release_command = SingleRelease::delete_and_signal,
      .extend_command = SingleExtend::expire_seconds_if_value,
      .use_evalsha = true,
      .key_prefix = "lock:",
      .wait_on_signal = true,
  };
}

void python_redis_lock_wait(SingleInstanceOptions& o) {
  const int64_t expire_s = o.ttl.ms_floor() / 1000;  // the driver's int(ttl_ms / 1000)
  o.wait_on_signal = true;
  o.signal_wait_gives_up = o.retry_count > 0;
  o.signal_wait_s = o.retry_count > 0
                        ? std::max<int64_t>(o.retry_count * std::max<int64_t>(expire_s, 1), 1)
                        : expire_s;
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

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> python_redis_lock_locks() {
  return {single_profile({
      .text = profiles::python_redis_lock_text,
      .options = [] { return profiles::python_redis_lock(Duration::zero()); },
      .more = {auto_extend_param(false), period_param()},
      .adjust = profiles::python_redis_lock_wait,
      .watchdog =
          [](const SingleInstanceOptions& o) { return profiles::python_redis_lock_renewal(o.ttl); },
  })};
}

}  // namespace redlock_sim
