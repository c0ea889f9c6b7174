#include "lock_impls/families/hash_lock.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"

#include <algorithm>

namespace redlock_sim {

namespace {
constexpr NodeId master = 0;

Duration min_duration(Duration a, Duration b) {
  return a < b ? a : b;
}
}  // namespace

HashLockClient::HashLockClient(Port& port, HashLockOptions options)
    : LockClient(port), options_(std::move(options)) {
  const std::string client =
      options_.client_id.empty() ? make_token(port, TokenFormat::uuid, 16) : options_.client_id;
  owner_ = client + ":" + options_.thread_id;
}

Deadline HashLockClient::deadline_from(Instant t1) const {
  if (!options_.lease_given && options_.promised_lease > Duration::zero()) {
    return Deadline{.clock = ClockKind::monotonic, .at = t1 + options_.promised_lease};
  }
  if (!options_.lease_given) return Deadline{.clock = ClockKind::monotonic, .at = Instant::max()};
  return Deadline{.clock = ClockKind::monotonic, .at = t1 + options_.lease};
}

Task<HashLockClient::Attempt> HashLockClient::try_on(NodeId node, const std::string& resource,
                                                     bool with_wait) {
  Attempt attempt;
  const std::string lease_ms = std::to_string(options_.lease.ms_floor());
  Call call = make_call(options_.fenced ? scripts::hash_acquire_fenced : scripts::hash_acquire,
                        resource, {lease_ms, owner_});
  if (options_.fenced) call.keys.push_back(options_.token_key_prefix + "{" + resource + "}");
  std::vector<NodeRequest> pipeline;
  pipeline.push_back({.node = node,
                      .command = eval_command(*call.script, false, call.keys, call.args),
                      .timeout = response_timeout()});
  const bool wait_replicas = with_wait && options_.replicas > 0;
  if (wait_replicas) {
    // Sent on the same connection right behind the script, as Redisson batches them.
    pipeline.push_back({.node = node,
                        .command = make_command("WAIT", std::to_string(options_.replicas),
                                                std::to_string(options_.replica_wait.ms_floor())),
                        .timeout = response_timeout() + options_.replica_wait});
  }
  const FanOutOptions wait_for_all;
  const std::vector<Outcome> outcomes = co_await port().fan_out(std::move(pipeline), wait_for_all);
  const Outcome& reply = outcomes[0];
  if (!reply.replied() || reply.reply.is_error()) {
    attempt.error = true;
    co_return attempt;
  }
  const Reply& r = reply.reply;
  if (options_.fenced && r.type == ReplyType::array && r.elements.size() == 2) {
    attempt.acquired = r.elements[0].is_integer(-1);
    if (attempt.acquired) attempt.fencing_token = r.elements[1].integer;
    attempt.holder_ttl = Duration::from_ms(attempt.acquired ? 0 : r.elements[0].integer);
  } else {
    attempt.acquired = r.is_nil();
    if (r.type == ReplyType::integer) attempt.holder_ttl = Duration::from_ms(r.integer);
  }
  if (attempt.acquired && wait_replicas) {
    const Outcome& acks = outcomes[1];
    attempt.acks = acks.replied() && acks.reply.type == ReplyType::integer
                       ? static_cast<uint32_t>(acks.reply.integer)
                       : 0;
    const uint32_t required =
        options_.acks_required == 0 ? options_.replicas : options_.acks_required;
    if (attempt.acks < required) {
      note("acquire: " + std::to_string(attempt.acks) + " replica acks < " +
           std::to_string(required) + ", undoing");
      co_await unlock_on(node, resource);
      attempt.acquired = false;
      attempt.error = true;
    }
  }
  co_return attempt;
}

Task<Grant> HashLockClient::acquire(std::string resource) {
  Grant grant;
  const Instant start = port().monotonic_now();
  const bool forever = options_.wait_time < Duration::zero();
  for (uint32_t n = 1; n <= options_.attempts_cap; ++n) {
    grant.attempts = n;
    const Instant t1 = port().monotonic_now();
    const Attempt attempt = co_await try_on(master, resource, true);
    note("attempt " + std::to_string(n) + ": " +
         (attempt.acquired ? std::string("locked")
          : attempt.error  ? std::string("error")
                           : "busy, holder ttl " + ms_text(attempt.holder_ttl)));
    if (attempt.acquired) {
      grant.acquired = true;
      grant.nodes_locked = 1;
      grant.lease = std::make_shared<Lease>();
      grant.lease->resource = resource;
      grant.lease->value = owner_;
      grant.lease->fencing_token = attempt.fencing_token;
      grant.lease->deadline = deadline_from(t1);
      co_return grant;
    }
    if (attempt.error) {
      grant.failure = "error";  // Redisson throws: timeouts and NoSyncedSlavesException
      co_return grant;
    }
    // Redisson waits for the unlock message or the holder's TTL; messages are not modelled,
    // so waiting is the TTL (at least 1 ms), capped by what is left of the wait time.
    Duration sleep =
        attempt.holder_ttl > Duration::zero() ? attempt.holder_ttl : Duration::from_ms(1);
    if (!forever) {
      const Duration left = options_.wait_time - (port().monotonic_now() - start);
      if (left <= Duration::zero()) break;
      sleep = min_duration(sleep, left);
    }
    co_await port().sleep(sleep);
  }
  grant.failure = "taken";
  co_return grant;
}

Task<bool> HashLockClient::unlock_on(NodeId node, const std::string& resource) {
  const std::string lease_ms = std::to_string(options_.lease.ms_floor());
  const Call call = make_call(scripts::hash_release, resource, {lease_ms, owner_});
  const Outcome outcome = co_await send_call(port(), node, call, response_timeout(), false);
  co_return outcome.replied() && outcome.reply.type == ReplyType::integer;
}

Task<ReleaseResult> HashLockClient::release(std::shared_ptr<Lease> lease) {
  ReleaseResult result;
  const std::string lease_ms = std::to_string(options_.lease.ms_floor());
  const Call call = make_call(scripts::hash_release, lease->resource, {lease_ms, owner_});
  const Outcome outcome = co_await send_call(port(), master, call, response_timeout(), false);
  result.released = outcome.replied() && outcome.reply.type == ReplyType::integer;
  // This grant is given back, even if an outer re-entry remains; and the renewal stops whatever
  // the unlock's outcome (Redisson cancels it in the unlock future's handle()), so a lost unlock
  // leaves the key to expire after its lease rather than be renewed for ever.
  lease->released = true;
  if (result.released) {
    result.nodes = 1;
  } else {
    result.failure = outcome.replied() ? "not owner" : "error";
  }
  note(std::string("release: ") + (result.released ? "released" : result.failure));
  co_return result;
}

Task<Outcome> HashLockClient::renew_on(NodeId node, const std::string& resource) {
  const std::string lease_ms = std::to_string(options_.lease.ms_floor());
  const Call call = make_call(scripts::hash_renew, resource, {lease_ms, owner_});
  co_return co_await send_call(port(), node, call, response_timeout(), false);
}

Task<ExtendResult> HashLockClient::extend(std::shared_ptr<Lease> lease) {
  ExtendResult result;
  ++lease->extensions;
  const Instant t1 = port().monotonic_now();
  const Outcome outcome = co_await renew_on(master, lease->resource);
  result.extended = outcome.replied() && outcome.reply.is_integer(1);
  result.lock_gone = outcome.replied() && !result.extended;
  if (result.extended) {
    result.nodes = 1;
    result.deadline = deadline_from(t1);
    lease->deadline = result.deadline;
    ++lease->renewals;
  } else {
    result.failure = result.lock_gone ? "not owner" : "error";
  }
  co_return result;
}

// Every lease/3 (10 s by default): renew; a lock the master says is not ours is dropped
// silently; an error is logged and renewal goes on at the next period.
Task<void> HashLockClient::run_watchdog(std::shared_ptr<Lease> lease) {
  while (!lease->released) {
    co_await port().sleep(options_.lease / 3);
    if (lease->released) co_return;
    if (options_.promised_lease > Duration::zero()) {
      // The key is kept; the holder's belief (the promised lease) is not moved.
      const Outcome outcome = co_await renew_on(master, lease->resource);
      if (outcome.replied() && outcome.reply.is_integer(0)) co_return;
      continue;
    }
    const ExtendResult result = co_await extend(lease);
    if (result.extended) continue;
    note("watchdog: renewal failed (" + result.failure + ")");
    if (!result.lock_gone) continue;
    if (options_.watchdog_tells_holder) lease->mark_lost("renewal: " + result.failure);
    co_return;
  }
}

MultiHashLockClient::MultiHashLockClient(Port& port, MultiHashLockOptions options)
    : LockClient(port), options_(std::move(options)), sub_(port, options_.sub) {}

// RLock.tryLock(await, -1) on one node: try; when busy, try again (after subscribing to the
// unlock channel: no pub/sub here, so no early wake-up) and wait min(holder's PTTL, what is left),
// until acquired or `await` is spent (no try after the last wait).
Task<HashLockClient::Attempt> MultiHashLockClient::try_with_wait(NodeId node,
                                                                 const std::string& resource,
                                                                 Duration await) {
  const Instant begin = port().monotonic_now();
  HashLockClient::Attempt attempt = co_await sub_.try_on(node, resource, false);
  for (uint32_t n = 1; n <= options_.sub.attempts_cap; ++n) {
    if (attempt.acquired || attempt.error) break;
    if (await - (port().monotonic_now() - begin) <= Duration::zero()) break;
    attempt = co_await sub_.try_on(node, resource, false);
    if (attempt.acquired || attempt.error) break;
    const Duration left = await - (port().monotonic_now() - begin);
    if (left <= Duration::zero()) break;
    const Duration ttl =
        attempt.holder_ttl > Duration::zero() ? attempt.holder_ttl : Duration::from_ms(1);
    co_await port().sleep(min_duration(ttl, left));
    if (await - (port().monotonic_now() - begin) <= Duration::zero()) break;
  }
  co_return attempt;
}

Task<uint32_t> MultiHashLockClient::attempt_all(const std::string& resource, Duration remaining,
                                                std::vector<NodeId>& acquired) {
  uint32_t failures = 0;
  const uint32_t n = options_.node_count;
  const uint32_t failures_allowed = options_.all_required ? 0 : n - majority(n);
  // lock() without a lease is tryLock(N x 1500 ms, -1): each sub-lock may wait on a busy node up
  // to min(remainTime / N, remainTime) (RedissonRedLock.calcLockWaitTime), and a round whose
  // remainTime is spent unlocks what it holds and fails. With a lease the library draws its wait
  // time at random (not fed from the simulated stream): one try per sub-lock, as before.
  const bool waits = !options_.sub.lease_given && options_.sub.wait_time < Duration::zero();
  const Duration lock_wait = std::max(remaining / n, Duration::from_ms(1));
  Duration remain = remaining;
  Instant time = port().monotonic_now();
  for (NodeId node = 0; node < n; ++node) {
    const HashLockClient::Attempt attempt =
        waits ? co_await try_with_wait(node, resource, min_duration(lock_wait, remain))
              : co_await sub_.try_on(node, resource, false);
    if (attempt.acquired) {
      acquired.push_back(node);
    } else {
      if (attempt.error) co_await sub_.unlock_on(node, resource);  // response timeout cleanup
      ++failures;
      // RedissonMultiLock: a failure once a quorum is held ends the round with success; the
      // sub-locks after it are not tried (`locks.size() - acquiredLocks.size() ==
      // failedLocksLimit()`).
      if (n - acquired.size() == failures_allowed) break;
      if (failures > failures_allowed) break;
    }
    if (waits) {
      remain = remain - (port().monotonic_now() - time);
      time = port().monotonic_now();
      if (remain <= Duration::zero()) co_return n;  // the round's time is spent: it fails
    }
  }
  co_return failures;
}

Task<Grant> MultiHashLockClient::acquire(std::string resource) {
  Grant grant;
  const uint32_t n = options_.node_count;
  const uint32_t failures_allowed = options_.all_required ? 0 : n - majority(n);
  const Duration wait_time = options_.wait_per_node * n;
  const Instant start = port().monotonic_now();
  for (uint32_t round = 1; round <= options_.sub.attempts_cap; ++round) {
    grant.attempts = round;
    std::vector<NodeId> acquired;
    // lock() loops over fresh tryLock(N x 1500 ms) calls; tryLock(wait) spends one budget.
    const Duration remaining = options_.sub.wait_time < Duration::zero()
                                   ? wait_time
                                   : wait_time - (port().monotonic_now() - start);
    const uint32_t failures = co_await attempt_all(resource, remaining, acquired);
    grant.nodes_locked = static_cast<uint32_t>(acquired.size());
    note("round " + std::to_string(round) + ": " + std::to_string(acquired.size()) + "/" +
         std::to_string(n) + " sub-locks");
    if (failures <= failures_allowed) {
      // No elapsed-time check: sub-lock 1 may already have expired by now.
      grant.acquired = true;
      grant.lease = std::make_shared<Lease>();
      grant.lease->resource = resource;
      grant.lease->value = sub_.owner();
      grant.lease->nodes = acquired;
      const Instant now = port().monotonic_now();
      grant.lease->deadline =
          Deadline{.clock = ClockKind::monotonic,
                   .at = options_.sub.lease_given ? now + options_.sub.lease : Instant::max()};
      if (options_.sub.lease_given) {
        // Redisson re-arms each acquired sub-lock with a plain PEXPIRE (no owner check).
        for (NodeId node : acquired) {
          co_await port().send(
              node,
              make_command("PEXPIRE", resource, std::to_string(options_.sub.lease.ms_floor())),
              options_.sub.request_timeout + options_.sub.response_timeout_late);
        }
      }
      co_return grant;
    }
    for (NodeId node : acquired)
      co_await sub_.unlock_on(node, resource);
    if (port().monotonic_now() - start >= wait_time && options_.sub.wait_time >= Duration::zero()) {
      break;
    }
  }
  grant.failure = "taken";
  co_return grant;
}

Task<ReleaseResult> MultiHashLockClient::release(std::shared_ptr<Lease> lease) {
  ReleaseResult result;
  lease->released = true;
  for (NodeId node = 0; node < options_.node_count; ++node) {
    if (co_await sub_.unlock_on(node, lease->resource)) ++result.nodes;
  }
  result.released = true;  // unlock() ignores the sub-locks' errors
  co_return result;
}

Task<ExtendResult> MultiHashLockClient::extend(std::shared_ptr<Lease> lease) {
  ExtendResult result;
  ++lease->extensions;
  for (NodeId node : lease->nodes) {
    const Outcome outcome = co_await sub_.renew_on(node, lease->resource);
    if (outcome.replied() && outcome.reply.is_integer(1)) ++result.nodes;
  }
  // No quorum test: one renewed sub-lock is "extended" (code reading, library bug B9).
  result.extended = result.nodes > 0;
  result.lock_gone = !result.extended;
  result.deadline = lease->deadline;
  if (result.extended) ++lease->renewals;
  co_return result;
}

// One renewal per sub-lock, each independent: a sub-lock that is gone stops being renewed, the
// others carry on, and nobody checks that a majority is still held.
Task<void> MultiHashLockClient::run_watchdog(std::shared_ptr<Lease> lease) {
  while (!lease->released && !lease->nodes.empty()) {
    co_await port().sleep(options_.sub.lease / 3);
    if (lease->released) co_return;
    std::vector<NodeId> still;
    for (NodeId node : lease->nodes) {
      const Outcome outcome = co_await sub_.renew_on(node, lease->resource);
      const bool gone = outcome.replied() && outcome.reply.is_integer(0);
      if (!gone) still.push_back(node);
    }
    if (still.size() != lease->nodes.size()) {
      note("watchdog: " + std::to_string(still.size()) + " sub-locks still renewed");
    }
    lease->nodes = still;
  }
}

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> hash_lock_locks() {
  std::vector<LockEntry> list;
  {
    const HashLockOptions d{.replicas = 2, .acks_required = 0};
    list.push_back(
        lock_entry("wait-acked-hash", LockKind::family,
                   "reentrant hash lock on a master, acquisition confirmed by WAIT from replicas, "
                   "watchdog renewal",
                   "Redisson RLock shape",
                   {replicas_param(d), acks_param(d),
                    ms_param("replica_wait_ms", d.replica_wait,
                             "WAIT's timeout in ms (0: WAIT blocks; the request still times out)"),
                    lease_param(), wait_time_param(d), hash_timeout_param(d)},
                   [](Port& port, const ParamValues& p) {
                     HashLockOptions o{.replicas = 2, .acks_required = 0};
                     apply_hash(p, o);
                     return std::make_unique<HashLockClient>(port, o);
                   }));
  }
  return list;
}

}  // namespace redlock_sim
