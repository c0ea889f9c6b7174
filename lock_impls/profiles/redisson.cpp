#include "lock_impls/profiles/redisson.hpp"

namespace redlock_sim::profiles {

HashLockOptions redisson_rlock(uint32_t replicas) {
  return HashLockOptions{
      .lease = Duration::from_ms(30'000),
      .lease_given = false,
      .replicas = replicas,
      .acks_required = 1,
      .replica_wait = Duration::from_ms(1'000),
      .request_timeout = Duration::from_ms(3'000),
      .response_timeout_late = Duration::from_ms(30),
      .wait_time = Duration::from_ms(-1),
      .thread_id = "1",
      .fenced = false,
      .watchdog_tells_holder = false,
  };
}

MultiHashLockOptions redisson_redlock(uint32_t node_count) {
  MultiHashLockOptions options;
  options.node_count = node_count;
  options.all_required = false;
  options.sub = redisson_rlock(0);
  options.wait_per_node = Duration::from_ms(1'500);
  return options;
}

HashLockOptions redisson_fenced_lock(uint32_t replicas) {
  HashLockOptions options = redisson_rlock(replicas);
  options.fenced = true;
  return options;
}

void redisson_fenced_lock_lease(HashLockOptions& options) {
  if (options.lease_given && options.wait_time < Duration::zero()) {
    options.promised_lease = options.lease;
    options.lease_given = false;
    options.lease = redisson_rlock(0).lease;
  }
}

}  // namespace redlock_sim::profiles
