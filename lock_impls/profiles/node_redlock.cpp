#include "lock_impls/profiles/node_redlock.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

RedlockOptions node_redlock_5_0_0_beta_2(uint32_t node_count, Duration duration) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = duration,
      .clock = ClockKind::wall,
      .fan_out = FanOut::parallel,
      .wait = FanOutMode::return_at_quorum,
      // node-redlock has no timeout of its own: a request timeout is the Redis client's
      // (ioredis's commandTimeout), the same for every command (found by staging
      // bug-node-redlock-4-failed-extend-unlocks with the real library).
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .request_timeout_bounds_every_command = true,
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::round_ms},
      .validity_check = ValidityCheck::none,
      .validity_from_first_attempt = true,
      .retry_count = 10,
      // retryDelay + floor((rand * 2 - 1) * retryJitter): 100..300 ms
      .retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      .release_after_failed_attempt = false,
      .release_after_validity_failure = false,
      .release_on_final_failure = true,
      .token_format = TokenFormat::hex,
      .token_size = 16,
      .acquire_command = RedlockAcquireCommand::script_set_if_none_exists,
      .extend_command = RedlockExtendCommand::set_px_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .use_evalsha = true,
      .extend_tries = 11,
      .extend_retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 200},
      .extend_checks_validity = false,
      .extend_refuses_expired_lease = true,
      .extend_start_before_retries = true,
      .release_quorum = majority(node_count),
      .release_wait = FanOutMode::return_at_quorum,  // _execute resolves at a quorum for or against
      .release_tries = 11,
  };
}

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
  RedlockOptions options = node_redlock_5_0_0_beta_2(node_count, duration);
  options.wait = FanOutMode::wait_for_all;
  options.validity_check = ValidityCheck::positive;
  options.validity_from_first_attempt = false;
  options.release_after_failed_attempt = true;
  options.release_after_validity_failure = true;
  options.release_on_final_failure = false;
  options.extend_unlocks_on_failure = true;
  options.extend_unlocks_each_try = true;
  options.release_tries = 1;  // unlock() is one pass that rejects without retrying
  options.release_wait = FanOutMode::wait_for_all;
  options.extend_start_before_retries = false;  // extend goes through _lock, start per try
  options.extend_checks_validity = true;  // extend goes through _lock, which checks expiration
  return options;
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> node_redlock_locks() {
  std::vector<LockEntry> list;
  list.push_back(lock_entry(
      "node-redlock-5.0.0-beta.2", LockKind::profile,
      "npm 5.0.0-beta.2 (its latest tag is 4.2.0): wall clock, validity from before the retries "
      "and never checked, returns at quorum, no release between tries",
      "mike-marcacci/node-redlock 5.0.0-beta.2 @ 54de94c",
      plus(redlock_params(profiles::node_redlock_5_0_0_beta_2(5, Duration::from_ms(10'000))),
           {auto_extend_param(false)}),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        RedlockOptions o =
            profiles::node_redlock_5_0_0_beta_2(p.count("nodes"), Duration::from_ms(10'000));
        std::unique_ptr<LockClient> client = redlock_client(port, p, o);
        if (!p.flag("auto_extend")) return client;
        return watched(port, p, std::move(client), profiles::node_redlock_using());
      }));
  list.push_back(redlock_profile(
      "node-redlock-4.2.0",
      "waits for all servers, checks expiration > now, a failed extend unlocks every server",
      "mike-marcacci/node-redlock v4.2.0 @ 870778c", profiles::node_redlock_4_2_0,
      Duration::from_ms(10'000)));
  return list;
}

}  // namespace redlock_sim
