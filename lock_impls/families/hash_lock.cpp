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
  co_return co_await try_on(node, resource, with_wait, options_.lease);
}

Task<HashLockClient::Attempt> HashLockClient::try_on(NodeId node, const std::string& resource,
                                                     bool with_wait, Duration lease) {
  Attempt attempt;
  const std::string lease_ms = std::to_string(lease.ms_floor());
  Call call = make_call(options_.fenced ? scripts::hash_acquire_fenced : scripts::hash_acquire,
                        resource, {lease_ms, owner_});
  if (options_.fenced) call.add_key(options_.token_key_prefix + "{" + resource + "}");
  std::vector<NodeRequest> pipeline;
  pipeline.push_back({.node = node,
                      .command = eval_command(*call.script(), false, call.keys(), call.args()),
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
    attempt.timed_out = reply.kind == OutcomeKind::unknown;
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
