#include "lock_impls/profiles/redisson.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/profiles/library_client.hpp"

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

namespace {

// RedissonRedLock is RedissonMultiLock (redisson/src/main/java/org/redisson/, Redisson 4.7.0
// and 66863978b) with two overrides: failedLocksLimit() = locks.size() - (locks.size()/2 + 1)
// and calcLockWaitTime(remainTime) = max(remainTime / locks.size(), 1). Each of its locks is an
// RLock on one master (`rlock`, an RLock without replicas).
struct RedissonRedLockOptions {
  uint32_t node_count = 3;
  // The holder's deadline is read on System.nanoTime (the driver's); the library's own time
  // accounting is System.currentTimeMillis, the wall clock (current_time_millis()).
  ClockKind clock = ClockKind::monotonic;
  HashLockOptions rlock;  // lease_given: lock(leaseTime, unit); otherwise lock()
  Duration base_wait_time_per_lock = Duration::from_ms(1'500);  // locks.size() * 1500
  uint32_t attempts_cap = 100'000;  // tryLock calls of one lockInterruptibly, and sub-lock tries
};

class RedissonRedLockClient : public LibraryClient<RedissonRedLockOptions> {
 public:
  RedissonRedLockClient(Port& port, RedissonRedLockOptions options)
      : LibraryClient(port, std::move(options)), rlock_(port, options_.rlock) {}

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  bool has_watchdog() const override { return lease_time() <= Duration::zero(); }
  Task<void> run_watchdog(std::shared_ptr<Lease> lease) override;

 private:
  enum class Locked : uint8_t { yes, no, thrown };
  Task<Locked> try_lock(const std::string& resource, Duration wait_time,
                        std::vector<NodeId>& acquired_locks);
  struct SubLock {
    bool acquired = false;
    bool response_timeout = false;  // RedisResponseTimeoutException escaped RLock.tryLock
  };
  Task<SubLock> try_lock_on(NodeId lock, const std::string& resource, Duration wait_time,
                            Duration lease_time);
  Task<void> unlock_inner(const std::vector<NodeId>& locks, const std::string& resource);

  // -1 (no lease: lock(), the watchdog) or lock(leaseTime)'s lease.
  Duration lease_time() const {
    return options_.rlock.lease_given ? options_.rlock.lease : Duration::from_ms(-1);
  }
  uint32_t failed_locks_limit() const { return options_.node_count - quorum(); }
  Duration calc_lock_wait_time(Duration remain_time) const {
    return std::max(remain_time / options_.node_count, Duration::from_ms(1));
  }
  Instant current_time_millis() { return Instant::from_ms(port().wall_now().ms_floor()); }
  // ThreadLocalRandom.current().nextLong(origin, bound) in whole milliseconds, from the port's
  // stream: origin + [0, bound - origin).
  Duration next_long(int64_t origin_ms, int64_t bound_ms) {
    if (bound_ms <= origin_ms) return Duration::from_ms(origin_ms);
    const auto span = static_cast<uint64_t>(bound_ms - origin_ms);
    return Duration::from_ms(origin_ms +
                             static_cast<int64_t>(draw_below_or_equal(port(), span - 1)));
  }

  HashLockClient rlock_;
};

// RedissonMultiLock.lockInterruptibly(leaseTime, unit): tryLock(waitTime, leaseTime) until it
// returns true, each time with a fresh waitTime (drawn at random when there is a lease).
Task<Grant> RedissonRedLockClient::acquire(std::string resource) {
  Grant grant;
  const Duration base_wait_time = options_.base_wait_time_per_lock * options_.node_count;
  const Duration lease = lease_time();
  for (uint32_t call = 1; call <= options_.attempts_cap; ++call) {  // while (true)
    grant.attempts = call;
    Duration wait_time = base_wait_time;
    if (lease > Duration::zero()) {
      const int64_t lease_ms = lease.ms_floor();  // unit.toMillis(leaseTime)
      wait_time = lease <= base_wait_time ? next_long(lease_ms / 2, lease_ms)
                                          : next_long(base_wait_time.ms_floor(), lease_ms);
    }
    std::vector<NodeId> acquired_locks;
    const Locked locked = co_await try_lock(resource, wait_time, acquired_locks);
    grant.nodes_locked = static_cast<uint32_t>(acquired_locks.size());
    note("tryLock(" + ms_text(wait_time) + ") " + std::to_string(call) + ": " +
         (locked == Locked::yes  ? "true, "
          : locked == Locked::no ? "false, "
                                 : "threw, ") +
         nodes_text(grant.nodes_locked, options_.node_count) + " held");
    if (locked == Locked::thrown) {
      grant.failure = "error";  // an exception leaves lock(): nothing is unlocked
      co_return grant;
    }
    if (locked == Locked::yes) {
      // No elapsed-time check: sub-lock 1 may already have expired by now. The library tells
      // no validity; the model's holder believes the lease from here (monotonic).
      const Instant at = lease > Duration::zero() ? port().monotonic_now() + lease : Instant::max();
      grant_lease(grant, resource, rlock_.owner(), Deadline{.clock = options_.clock, .at = at});
      grant.lease->nodes = acquired_locks;
      if (lease > Duration::zero()) {
        // acquiredLocks ... expireAsync(leaseTime).join(): each sub-lock re-armed with a
        // PEXPIRE (no owner check) in turn.
        for (NodeId lock : acquired_locks) {
          const Outcome expired = co_await port().send(
              lock, make_command("PEXPIRE", resource, std::to_string(lease.ms_floor())),
              options_.rlock.request_timeout + options_.rlock.response_timeout_late);
          if (!expired.replied() || expired.reply.is_error()) {
            grant.acquired = false;  // join() throws: lock() ends with the exception
            grant.lease.reset();
            grant.failure = "error";
            co_return grant;
          }
        }
      }
      co_return grant;
    }
  }
  grant.failure = "taken";
  co_return grant;
}

// RedissonMultiLock.tryLock(waitTime, leaseTime, unit), the loop over the locks.
auto RedissonRedLockClient::try_lock(const std::string& resource, Duration wait_time,
                                     std::vector<NodeId>& acquired_locks) -> Task<Locked> {
  const Duration lease = lease_time();
  Duration new_lease_time = Duration::from_ms(-1);
  if (lease > Duration::zero()) {
    new_lease_time = wait_time > Duration::zero() ? wait_time * 2 : lease;
  }
  Instant time = current_time_millis();
  Duration remain_time = Duration::from_ms(-1);
  if (wait_time > Duration::zero()) remain_time = wait_time;
  const Duration lock_wait_time = calc_lock_wait_time(remain_time);
  uint32_t failed_locks_limit = this->failed_locks_limit();
  const uint32_t size = options_.node_count;
  uint32_t steps = 0;
  for (NodeId lock = 0; lock < size && steps < options_.attempts_cap; ++lock, ++steps) {
    bool lock_acquired = false;
    if (wait_time <= Duration::zero() && lease <= Duration::zero()) {
      // lock.tryLock(): one attempt; its errors are caught as `Exception`.
      const HashLockClient::Attempt attempt = co_await rlock_.try_on(lock, resource, false);
      lock_acquired = attempt.acquired;
      if (attempt.timed_out) co_await unlock_inner(std::vector<NodeId>(1, lock), resource);
    } else {
      const Duration await_time = std::min(lock_wait_time, remain_time);
      const SubLock sub = co_await try_lock_on(lock, resource, await_time, new_lease_time);
      lock_acquired = sub.acquired;
      // catch (RedisResponseTimeoutException e) { unlockInner(Arrays.asList(lock)); }
      if (sub.response_timeout) co_await unlock_inner(std::vector<NodeId>(1, lock), resource);
    }
    if (lock_acquired) {
      acquired_locks.push_back(lock);
    } else {
      if (size - acquired_locks.size() == this->failed_locks_limit()) break;
      if (failed_locks_limit == 0) {
        co_await unlock_inner(acquired_locks, resource);
        if (wait_time <= Duration::zero()) co_return Locked::no;
        failed_locks_limit = this->failed_locks_limit();
        acquired_locks.clear();
        lock = static_cast<NodeId>(-1);  // reset iterator: the loop's ++lock makes it 0
      } else {
        --failed_locks_limit;
      }
    }
    if (remain_time > Duration::zero()) {
      remain_time = remain_time - (current_time_millis() - time);
      time = current_time_millis();
      if (remain_time <= Duration::zero()) {
        co_await unlock_inner(acquired_locks, resource);
        co_return Locked::no;
      }
    }
  }
  // The library's loop ends only with a quorum (its break, or the iterator's end after at most
  // failedLocksLimit failures); fewer means the model's step cap ended it (a clock stepped back
  // mid-call makes remainTime grow), and a grant without a quorum is not the library's.
  if (acquired_locks.size() < quorum()) {
    co_await unlock_inner(acquired_locks, resource);
    co_return Locked::no;
  }
  co_return Locked::yes;
}

// RedissonLock.tryLock(waitTime, leaseTime, unit) on one master. The first tryAcquire's
// exception leaves it (the MultiLock catches it); later ones end it with false. It subscribes to
// the lock's unlock channel before waiting; pub/sub is not modelled, so no unlock message ends a
// wait early: each wait is the holder's PTTL or what is left of waitTime.
auto RedissonRedLockClient::try_lock_on(NodeId lock, const std::string& resource,
                                        Duration wait_time, Duration lease_time) -> Task<SubLock> {
  const Duration lease = lease_time > Duration::zero() ? lease_time : options_.rlock.lease;
  Duration time = wait_time;
  Instant current = current_time_millis();
  HashLockClient::Attempt ttl = co_await rlock_.try_on(lock, resource, false, lease);
  if (ttl.acquired) co_return SubLock{.acquired = true};
  if (ttl.error) co_return SubLock{.response_timeout = ttl.timed_out};
  time = time - (current_time_millis() - current);
  if (time <= Duration::zero()) co_return SubLock{};       // acquireFailed
  for (uint32_t n = 1; n <= options_.attempts_cap; ++n) {  // while (true)
    Instant current_time = current_time_millis();
    ttl = co_await rlock_.try_on(lock, resource, false, lease);
    if (ttl.acquired) co_return SubLock{.acquired = true};
    if (ttl.error) co_return SubLock{};  // caught (timeout) or caught by the MultiLock: false
    time = time - (current_time_millis() - current_time);
    if (time <= Duration::zero()) co_return SubLock{};
    // waiting for message: getLatch().tryAcquire(ttl or time)
    current_time = current_time_millis();
    const bool ttl_first = ttl.holder_ttl >= Duration::zero() && ttl.holder_ttl < time;
    co_await port().sleep(ttl_first ? ttl.holder_ttl : time);
    time = time - (current_time_millis() - current_time);
    if (time <= Duration::zero()) co_return SubLock{};
  }
  co_return SubLock{};
}

// unlockInner(locks): each lock's unlockAsync joined in turn (a sequential stream), every
// exception skipped. Unlocking also cancels that sub-lock's renewal.
Task<void> RedissonRedLockClient::unlock_inner(const std::vector<NodeId>& locks,
                                               const std::string& resource) {
  for (NodeId lock : locks)
    co_await rlock_.unlock_on(lock, resource);
}

// RedissonRedLock.unlock() = unlockInner(locks): every master, the caller told nothing.
Task<ReleaseResult> RedissonRedLockClient::release(std::shared_ptr<Lease> lease) {
  ReleaseResult result;
  lease->released = true;
  for (NodeId lock = 0; lock < options_.node_count; ++lock) {
    if (co_await rlock_.unlock_on(lock, lease->resource)) ++result.nodes;
  }
  result.released = true;
  co_return result;
}

// Not a library call: what the holder's renewal does, one sub-lock after another.
Task<ExtendResult> RedissonRedLockClient::extend(std::shared_ptr<Lease> lease) {
  ExtendResult result;
  ++lease->extensions;
  for (NodeId lock : lease->nodes) {
    const Outcome outcome = co_await rlock_.renew_on(lock, lease->resource);
    if (outcome.replied() && outcome.reply.is_integer(1)) ++result.nodes;
  }
  // No quorum test: one renewed sub-lock is "extended" (code reading, library bug B9).
  result.extended = result.nodes > 0;
  result.lock_gone = !result.extended;
  result.deadline = lease->deadline;
  if (result.extended) ++lease->renewals;
  co_return result;
}

// One renewal per sub-lock (each master's client has its own LockRenewalScheduler), each
// independent: a sub-lock that is gone stops being renewed, the others carry on, and nobody
// checks that a majority is still held.
Task<void> RedissonRedLockClient::run_watchdog(std::shared_ptr<Lease> lease) {
  while (!lease->released && !lease->nodes.empty()) {
    co_await port().sleep(options_.rlock.lease / 3);
    if (lease->released) co_return;
    std::vector<NodeId> still;
    for (NodeId lock : lease->nodes) {
      const Outcome outcome = co_await rlock_.renew_on(lock, lease->resource);
      const bool gone = outcome.replied() && outcome.reply.is_integer(0);
      if (!gone) still.push_back(lock);
    }
    if (still.size() != lease->nodes.size()) {
      note("watchdog: " + std::to_string(still.size()) + " sub-locks still renewed");
    }
    lease->nodes = still;
  }
}

}  // namespace

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
    const HashLockOptions d = profiles::redisson_rlock(0);
    list.push_back(
        lock_entry("redisson-redlock", LockKind::profile,
                   "Java: sequential sub-lock tryLock, no validity check, per-node watchdogs",
                   "redisson/redisson RedissonRedLock @ 66863978b",
                   {lease_param(), hash_timeout_param(d)}, [](Port& port, const ParamValues& p) {
                     profiles::RedissonRedLockOptions o{.node_count = p.node_count(),
                                                        .rlock = profiles::redisson_rlock(0)};
                     apply_hash(p, o.rlock);
                     return std::make_unique<profiles::RedissonRedLockClient>(port, o);
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
