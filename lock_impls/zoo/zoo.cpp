#include "lock_impls/zoo/zoo.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::zoo {

SingleInstanceOptions single_instance_reference() {
  return SingleInstanceOptions{};
}

// The catalogue's reference client (docs/catalogue.md): N = 5, TTL 10 s,
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

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> zoo_locks() {
  std::vector<LockEntry> list;
  const auto single = [](std::string name, std::string description,
                         SingleInstanceOptions (*options)()) {
    return lock_entry(std::move(name), LockKind::zoo, std::move(description), "single-instance",
                      single_params(options()), [options](Port& port, const ParamValues& p) {
                        return single_client(port, p, options());
                      });
  };
  const auto redlock = [](std::string name, std::string description, RedlockOptions (*options)()) {
    LockEntry entry = lock_entry(
        std::move(name), LockKind::zoo, std::move(description), "redlock",
        redlock_params(options()),
        [options](Port& port, const ParamValues& p) { return redlock_client(port, p, options()); });
    entry.multi_node = true;
    return entry;
  };
  list.push_back(single("zoo-plain-del-release", "release by plain DEL: deletes another's lock",
                        zoo::plain_del_release));
  list.push_back(single("zoo-get-then-del-release",
                        "release by GET then DEL: the key can change hands in between",
                        zoo::get_then_del_release));
  list.push_back(single("zoo-setnx-then-expire",
                        "SETNX then PEXPIRE: a crash in between leaves a lock without TTL",
                        zoo::setnx_then_expire));
  list.push_back(
      single("zoo-no-ttl", "SET NX without expiry: a crashed holder blocks for ever", zoo::no_ttl));
  list.push_back(redlock("zoo-no-elapsed-check",
                         "Redlock validity ignores the acquisition's elapsed time",
                         zoo::no_elapsed_check));
  list.push_back(redlock("zoo-extend-on-minority",
                         "Redlock extension counted as success on a single node",
                         zoo::extend_on_minority));
  list.push_back(redlock("zoo-resurrecting-extend",
                         "Redlock extension re-creates the key where it lapsed",
                         zoo::resurrecting_extend));
  list.push_back(redlock("zoo-unconditional-extend",
                         "Redlock extension by SET XX PX: overwrites the new holder's keys",
                         zoo::unconditional_extend));
  return list;
}

}  // namespace redlock_sim
