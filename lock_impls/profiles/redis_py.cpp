#include "lock_impls/profiles/redis_py.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

// What this file models (the registration at its end reads it).
constexpr LockText redis_py_lock_text{
    .name = "redis-py-lock",
    .description =
        "Python: one node, timeout=None means no TTL, polls every 0.1 s, extend adds to PTTL",
    .models = "redis/redis-py Lock @ 34817ce2"};

SingleInstanceOptions redis_py_lock(Duration timeout) {
  return SingleInstanceOptions{
      .ttl = timeout,
      .clock = ClockKind::monotonic,
      .request_timeout = Duration::from_s(3600),  // socket_timeout None
      .deadline = DeadlineModel::none,
      .retry_count = -1,
      .retry_delay = RetryDelay{.min_ms = 100, .jitter_ms = 0},
      .token_format = TokenFormat::hex,
      .token_size = 16,
      .acquire_command = SingleAcquire::set_nx_px,
      .release_command = SingleRelease::delete_if_value,
      .extend_command = SingleExtend::pexpire_add_if_value,
      .use_evalsha = true,
  };
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redis_py_locks() {
  return {single_profile({
      .text = profiles::redis_py_lock_text,
      .options = [] { return profiles::redis_py_lock(Duration::zero()); },
  })};
}

}  // namespace redlock_sim
