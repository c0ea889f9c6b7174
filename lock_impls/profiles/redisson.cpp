#include "lock_impls/profiles/redisson.hpp"

#include "lock_impls/families/family_params.hpp"

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

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redisson_locks() {
  std::vector<LockEntry> list;
  {
    const HashLockOptions d = profiles::redisson_rlock(1);
    list.push_back(
        lock_entry("redisson-rlock", LockKind::profile,
                   "Java: reentrant hash lock, WAIT accepts ONE replica ack, silent 10 s watchdog",
                   "redisson/redisson RLock @ 66863978b",
                   {replicas_param(d), acks_param(d), lease_param(), wait_time_param(d),
                    hash_timeout_param(d)},
                   [](Port& port, const ParamValues& p) {
                     HashLockOptions o = profiles::redisson_rlock(1);
                     apply_hash(p, o);
                     return std::make_unique<HashLockClient>(port, o);
                   }));
  }
  {
    const MultiHashLockOptions d = profiles::redisson_redlock(5);
    list.push_back(lock_entry(
        "redisson-redlock", LockKind::profile,
        "Java: sequential sub-lock tryLock, no validity check, per-node watchdogs",
        "redisson/redisson RedissonRedLock @ 66863978b", {lease_param(), hash_timeout_param(d.sub)},
        [](Port& port, const ParamValues& p) {
          MultiHashLockOptions o = profiles::redisson_redlock(p.node_count());
          apply_hash(p, o.sub);
          return std::make_unique<MultiHashLockClient>(port, o);
        }));
    list.back().multi_node = true;  // a sub-lock on every listed node
  }
  {
    const HashLockOptions d = profiles::redisson_fenced_lock(1);
    list.push_back(lock_entry(
        "redisson-fencedlock", LockKind::profile,
        "Java: RLock plus INCR token in the acquire script, re-entries bump the token",
        "redisson/redisson RFencedLock @ 66863978b",
        {replicas_param(d), acks_param(d),
         lease_param("lease time, honoured only with wait_time_ms (lockAndGetToken ignores it: "
                     "watchdog)"),
         wait_time_param(d), hash_timeout_param(d)},
        [](Port& port, const ParamValues& p) {
          HashLockOptions o = profiles::redisson_fenced_lock(1);
          apply_hash(p, o);
          profiles::redisson_fenced_lock_lease(o);
          return std::make_unique<HashLockClient>(port, o);
        }));
    list.back().fencing_tokens = true;
  }
  return list;
}

}  // namespace redlock_sim
