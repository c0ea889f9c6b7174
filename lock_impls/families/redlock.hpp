// Redlock as the Redis docs describe it ("Distributed Locks with Redis"), with every knob the
// real libraries turn differently (docs/lock-clients.md).
//
// One attempt: read T1 on the configured clock; SET the same random value NX PX ttl on all N
// nodes (in parallel or one after another, each request with its own timeout); read T2;
// validity = ttl - (T2 - T1) - drift; acquired iff a majority accepted and validity > 0. A
// failed attempt releases on every node, then sleeps a retry delay drawn from the port's
// randomness. Extension needs a majority within the validity. The zoo's variants, and the
// profiles whose library is this loop with other settings (redsync, redlock-rb, node-redlock
// 4.2.0, redis-plus-plus RedMutex and RedMutexTx), are this class with other options; a library
// whose control flow differs is its own class in profiles/ (node-redlock 5.0.0-beta.2, pottery,
// aioredlock, redlock-py, redis-plus-plus RedLockMutex).
#pragma once

#include <memory>
#include <string>

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim {

// How a node is asked to take the lock.
enum class RedlockAcquireCommand : uint8_t {
  set_nx_px,                     // SET k v NX PX ttl (docs, redsync, redlock-py, pottery, redis++)
  script_set_if_none_exists,     // node-redlock's multi-key script, one key
  script_set_if_absent_or_same,  // redlock-rb (nil when refused)
  script_set_if_absent_or_same_or_error,  // aioredlock (error reply when refused)
};

// How a node is asked to extend it.
enum class RedlockExtendCommand : uint8_t {
  pexpire_if_value,                      // compare-and-PEXPIRE (docs, redsync, pottery, redis++)
  set_px_if_value,                       // node-redlock
  set_if_absent_or_same,                 // redlock-rb default: re-creates an absent key (issue #36)
  set_if_absent_or_same_only_if_locked,  // redlock-rb with extend_only_if_locked: true
  set_if_absent_or_same_or_error,        // aioredlock: re-creates an absent key
  set_px_if_absent_or_value,             // zoo: resurrecting extend
  pexpire_if_value_else_set_nx,          // redsync WithSetNXOnExtend (PR #149)
  get_then_pexpire_true_if_not_owner,    // redis-plus-plus RedMutexTx: GET, PEXPIRE if ours,
                                         // and "success" when not ours or missing (bug)
  set_xx_px,                             // zoo: SET k v XX PX ttl, whoever's key it is (S21b)
};

// How a node is asked to release it.
enum class RedlockReleaseCommand : uint8_t {
  delete_if_value,                    // 1 deleted, 0 otherwise
  delete_if_value_or_report_missing,  // redsync: -1 when missing
  delete_if_value_missing_ok,         // aioredlock: a missing key counts as released
};

enum class ValidityCheck : uint8_t {
  positive,      // validity > 0 (docs, redsync, node-redlock v4, redis++ RedMutex)
  non_negative,  // validity >= 0 (redlock-rb)
};

struct RedlockOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);
  ClockKind clock = ClockKind::monotonic;
  FanOut fan_out = FanOut::parallel;
  FanOutMode wait = FanOutMode::wait_for_all;
  Duration request_timeout = Duration::from_ms(50);
  Duration release_timeout = Duration::from_ms(50);
  // The release after a failed attempt (and after the last one), when it has its own timeout
  // (redsync wraps it in the attempt's context); zero: release_timeout.
  Duration cleanup_timeout = Duration::zero();
  // The request timeout is the Redis client's own (ioredis's commandTimeout for node-redlock),
  // so it bounds every command the lock sends, releases and cleanups included.
  bool request_timeout_bounds_every_command = false;
  Drift drift;
  ValidityCheck validity_check = ValidityCheck::positive;
  // Elapsed time counts from before the first attempt instead of each attempt's own T1
  // (node-redlock 5.0.0-beta.2, redis-plus-plus RedLockMutexVessel).
  bool validity_from_first_attempt = false;
  // Zoo: validity = ttl - drift, as if the acquisition took no time.
  bool count_elapsed = true;
  // -1: retry until acquired (pottery, node-redlock retryCount -1); bounded by attempts_cap.
  int32_t retry_count = 3;
  uint32_t attempts_cap = 100'000;
  RetryDelay retry_delay{.min_ms = 200, .jitter_ms = 0};
  bool release_after_failed_attempt = true;
  bool release_after_validity_failure = true;  // RedMutexTx leaves a too-slow win's keys
  // A try whose validity is gone ends the retries (redis-plus-plus: "unlock and break").
  bool stop_when_validity_gone = false;
  // Sequential fan-out: a node error (an error reply, a timeout) ends the acquisition or the
  // extension at once, even after a quorum, leaving the keys already set (redis-plus-plus lets
  // the exception escape).
  bool abort_on_node_error = false;
  TokenFormat token_format = TokenFormat::hex;
  uint32_t token_size = 20;
  bool token_per_attempt = false;  // redlock-rb and RedMutex draw a new token for every try
  RedlockAcquireCommand acquire_command = RedlockAcquireCommand::set_nx_px;
  RedlockExtendCommand extend_command = RedlockExtendCommand::pexpire_if_value;
  RedlockReleaseCommand release_command = RedlockReleaseCommand::delete_if_value;
  bool use_evalsha = false;
  // Extension.
  bool can_extend = true;
  uint32_t extend_quorum = 0;  // 0: majority; the zoo counts a minority
  uint32_t extend_tries = 1;
  RetryDelay extend_retry_delay{.min_ms = 200, .jitter_ms = 0};
  bool extend_checks_validity = true;         // the new validity must be > 0 from the extend's T1
  bool extend_refuses_expired_lease = false;  // local pre-check: deadline already passed
  // A failed extend unlocks every node: after the last try (redlock-rb, redis++, aioredlock),
  // or after each failed try so the retries cannot succeed (node-redlock v4).
  bool extend_unlocks_on_failure = false;
  bool extend_unlocks_each_try = false;
  // Release needs this many nodes to report success; 0: best effort (always "released").
  uint32_t release_quorum = 0;
  // redsync before PR #38/#61: a script reply of 0 counted as success for extend and release.
  bool any_reply_counts_as_success = false;
};

class RedlockClient : public LockClient {
 public:
  RedlockClient(Port& port, RedlockOptions options);

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  ClockKind clock() const override { return options_.clock; }
  const RedlockOptions& options() const { return options_; }
  uint32_t quorum() const { return majority(options_.node_count); }

 protected:
  Call acquire_call(const std::string& resource, const std::string& value) const;
  // The acquisition request of `value` on `resource`: the last one made, given `value` in place
  // when no attempt holds it any more and its resource is this one (its argv's buffers reused),
  // else a new one, kept.
  std::shared_ptr<const Call> acquire_request(const std::string& resource,
                                              const std::string& value);
  Call extend_call(const std::string& resource, const std::string& value) const;
  uint32_t extend_quorum() const;
  Task<std::vector<Outcome>> extend_without_script(const std::string& resource,
                                                   const std::string& value);
  // The release request of `value` on `resource`. Every failed attempt with one token and the
  // release of its lease send the same request, so the last one made is kept, and given again
  // while its key and value are these (its argv built once); another token is written into it
  // when no release holds it any more (Call::retoken), else gets a new one.
  std::shared_ptr<const Call> release_call(const std::string& resource, const std::string& value);
  // Deletes our key on every node; `timeout` zero: release_timeout.
  Task<uint32_t> release_all(const std::string& resource, const std::string& value,
                             Duration timeout = Duration::zero());
  // One extension try; its new deadline counts from this try's T1.
  Task<ExtendResult> extend_once(Lease& lease);
  Instant read_clock();

  RedlockOptions options_;
  std::shared_ptr<Call> acquire_call_;  // the last acquisition request made
  std::string acquire_resource_;        // its resource
  std::shared_ptr<Call> release_call_;  // the last release request made
};

// Every command the family sends answers OK or integer 1 when the node did what was asked. Inline:
// the family counts its results with it after every round.
inline bool redlock_acquire_success(const Outcome& outcome) {
  return outcome.replied() && (outcome.reply.is_ok() || outcome.reply.is_integer(1));
}

}  // namespace redlock_sim
