#include "lock_impls/profiles/redis_py.hpp"

namespace redlock_sim::profiles {

SingleInstanceOptions redis_py_lock(Duration timeout) {
  return SingleInstanceOptions{
      .ttl = timeout,
      .clock = ClockKind::monotonic,
      .request_timeout = Duration::from_s(3600),  // socket_timeout None
      .deadline = DeadlineModel::none,
      .retry_count = -1,
      .retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 0},
      .token_format = TokenFormat::hex,
      .token_size = 16,
      .acquire_command = SingleAcquire::set_nx_px,
      .release_command = SingleRelease::delete_if_value,
      .extend_command = SingleExtend::pexpire_add_if_value,
      .use_evalsha = true,
  };
}

}  // namespace redlock_sim::profiles
