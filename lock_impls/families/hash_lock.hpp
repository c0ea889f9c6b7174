// The reentrant hash lock on a master with replicas (Redisson RLock's shape). RedissonRedLock
// (profiles/redisson.cpp) runs one on each of its masters.
//
// The lock key is a hash; the field names the owner (client id : thread id) and counts
// re-entries. Acquisition is one atomic script (HINCRBY + PEXPIRE, or the holder's PTTL when
// busy) pipelined with WAIT <replicas> <timeout> on the same connection; too few replica
// acknowledgements undo the acquisition. Without an explicit lease time a watchdog renews the
// lease every lease/3 and drops a lock the master no longer has without telling anyone.
// Optionally every grant INCRs a fencing counter inside the script (RFencedLock).
#pragma once

#include <memory>
#include <string>

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim {

struct HashLockOptions {
  Duration lease = Duration::from_ms(30'000);  // the watchdog lease (lockWatchdogTimeout)
  bool lease_given = false;    // tryLock(..., leaseTime): no watchdog, the key lives `lease`
  uint32_t replicas = 0;       // replicas the client knows the master has
  uint32_t acks_required = 0;  // 0: every replica must acknowledge (Redisson: one suffices)
  Duration replica_wait = Duration::from_ms(1'000);  // WAIT's timeout (slavesSyncTimeout)
  Duration request_timeout = Duration::from_ms(3'000);
  // Redisson fires a response timeout from its timer wheel, a tick or so after the timeout: a
  // reply that arrives in between still counts. Measured with Redisson 4.7.0 through the driver:
  // 29-34 ms late for 50 ms timeouts, 30-79 ms for 3 s ones; the model takes 30 ms.
  Duration response_timeout_late = Duration::zero();
  // How long acquire waits for a busy lock; negative: forever (lock()), bounded by attempts_cap.
  Duration wait_time = Duration::from_ms(-1);
  uint32_t attempts_cap = 100'000;
  std::string client_id;  // empty: a uuid drawn from the port
  std::string thread_id = "1";
  bool fenced = false;  // INCR "<prefix>{resource}" in the acquire script
  std::string token_key_prefix = "redisson_lock_token:";
  bool watchdog_tells_holder = false;  // Redisson never tells (PR #7254 proposes a listener)
  // RFencedLock.lockAndGetToken(leaseTime): a lease the caller asked for and the library
  // ignores. The watchdog keeps the key (30 s lease, renewed silently for ever) while the
  // holder, told the lock ends after leaseTime, believes it until t1 + promised_lease.
  Duration promised_lease = Duration::zero();
};

class HashLockClient : public LockClient {
 public:
  HashLockClient(Port& port, HashLockOptions options);

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  bool has_watchdog() const override { return !options_.lease_given; }
  Task<void> run_watchdog(std::shared_ptr<Lease> lease) override;
  ClockKind clock() const override { return ClockKind::monotonic; }
  const std::string& owner() const { return owner_; }

  // One tryLock attempt on `node`: acquired (true) or the holder's remaining TTL.
  struct Attempt {
    bool acquired = false;
    bool error = false;
    bool timed_out = false;  // the script's reply never came (RedisResponseTimeoutException)
    Duration holder_ttl = Duration::zero();
    std::optional<int64_t> fencing_token;
    uint32_t acks = 0;
  };
  Task<Attempt> try_on(NodeId node, const std::string& resource, bool with_wait);
  // The same attempt with a lease of the caller's (RedissonMultiLock's newLeaseTime).
  Task<Attempt> try_on(NodeId node, const std::string& resource, bool with_wait, Duration lease);
  Task<bool> unlock_on(NodeId node, const std::string& resource);
  Task<Outcome> renew_on(NodeId node, const std::string& resource);

 private:
  Deadline deadline_from(Instant t1) const;
  Duration response_timeout() const {
    return options_.request_timeout + options_.response_timeout_late;
  }

  HashLockOptions options_;
  std::string owner_;
};

}  // namespace redlock_sim
