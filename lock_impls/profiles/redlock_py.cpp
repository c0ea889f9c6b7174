#include "lock_impls/profiles/redlock_py.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

RedlockOptions redlock_py(uint32_t node_count, Duration ttl) {
  return RedlockOptions{
      .node_count = node_count,
      .ttl = ttl,
      .clock = ClockKind::wall,
      .fan_out = FanOut::sequential,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = Duration::from_s(3600),
      .release_timeout = Duration::from_s(3600),
      .drift = Drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms},
      .validity_check = ValidityCheck::positive,
      .elapsed_in_whole_ms = true,
      .retry_count = 2,  // "retry_count 3" counts tries
      .retry_delay = RetryDelay{.min_ms = 200, .jitter_ms = 0},
      .sleep_after_last_attempt = true,
      .release_after_failed_attempt = true,
      .fail_if_quorum_with_errors = true,
      .token_format = TokenFormat::alphanumeric,
      .token_size = 22,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .release_command = RedlockReleaseCommand::delete_if_value,
      .can_extend = false,
      .release_quorum = 0,
  };
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redlock_py_locks() {
  std::vector<LockEntry> list;
  list.push_back(lock_entry(
      "redlock-py", LockKind::profile,
      "sequential, wall clock in whole ms, 3 tries fixed 200 ms, quorum with errors raises "
      "without releasing",
      "SPSCommerce/redlock-py @ 42ef491",
      redlock_params(profiles::redlock_py(5, Duration::from_ms(10'000))),
      [](Port& port, const ParamValues& p) {
        const RedlockOptions o = profiles::redlock_py(p.count("nodes"), Duration::from_ms(10'000));
        const int32_t default_retries = o.retry_count;
        std::unique_ptr<LockClient> client = redlock_client(port, p, o);
        // `retry_count or default`: a configured 0 falls back to the default (issue #24).
        auto& redlock = static_cast<RedlockClient&>(*client);
        if (redlock.options().retry_count == 0) redlock.set_retry_count(default_retries);
        return client;
      }));
  return list;
}

}  // namespace redlock_sim
