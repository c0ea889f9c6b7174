// The single-instance lock of the Redis docs: SET key value NX PX ttl on one node, release by an
// atomic compare-and-delete script, extend by an atomic compare-and-PEXPIRE script. Waiting is a
// poll: try, sleep the retry delay, try again (redis-py polls every 0.1 s). The options also
// express redis-py Lock and python-redis-lock, and the zoo's broken single-node variants.
#pragma once

#include <memory>
#include <string>

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim {

enum class SingleAcquire : uint8_t {
  set_nx_px,           // SET k v NX PX ttl (no PX when ttl is zero: the lock never expires)
  set_nx_ex,           // SET k v NX EX seconds (python-redis-lock)
  setnx_then_pexpire,  // zoo: SETNX, then PEXPIRE in a second round trip
};

enum class SingleRelease : uint8_t {
  delete_if_value,    // atomic compare-and-delete (docs, redis-py)
  delete_and_signal,  // python-redis-lock: compare-and-delete plus a wake-up list
  plain_del,          // zoo: DEL whatever is there
  get_then_del,       // zoo: GET, compare in the client, then DEL
};

enum class SingleExtend : uint8_t {
  pexpire_if_value,         // reset the TTL (docs; redis-py replace_ttl / reacquire)
  pexpire_add_if_value,     // redis-py default: add to the remaining TTL
  expire_seconds_if_value,  // python-redis-lock (seconds)
};

enum class DeadlineModel : uint8_t {
  validity,  // deadline = T1 + ttl - drift on the client's clock (docs' formula with N = 1)
  none,      // the library computes none; its caller holds until release
};

struct SingleInstanceOptions {
  Duration ttl = Duration::from_ms(10'000);  // zero: SET without expiry
  ClockKind clock = ClockKind::monotonic;
  Duration request_timeout = Duration::from_ms(50);
  Drift drift{.ppm = 0, .constant_ms = 0, .rounding = DriftRounding::exact};
  DeadlineModel deadline = DeadlineModel::validity;
  // Blocking acquisition: -1 polls until acquired (bounded by attempts_cap), else extra tries.
  int32_t retry_count = 0;
  uint32_t attempts_cap = 100'000;
  RetryDelay retry_delay{.min_ms = 100, .jitter_ms = 0};
  TokenFormat token_format = TokenFormat::hex;
  uint32_t token_size = 20;
  SingleAcquire acquire_command = SingleAcquire::set_nx_px;
  SingleRelease release_command = SingleRelease::delete_if_value;
  SingleExtend extend_command = SingleExtend::pexpire_if_value;
  bool use_evalsha = false;
  std::string key_prefix;  // python-redis-lock locks "lock:<name>"
  // The docs' replica-confirmed pattern: after the SET, WAIT numreplicas timeout; too few acks
  // fail the try (the key is deleted again). 0: no WAIT.
  uint32_t wait_numreplicas = 0;
  Duration wait_timeout = Duration::from_ms(1'000);  // WAIT's own timeout (0: blocks)
  // python-redis-lock: a busy try waits with `BLPOP lock-signal:<name> <seconds>` (its release
  // pushes to that list) instead of sleeping the retry delay; whole seconds, 0 for ever. With
  // signal_wait_gives_up a wait that times out is followed by one last try (acquire's timeout).
  bool wait_on_signal = false;
  int64_t signal_wait_s = 0;
  bool signal_wait_gives_up = false;
};

class SingleInstanceClient : public LockClient {
 public:
  SingleInstanceClient(Port& port, SingleInstanceOptions options);

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  ClockKind clock() const override { return options_.clock; }
  const SingleInstanceOptions& options() const { return options_; }

 private:
  Task<bool> try_once(const std::string& resource, const std::string& value);
  Task<bool> confirmed_by_replicas(const std::string& resource, const std::string& value);
  Task<Grant> acquire_waiting_on_signal(std::string name, std::string resource, std::string value);
  Grant granted(const std::string& resource, const std::string& value, Instant t1,
                uint32_t attempts) const;
  Deadline deadline_from(Instant t1) const;

  SingleInstanceOptions options_;
};

}  // namespace redlock_sim
