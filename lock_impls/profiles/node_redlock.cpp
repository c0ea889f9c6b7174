#include "lock_impls/profiles/node_redlock.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"

namespace redlock_sim::profiles {

class NodeRedlockClient : public LibraryClient<NodeRedlockOptions> {
 public:
  using LibraryClient::LibraryClient;

  // Redlock.acquire(resources, duration): `start = Date.now()` once, before `_execute` and its
  // retries; the lock's expiration is start + duration - drift and is never compared with now.
  // An ExecutionError releases whatever minority took the value (`_execute(releaseScript, ...,
  // {retryCount: 0})`) and rethrows.
  Task<Grant> acquire(std::string resource) override {
    const std::string value = make_token(port(), TokenFormat::hex, 16);  // randomBytes(16) hex
    const Instant start = date_now();
    const Instant expiration = start + options_.ttl - drift_for(options_.ttl, options_.drift);
    std::vector<std::string> args{value, std::to_string(options_.ttl.ms_floor())};
    const Execution execution = co_await execute(Operation::acquire, resource, std::move(args),
                                                 options_.retry_count, expiration);
    Grant grant{.attempts = execution.attempts, .nodes_locked = execution.votes_for};
    if (execution.quorum) {
      // new Lock(this, resources, value, attempts, start + duration - drift)
      grant_lease(grant, resource, value, Deadline{.clock = options_.clock, .at = expiration});
      co_return grant;
    }
    grant.failure = "taken";
    std::vector<std::string> release_args{value};
    co_await execute(Operation::cleanup, resource, std::move(release_args), 0, expiration);
    co_return grant;
  }

  // Redlock.release(lock): `lock.expiration = 0`, then `_execute(releaseScript, ...)` with the
  // same retries as any other operation.
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;
    std::vector<std::string> args{lease->value};
    const Execution execution =
        co_await execute(Operation::release, lease->resource, std::move(args), options_.retry_count,
                         lease->deadline.at);
    co_return release_with_quorum(execution.votes_for, execution.quorum);
  }

  // Redlock.extend(existing, duration): refuses an already-expired lock locally; `start` is read
  // before `_execute` and its retries; no validity check. A failure leaves the existing Lock's
  // expiration as it was.
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ExtendResult result;
    ++lease->extensions;
    const Instant start = date_now();
    if (lease->deadline.at < start) {  // existing.expiration < Date.now()
      result.failure = "already expired";
      result.lock_gone = true;
      co_return result;
    }
    const Instant expiration = start + options_.ttl - drift_for(options_.ttl, options_.drift);
    std::vector<std::string> args{lease->value, std::to_string(options_.ttl.ms_floor())};
    const Execution execution = co_await execute(Operation::extend, lease->resource,
                                                 std::move(args), options_.retry_count, expiration);
    result.nodes = execution.votes_for;
    if (execution.quorum) {
      result.extended = true;
      result.deadline = Deadline{.clock = options_.clock, .at = expiration};
      ++lease->renewals;
      lease->deadline = result.deadline;
      co_return result;
    }
    result.lock_gone = execution.errors == 0;
    result.failure = "quorum";
    co_return result;
  }

 private:
  // What `_execute` ends with: the attempts it made and the last attempt's votes for.
  struct Execution {
    uint32_t attempts = 0;
    uint32_t votes_for = 0;
    uint32_t errors = 0;  // error replies and timeouts of the last attempt
    bool quorum = false;  // `vote === "for"`; otherwise ExecutionError
  };
  // Redlock._execute(script, keys, args, settings): `_attemptOperation` (the script on every
  // client at once, resolved as soon as a quorum voted for or against) until a quorum votes for,
  // sleeping between attempts, at most `retry_count + 1` attempts. `operation` picks the script
  // and each attempt's trace note (`expiration` gives its validity).
  enum class Operation : uint8_t { acquire, extend, release, cleanup };
  Task<Execution> execute(Operation operation, const std::string& key,
                          std::vector<std::string> args, int32_t retry_count, Instant expiration) {
    const Script& script = operation == Operation::acquire  ? scripts::set_if_none_exists
                           : operation == Operation::extend ? scripts::set_px_if_value
                                                            : scripts::delete_if_value;
    // _attemptOperation resolves "for" once votesFor reaches the quorum and "against" once it can
    // no longer be reached; each client runs EVALSHA, then EVAL after NOSCRIPT.
    const FanOutOptions vote{.mode = FanOutMode::return_at_quorum,
                             .quorum = quorum(),
                             .success = &redlock_acquire_success};
    Execution execution;
    const uint32_t max_attempts = tries_for(retry_count, options_.attempts_cap);  // retryCount + 1
    while (true) {
      ++execution.attempts;
      std::vector<std::string> keys{key};
      const std::vector<Outcome> outcomes =
          co_await run_script(port(), all_nodes(options_.node_count), script, std::move(keys), args,
                              options_.request_timeout, vote, true);
      execution.votes_for = 0;
      execution.errors = 0;
      for (const Outcome& outcome : outcomes) {
        execution.votes_for += redlock_acquire_success(outcome) ? 1 : 0;
        execution.errors += (!outcome.replied() || outcome.reply.is_error()) ? 1 : 0;
      }
      execution.quorum = execution.votes_for >= quorum();
      const std::string nodes = nodes_text(execution.votes_for, options_.node_count);
      const std::string validity = ", validity " + ms_text(expiration - date_now());
      if (operation == Operation::acquire) {
        note("attempt " + std::to_string(execution.attempts) + ": " + nodes + validity);
      } else if (operation == Operation::extend) {
        note("extend: " + nodes + validity);
      } else if (operation == Operation::release) {
        note("release: " + nodes);
      }
      if (execution.quorum) co_return execution;  // vote === "for"
      // "Wait before reattempting", else ExecutionError
      if (execution.attempts >= max_attempts) co_return execution;
      co_await port().sleep(draw_delay(port(), options_.retry_delay));
    }
  }

  Instant date_now() { return now_on(options_.clock); }
};

WatchdogOptions node_redlock_using() {
  return WatchdogOptions{
      .period = Duration::zero(),
      .renew_before_deadline = Duration::from_ms(500),
      .tells_holder = true,
      .stops_on_error = true,
      .stops_when_gone = true,
      .unlocks_on_failure = false,
      .hides_deadline = false,
  };
}

RedlockOptions node_redlock_4_2_0(uint32_t node_count, Duration duration) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = duration,
      .clock = ClockKind::wall,
      .fan_out = FanOut::parallel,
      .wait = FanOutMode::wait_for_all,
      // As in 5.0.0-beta.2: no timeout of its own, ioredis's commandTimeout bounds every command.
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .request_timeout_bounds_every_command = true,
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::round_ms},
      .validity_check = ValidityCheck::positive,
      .retry_count = 10,
      .retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      .release_after_failed_attempt = true,
      .release_after_validity_failure = true,
      .token_format = TokenFormat::hex,
      .token_size = 16,
      .acquire_command = RedlockAcquireCommand::script_set_if_none_exists,
      .extend_command = RedlockExtendCommand::set_px_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .use_evalsha = true,
      .extend_tries = 11,
      .extend_retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      .extend_checks_validity = true,  // extend goes through _lock, which checks expiration
      .extend_refuses_expired_lease = true,
      .extend_unlocks_on_failure = true,
      .extend_unlocks_each_try = true,
      .release_quorum = majority(node_count),  // unlock() is one pass that rejects without retrying
  };
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
// new Redlock(clients, settings) and acquire(resources, duration): retryCount, retryDelay,
// retryJitter and driftFactor are its settings; the clock and ioredis's commandTimeout are the
// model's rows. No fan-out, wait or extension quorum: every operation is _execute's vote.
std::vector<LockEntry> node_redlock_locks() {
  return {
      profiles::library_profile<profiles::NodeRedlockClient>({
          .more = {auto_extend_param(false)},
          .watchdog =
              [](const profiles::NodeRedlockOptions&) { return profiles::node_redlock_using(); },
          .text = {.name = "node-redlock-5.0.0-beta.2",
                   .description = "npm 5.0.0-beta.2 (its latest tag is 4.2.0): wall clock, "
                                  "validity from before the retries and never checked, returns "
                                  "at quorum, no release between tries",
                   .models = "mike-marcacci/node-redlock 5.0.0-beta.2 @ 54de94c"},
      }),
      redlock_profile({
          .text = {.name = "node-redlock-4.2.0",
                   .description = "waits for all servers, checks expiration > now, a failed "
                                  "extend unlocks every server",
                   .models = "mike-marcacci/node-redlock v4.2.0 @ 870778c"},
          .options =
              [](uint32_t node_count) {
                return profiles::node_redlock_4_2_0(node_count, Duration::from_ms(10'000));
              },
      }),
  };
}

}  // namespace redlock_sim
