#include "lock_impls/families/single_instance.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/zoo/zoo.hpp"

#include "lock_impls/families/scripts.hpp"

namespace redlock_sim {

namespace {
constexpr NodeId master = 0;

int64_t whole_seconds(Duration d) {
  return d.ms_floor() / 1000;
}
}  // namespace

SingleInstanceClient::SingleInstanceClient(Port& port, SingleInstanceOptions options)
    : LockClient(port), options_(std::move(options)) {}

Deadline SingleInstanceClient::deadline_from(Instant t1) const {
  if (options_.deadline == DeadlineModel::none || options_.ttl == Duration::zero()) {
    return Deadline{.clock = options_.clock, .at = Instant::max()};
  }
  return Deadline{.clock = options_.clock,
                  .at = t1 + options_.ttl - drift_for(options_.ttl, options_.drift)};
}

Task<bool> SingleInstanceClient::try_once(const std::string& resource, const std::string& value) {
  const Duration timeout = options_.request_timeout;
  const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
  Outcome outcome;
  switch (options_.acquire_command) {
    case SingleAcquire::set_nx_px:
      if (options_.ttl == Duration::zero()) {
        outcome = co_await port().send(master, make_command("SET", resource, value, "NX"), timeout);
      } else {
        outcome = co_await port().send(
            master, make_command("SET", resource, value, "NX", "PX", ttl_ms), timeout);
      }
      co_return outcome.replied() && outcome.reply.is_ok();
    case SingleAcquire::set_nx_ex: {
      const std::string seconds = std::to_string(whole_seconds(options_.ttl));
      if (options_.ttl == Duration::zero()) {
        outcome = co_await port().send(master, make_command("SET", resource, value, "NX"), timeout);
      } else {
        outcome = co_await port().send(
            master, make_command("SET", resource, value, "NX", "EX", seconds), timeout);
      }
      co_return outcome.replied() && outcome.reply.is_ok();
    }
    case SingleAcquire::setnx_then_pexpire:
      // Two round trips: a client that dies between them leaves a key that never expires.
      outcome = co_await port().send(master, make_command("SETNX", resource, value), timeout);
      if (!(outcome.replied() && outcome.reply.is_integer(1))) co_return false;
      co_await port().send(master, make_command("PEXPIRE", resource, ttl_ms), timeout);
      co_return true;
  }
  co_return false;
}

// WAIT numreplicas timeout after the SET: fewer acks than asked and the try failed; the key is
// deleted again (compare-and-delete), so it does not block others for a TTL.
Task<bool> SingleInstanceClient::confirmed_by_replicas(const std::string& resource,
                                                       const std::string& value) {
  const Outcome acks =
      co_await port().send(master,
                           make_command("WAIT", std::to_string(options_.wait_numreplicas),
                                        std::to_string(options_.wait_timeout.ms_floor())),
                           options_.request_timeout + options_.wait_timeout);
  const int64_t count =
      acks.replied() && acks.reply.type == ReplyType::integer ? acks.reply.integer : -1;
  if (count >= static_cast<int64_t>(options_.wait_numreplicas)) co_return true;
  note("WAIT: " + (count < 0 ? std::string("no answer") : std::to_string(count) + " ack(s)") +
       " < " + std::to_string(options_.wait_numreplicas) + ": undoes the SET");
  co_await send_call(
      port(), master,
      make_call(scripts::delete_if_value, resource, std::vector<std::string>(1, value)),
      options_.request_timeout, options_.use_evalsha);
  co_return false;
}

Grant SingleInstanceClient::granted(const std::string& resource, const std::string& value,
                                    Instant t1, uint32_t attempts) const {
  Grant grant;
  grant.attempts = attempts;
  grant.acquired = true;
  grant.nodes_locked = 1;
  grant.lease = std::make_shared<Lease>();
  grant.lease->resource = resource;
  grant.lease->value = value;
  grant.lease->deadline = deadline_from(t1);
  return grant;
}

Task<Grant> SingleInstanceClient::acquire(std::string name) {
  const std::string resource = options_.key_prefix + name;
  const std::string value = make_token(port(), options_.token_format, options_.token_size);
  if (options_.wait_on_signal && options_.retry_count != 0) {
    co_return co_await acquire_waiting_on_signal(name, resource, value);
  }
  Grant grant;
  const uint32_t tries = tries_for(options_.retry_count, options_.attempts_cap);
  for (uint32_t attempt = 1; attempt <= tries; ++attempt) {
    grant.attempts = attempt;
    const Instant t1 = now_on(options_.clock);
    bool locked = co_await try_once(resource, value);
    note("attempt " + std::to_string(attempt) + (locked ? ": locked" : ": busy"));
    if (locked && options_.wait_numreplicas > 0)
      locked = co_await confirmed_by_replicas(resource, value);
    if (locked) co_return granted(resource, value, t1, attempt);
    if (attempt < tries) co_await port().sleep(draw_delay(port(), options_.retry_delay));
  }
  grant.failure = "taken";
  co_return grant;
}

// python-redis-lock's acquire loop: SET NX; when busy, BLPOP the signal list, woken at once by a
// release's LPUSH (or by an element a release left there within signal_expire, 1 s), else after
// the wait; try again. A wait that times out ends the loop after one more try only when the
// caller gave a timeout; an error or a lost reply raises out of acquire (here: "error").
Task<Grant> SingleInstanceClient::acquire_waiting_on_signal(std::string name, std::string resource,
                                                            std::string value) {
  Grant grant;
  const std::string signal = "lock-signal:" + name;
  const std::string seconds = std::to_string(options_.signal_wait_s);
  bool timed_out = false;
  for (uint32_t attempt = 1; attempt <= options_.attempts_cap; ++attempt) {
    grant.attempts = attempt;
    const Instant t1 = now_on(options_.clock);
    const bool locked = co_await try_once(resource, value);
    note("attempt " + std::to_string(attempt) + (locked ? ": locked" : ": busy"));
    if (locked) co_return granted(resource, value, t1, attempt);
    if (timed_out) break;
    const Outcome woke = co_await port().send(master, make_command("BLPOP", signal, seconds),
                                              options_.request_timeout);
    if (!woke.replied() || woke.reply.is_error()) {
      grant.failure = "error";
      co_return grant;
    }
    const bool signalled = woke.reply.type == ReplyType::array;
    note(signalled ? "woken by a release's signal" : "wait timed out");
    timed_out = !signalled && options_.signal_wait_gives_up;
  }
  grant.failure = "taken";
  co_return grant;
}

Task<ReleaseResult> SingleInstanceClient::release(std::shared_ptr<Lease> lease) {
  ReleaseResult result;
  lease->released = true;
  const Duration timeout = options_.request_timeout;
  const std::vector<std::string> args(1, lease->value);
  Outcome outcome;
  switch (options_.release_command) {
    case SingleRelease::delete_if_value:
      outcome = co_await send_call(port(), master,
                                   make_call(scripts::delete_if_value, lease->resource, args),
                                   timeout, options_.use_evalsha);
      result.released = outcome.replied() && outcome.reply.is_integer(1);
      break;
    case SingleRelease::delete_and_signal: {
      Call call = make_call(scripts::delete_and_signal, lease->resource, {lease->value, "1000"});
      // The library's signal list is "lock-signal:<name>", the name without "lock:".
      call.add_key("lock-signal:" + lease->resource.substr(options_.key_prefix.size()));
      outcome = co_await send_call(port(), master, call, timeout, options_.use_evalsha);
      result.released = outcome.replied() && outcome.reply.is_integer(0);
      break;
    }
    case SingleRelease::plain_del:
      outcome = co_await port().send(master, make_command("DEL", lease->resource), timeout);
      result.released = outcome.replied() && !outcome.reply.is_error();
      break;
    case SingleRelease::get_then_del:
      // The value can change between the GET and the DEL: the key may expire and be taken.
      outcome = co_await port().send(master, make_command("GET", lease->resource), timeout);
      if (outcome.replied() && outcome.reply.type == ReplyType::bulk &&
          outcome.reply.text == lease->value) {
        outcome = co_await port().send(master, make_command("DEL", lease->resource), timeout);
        result.released = outcome.replied() && outcome.reply.is_integer(1);
      }
      break;
  }
  result.nodes = result.released ? 1 : 0;
  if (!result.released) result.failure = outcome.replied() ? "not owner" : "error";
  note(std::string("release: ") + (result.released ? "released" : result.failure));
  co_return result;
}

Task<ExtendResult> SingleInstanceClient::extend(std::shared_ptr<Lease> lease) {
  ExtendResult result;
  ++lease->extensions;
  const Instant t1 = now_on(options_.clock);
  const Duration timeout = options_.request_timeout;
  const std::string ttl_ms = std::to_string(options_.ttl.ms_floor());
  Outcome outcome;
  Call call;
  switch (options_.extend_command) {
    case SingleExtend::pexpire_if_value:
      call = make_call(scripts::pexpire_if_value, lease->resource, {lease->value, ttl_ms});
      outcome = co_await send_call(port(), master, call, timeout, options_.use_evalsha);
      result.extended = outcome.replied() && outcome.reply.is_integer(1);
      break;
    case SingleExtend::pexpire_add_if_value:
      call = make_call(scripts::pexpire_add_if_value, lease->resource, {lease->value, ttl_ms, "0"});
      outcome = co_await send_call(port(), master, call, timeout, options_.use_evalsha);
      result.extended = outcome.replied() && outcome.reply.is_integer(1);
      break;
    case SingleExtend::expire_seconds_if_value: {
      const std::string seconds = std::to_string(whole_seconds(options_.ttl));
      call = make_call(scripts::expire_seconds_if_value, lease->resource, {lease->value, seconds});
      outcome = co_await send_call(port(), master, call, timeout, options_.use_evalsha);
      result.extended = outcome.replied() && outcome.reply.is_integer(0);
      break;
    }
  }
  result.nodes = result.extended ? 1 : 0;
  result.lock_gone = outcome.replied() && !result.extended;
  if (result.extended) {
    // redis-py's additive extend leaves more than ttl on the key; the holder only counts ttl.
    result.deadline = deadline_from(t1);
    lease->deadline = result.deadline;
    ++lease->renewals;
  } else {
    result.failure = outcome.replied() ? "not owner" : "error";
  }
  note(std::string("extend: ") + (result.extended ? "extended" : result.failure));
  co_return result;
}

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> single_instance_locks() {
  std::vector<LockEntry> list;
  {
    const SingleInstanceOptions d = zoo::single_instance_reference();
    list.push_back(lock_entry(
        "single-instance", LockKind::family,
        "SET NX PX on one node, compare-and-delete release, compare-and-PEXPIRE extend",
        "Redis docs, single instance",
        plus(single_params(d),
             {count_param("wait_numreplicas", "replicas", d.wait_numreplicas,
                          "single-instance: WAIT for this many replica acks after the SET"),
              ms_param("wait_timeout_ms", d.wait_timeout,
                       "single-instance: WAIT's timeout in ms (0: WAIT blocks)")}),
        [](Port& port, const ParamValues& p) {
          SingleInstanceOptions o = zoo::single_instance_reference();
          o.wait_numreplicas = p.count("wait_numreplicas");
          o.wait_timeout = p.ms("wait_timeout_ms");
          return single_client(port, p, o);
        }));
  }
  return list;
}

}  // namespace redlock_sim
