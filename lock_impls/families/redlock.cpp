#include "lock_impls/families/redlock.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/zoo/zoo.hpp"

#include "lock_impls/families/scripts.hpp"

namespace redlock_sim {

namespace {

uint32_t count_accepted(const std::vector<Outcome>& outcomes,
                        SuccessPredicate success = &redlock_acquire_success) {
  uint32_t n = 0;
  for (const Outcome& o : outcomes)
    n += success(o) ? 1 : 0;
  return n;
}

uint32_t count_errors(const std::vector<Outcome>& outcomes) {
  uint32_t n = 0;
  for (const Outcome& o : outcomes)
    n += (!o.replied() || o.reply.is_error()) ? 1 : 0;
  return n;
}

// "attempt 2: 3/5 nodes, validity 12 ms" (ms_text's rounding), in one string reserved for it:
// every attempt of every client writes one.
std::string attempt_note(uint32_t attempt, uint32_t locked, uint32_t node_count,
                         Duration validity) {
  std::string text;
  text.reserve(64);
  text += "attempt ";
  text += std::to_string(attempt);
  text += ": ";
  text += std::to_string(locked);
  text += '/';
  text += std::to_string(node_count);
  text += " nodes, validity ";
  text += std::to_string(Duration::floor_div(validity.ns(), 1'000'000));
  text += " ms";
  return text;
}

}  // namespace

// redsync's old `status != 0` comparison: any reply that is not an error looked like success.
bool any_reply_success(const Outcome& outcome) {
  return outcome.replied() && !outcome.reply.is_error();
}

RedlockClient::RedlockClient(Port& port, RedlockOptions options)
    : LockClient(port), options_(std::move(options)) {}

Instant RedlockClient::read_clock() {
  return now_on(options_.clock);
}

Task<Grant> RedlockClient::acquire(std::string resource) {
  Grant grant;
  std::string value = make_token(port(), options_.token_format, options_.token_size);
  const Instant first_start = read_clock();
  const Duration drift = drift_for(options_.ttl, options_.drift);
  const uint32_t tries = tries_for(options_.retry_count, options_.attempts_cap);
  // The request is the same for every attempt with the same token: made once per token.
  std::shared_ptr<const Call> call = acquire_request(resource, value);
  for (uint32_t attempt = 1; attempt <= tries; ++attempt) {
    grant.attempts = attempt;
    if (options_.token_per_attempt && attempt > 1) {
      value = make_token(port(), options_.token_format, options_.token_size);
      call.reset();  // not held here, it may take the new token in place
      call = acquire_request(resource, value);
    }
    const Instant t1 = read_clock();
    const FanOutOptions fan{
        .mode = options_.wait, .quorum = quorum(), .success = &redlock_acquire_success};
    const std::vector<Outcome> outcomes = co_await call_all(
        port(), options_.node_count, *call, options_.fan_out, fan, options_.request_timeout,
        options_.use_evalsha, options_.abort_on_node_error);
    const Instant t2 = read_clock();
    const uint32_t locked = count_accepted(outcomes);
    grant.nodes_locked = locked;
    const Instant start = options_.validity_from_first_attempt ? first_start : t1;
    const Instant deadline =
        options_.count_elapsed ? start + options_.ttl - drift : t2 + options_.ttl - drift;
    const Duration validity = deadline - t2;
    if (noting()) note(attempt_note(attempt, locked, options_.node_count, validity));
    if (options_.abort_on_node_error && options_.fan_out == FanOut::sequential &&
        count_errors(outcomes) > 0) {
      // The node error escapes the library, however many nodes it had locked (redis-plus-plus
      // has no try/catch around a node's SET); the keys already set stay until their TTL.
      grant.failure = "error";
      co_return grant;
    }
    const bool valid = options_.validity_check == ValidityCheck::positive
                           ? validity > Duration::zero()
                           : validity >= Duration::zero();
    if (locked >= quorum() && valid) {
      grant_lease(grant, resource, value, Deadline{.clock = options_.clock, .at = deadline});
      co_return grant;
    }
    grant.failure = locked >= quorum() ? "validity" : "taken";
    const bool release_now = locked >= quorum() ? options_.release_after_validity_failure
                                                : options_.release_after_failed_attempt;
    if (release_now) co_await release_all(resource, value, options_.cleanup_timeout);
    if (options_.stop_when_validity_gone && validity <= Duration::zero()) {
      grant.failure = "validity";
      break;
    }
    if (attempt < tries) {
      co_await port().sleep(draw_delay(port(), options_.retry_delay));
    }
  }
  co_return grant;
}

Call RedlockClient::acquire_call(const std::string& resource, const std::string& value) const {
  const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
  switch (options_.acquire_command) {
    case RedlockAcquireCommand::set_nx_px:
      return plain_call(make_command("SET", resource, value, "NX", "PX", ttl_ms), 2);
    case RedlockAcquireCommand::script_set_if_none_exists:
      return make_call(scripts::set_if_none_exists, resource, {value, ttl_ms});
    case RedlockAcquireCommand::script_set_if_absent_or_same:
      return make_call(scripts::set_if_absent_or_same, resource, {value, ttl_ms, "yes"});
    case RedlockAcquireCommand::script_set_if_absent_or_same_or_error:
      return make_call(scripts::set_if_absent_or_same_or_error, resource, {value, ttl_ms});
  }
  return Call{};
}

Call RedlockClient::extend_call(const std::string& resource, const std::string& value) const {
  const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
  switch (options_.extend_command) {
    case RedlockExtendCommand::pexpire_if_value:
      return make_call(scripts::pexpire_if_value, resource, {value, ttl_ms});
    case RedlockExtendCommand::set_px_if_value:
      return make_call(scripts::set_px_if_value, resource, {value, ttl_ms});
    case RedlockExtendCommand::set_if_absent_or_same:
      return make_call(scripts::set_if_absent_or_same, resource, {value, ttl_ms, "yes"});
    case RedlockExtendCommand::set_if_absent_or_same_only_if_locked:
      return make_call(scripts::set_if_absent_or_same, resource, {value, ttl_ms, "no"});
    case RedlockExtendCommand::set_if_absent_or_same_or_error:
      return make_call(scripts::set_if_absent_or_same_or_error, resource, {value, ttl_ms});
    case RedlockExtendCommand::set_px_if_absent_or_value:
      return make_call(scripts::set_px_if_absent_or_value, resource, {value, ttl_ms});
    case RedlockExtendCommand::pexpire_if_value_else_set_nx:
      return make_call(scripts::pexpire_if_value_else_set_nx, resource, {value, ttl_ms});
    case RedlockExtendCommand::set_xx_px:
      // No ownership test at all: XX only asks that some key exists, so a lapsed lock that
      // changed hands is overwritten with our value (S21b).
      return plain_call(make_command("SET", resource, value, "XX", "PX", ttl_ms));
    case RedlockExtendCommand::get_then_pexpire_true_if_not_owner:
      break;  // not a script: see extend_without_script
  }
  return Call{};
}

std::shared_ptr<const Call> RedlockClient::acquire_request(const std::string& resource,
                                                           const std::string& value) {
  if (acquire_call_ != nullptr && acquire_call_.use_count() == 1 && acquire_resource_ == resource) {
    acquire_call_->retoken(value);
    return acquire_call_;
  }
  acquire_call_ = std::make_shared<Call>(acquire_call(resource, value));
  acquire_resource_ = resource;
  return acquire_call_;
}

std::shared_ptr<const Call> RedlockClient::release_call(const std::string& resource,
                                                        const std::string& value) {
  if (release_call_ != nullptr && release_call_->keys().front() == resource) {
    if (release_call_->args().front() == value) return release_call_;
    if (release_call_.use_count() == 1) {
      release_call_->retoken(value);
      return release_call_;
    }
  }
  const Script* script = &scripts::delete_if_value;
  if (options_.release_command == RedlockReleaseCommand::delete_if_value_or_report_missing) {
    script = &scripts::delete_if_value_or_report_missing;
  } else if (options_.release_command == RedlockReleaseCommand::delete_if_value_missing_ok) {
    script = &scripts::delete_if_value_missing_ok;
  }
  release_call_ = std::make_shared<Call>(*script, std::vector<std::string>(1, resource),
                                         std::vector<std::string>(1, value));
  return release_call_;
}

Task<uint32_t> RedlockClient::release_all(const std::string& resource, const std::string& value,
                                          Duration timeout) {
  // Held here while the request is out: a release of another token meanwhile replaces the kept
  // one, not this.
  const std::shared_ptr<const Call> call = release_call(resource, value);
  const FanOutOptions release_fan{.mode = FanOutMode::wait_for_all,
                                  .quorum = options_.release_quorum,
                                  .success = &redlock_acquire_success};
  const std::vector<Outcome> outcomes =
      co_await call_all(port(), options_.node_count, *call, options_.fan_out, release_fan,
                        options_.request_timeout_bounds_every_command ? options_.request_timeout
                        : timeout > Duration::zero()                  ? timeout
                                                                      : options_.release_timeout,
                        options_.use_evalsha, options_.abort_on_node_error);
  co_return count_accepted(outcomes);
}

Task<ReleaseResult> RedlockClient::release(std::shared_ptr<Lease> lease) {
  ReleaseResult result;
  lease->released = true;
  result.nodes = co_await release_all(lease->resource, lease->value);
  if (noting()) {
    note("release: " + std::to_string(result.nodes) + "/" + std::to_string(options_.node_count) +
         " nodes");
  }
  if (result.nodes >= options_.release_quorum) {
    result.released = true;
    co_return result;
  }
  result.failure = "quorum";
  co_return result;
}

Task<ExtendResult> RedlockClient::extend_once(Lease& lease) {
  ExtendResult result;
  const Instant t1 = read_clock();
  const FanOutOptions fan{
      .mode = options_.wait, .quorum = extend_quorum(), .success = &redlock_acquire_success};
  std::vector<Outcome> outcomes;
  if (options_.extend_command == RedlockExtendCommand::get_then_pexpire_true_if_not_owner) {
    outcomes = co_await extend_without_script(lease.resource, lease.value);
  } else {
    outcomes = co_await call_all(
        port(), options_.node_count, extend_call(lease.resource, lease.value), options_.fan_out,
        fan, options_.request_timeout, options_.use_evalsha, options_.abort_on_node_error);
  }
  const Instant t2 = read_clock();
  result.nodes =
      count_accepted(outcomes, options_.any_reply_counts_as_success ? &any_reply_success
                                                                    : &redlock_acquire_success);
  if (options_.abort_on_node_error && options_.fan_out == FanOut::sequential &&
      count_errors(outcomes) > 0) {
    // As in acquire: the error escapes extend, before any unlock.
    result.failure = "error";
    co_return result;
  }
  const Instant deadline = t1 + options_.ttl - drift_for(options_.ttl, options_.drift);
  const bool valid = !options_.extend_checks_validity || deadline > t2;
  if (noting()) {
    note("extend: " + std::to_string(result.nodes) + "/" + std::to_string(options_.node_count) +
         " nodes, validity " + ms_text(deadline - t2));
  }
  if (result.nodes >= extend_quorum() && valid) {
    result.extended = true;
    result.deadline = Deadline{.clock = options_.clock, .at = deadline};
    co_return result;
  }
  result.lock_gone = count_errors(outcomes) == 0;
  result.failure = result.nodes >= extend_quorum() ? "validity" : "quorum";
  co_return result;
}

Task<ExtendResult> RedlockClient::extend(std::shared_ptr<Lease> lease) {
  if (!options_.can_extend) co_return extend_unsupported(*lease);
  ExtendResult result;
  ++lease->extensions;
  if (options_.extend_refuses_expired_lease && lease->deadline.at < read_clock()) {
    result.failure = "already expired";
    result.lock_gone = true;
    co_return result;
  }
  for (uint32_t attempt = 1; attempt <= options_.extend_tries; ++attempt) {
    result = co_await extend_once(*lease);
    if (result.extended) break;
    if (result.failure == "error" && options_.abort_on_node_error) break;  // escaped: no unlock
    const bool last = attempt == options_.extend_tries;
    if (options_.extend_unlocks_on_failure && (last || options_.extend_unlocks_each_try)) {
      co_await release_all(lease->resource, lease->value);
    }
    if (attempt < options_.extend_tries) {
      co_await port().sleep(draw_delay(port(), options_.extend_retry_delay));
    }
  }
  if (result.extended) {
    ++lease->renewals;
    lease->deadline = result.deadline;
  }
  co_return result;
}

// RedMutexTx's extend (scripting = false), node by node: WATCH and GET; when the value is ours,
// MULTI PEXPIRE EXEC; when it is not ours or missing, report success all the same. The WATCH
// only guards the PEXPIRE, so it is modelled as GET then PEXPIRE on one connection.
Task<std::vector<Outcome>> RedlockClient::extend_without_script(const std::string& resource,
                                                                const std::string& value) {
  std::vector<Outcome> outcomes(options_.node_count);
  const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
  for (NodeId n = 0; n < options_.node_count; ++n) {
    const Outcome got =
        co_await port().send(n, make_command("GET", resource), options_.request_timeout);
    if (!got.replied()) {
      outcomes[n] = got;
      if (options_.abort_on_node_error) break;
      continue;
    }
    if (got.reply.type == ReplyType::bulk && got.reply.text == value) {
      outcomes[n] = co_await port().send(n, make_command("PEXPIRE", resource, ttl_ms),
                                         options_.request_timeout);
    } else {
      outcomes[n] = Outcome{.kind = OutcomeKind::ok, .reply = Reply::integer_reply(1)};
    }
  }
  co_return outcomes;
}

uint32_t RedlockClient::extend_quorum() const {
  return options_.extend_quorum == 0 ? quorum() : options_.extend_quorum;
}

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redlock_locks() {
  std::vector<LockEntry> list;
  list.push_back(
      lock_entry("redlock", LockKind::family,
                 "Redlock per the Redis docs: N masters, majority, validity = ttl - elapsed - "
                 "drift, release-all on failure, jittered retries",
                 "Redis docs; docs/catalogue.md", redlock_params(zoo::redlock_reference()),
                 [](Port& port, const ParamValues& p) {
                   return redlock_client(port, p, zoo::redlock_reference());
                 }));
  for (LockEntry& entry : list)
    entry.multi_node = true;  // every listed node is one of its masters
  return list;
}

}  // namespace redlock_sim
