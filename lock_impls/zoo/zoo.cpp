#include "lock_impls/zoo/zoo.hpp"

namespace redlock_sim::zoo {

SingleInstanceOptions single_instance_reference() {
  return SingleInstanceOptions{};
}

// The catalogue's reference client (redis_lock_semantics.md section 3): N = 5, TTL 10 s,
// parallel SETs waiting for every reply or the 50 ms timeout, drift floor(ttl*0.01) + 2 ms,
// validity > 0, release on every node after a failure, a random 0-200 ms between tries.
RedlockOptions redlock_reference() {
  return RedlockOptions{.retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 200}};
}

SingleInstanceOptions plain_del_release() {
  SingleInstanceOptions options = single_instance_reference();
  options.release_command = SingleRelease::plain_del;
  return options;
}

SingleInstanceOptions get_then_del_release() {
  SingleInstanceOptions options = single_instance_reference();
  options.release_command = SingleRelease::get_then_del;
  return options;
}

SingleInstanceOptions setnx_then_expire() {
  SingleInstanceOptions options = single_instance_reference();
  options.acquire_command = SingleAcquire::setnx_then_pexpire;
  return options;
}

SingleInstanceOptions no_ttl() {
  SingleInstanceOptions options = single_instance_reference();
  options.ttl = Duration::zero();
  return options;
}

RedlockOptions no_elapsed_check() {
  RedlockOptions options = redlock_reference();
  options.count_elapsed = false;
  return options;
}

RedlockOptions extend_on_minority() {
  RedlockOptions options = redlock_reference();
  options.extend_quorum = 1;
  return options;
}

RedlockOptions resurrecting_extend() {
  RedlockOptions options = redlock_reference();
  options.extend_command = RedlockExtendCommand::set_px_if_absent_or_value;
  return options;
}

RedlockOptions unconditional_extend() {
  RedlockOptions options = redlock_reference();
  options.extend_command = RedlockExtendCommand::set_xx_px;
  return options;
}

}  // namespace redlock_sim::zoo
