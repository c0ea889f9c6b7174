#include "lock_impls/profiles/python_redis_lock.hpp"

#include "lock_impls/families/family_params.hpp"

#include <algorithm>

namespace redlock_sim::profiles {

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
  std::vector<LockEntry> list;
  list.push_back(lock_entry(
      "python-redis-lock", LockKind::profile,
      "Python: one node, expire=None means no TTL, renewal thread dies silently",
      "ionelmc/python-redis-lock 4.0.1 @ e448f12",
      plus(single_params(profiles::python_redis_lock(Duration::zero())),
           {auto_extend_param(false), period_param()}),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        SingleInstanceOptions o = profiles::python_redis_lock(Duration::zero());
        apply_single(p, o);
        profiles::python_redis_lock_wait(o);
        const Duration expire = o.ttl;
        auto inner = std::make_unique<SingleInstanceClient>(port, o);
        if (!p.flag("auto_extend")) return inner;
        return watched(port, p, std::move(inner), profiles::python_redis_lock_renewal(expire));
      }));
  return list;
}

}  // namespace redlock_sim
