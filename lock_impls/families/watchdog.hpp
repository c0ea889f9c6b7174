// Auto-extension: a watchdog that renews a held lock every `period` through the wrapped
// client's extend, so the holder needs no TTL of its own choosing. The variants differ in what
// happens when a renewal fails: the watchdog may tell its holder (`Lease::lost`, as
// redis-plus-plus's callback or node-redlock's abort signal) or die silently (python-redis-lock's
// thread, Redisson's cancelled renewal), and may stop or keep trying after an error.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lock_impls/lock.hpp"

namespace redlock_sim {

struct WatchdogOptions {
  Duration period = Duration::from_ms(10'000);
  // Renew this long before the lease's deadline instead of every `period` (node-redlock
  // using(): expiration - now - automaticExtensionThreshold).
  Duration renew_before_deadline = Duration::zero();
  bool tells_holder = true;         // a failed renewal sets Lease::lost
  bool stops_on_error = true;       // a renewal that timed out or errored ends the watchdog
  bool stops_when_gone = true;      // a renewal the servers refused (not ours) ends it
  bool unlocks_on_failure = false;  // aioredlock releases the lock when its extend fails
  // The holder sees no deadline: it holds until release or until told (RedMutex, Redisson,
  // python-redis-lock, aioredlock). node-redlock's using() keeps the lock's expiration.
  bool hides_deadline = true;
  // One renewal per resource per client, as aioredlock's `_watchdogs[resource]`: a newer grant
  // on the same resource replaces the entry, and releasing (or a failed renewal's unlock)
  // cancels whatever renewal the entry holds, possibly another task's (bug list item 27).
  bool one_watchdog_per_resource = false;
};

class WatchdogClient : public LockClient {
 public:
  WatchdogClient(Port& port, std::unique_ptr<LockClient> inner, WatchdogOptions options);

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  bool has_watchdog() const override { return true; }
  Task<void> run_watchdog(std::shared_ptr<Lease> lease) override;
  ClockKind clock() const override { return inner_->clock(); }
  LockClient& inner() { return *inner_; }
  const WatchdogOptions& options() const { return options_; }

 private:
  Duration next_sleep(const Lease& lease);
  void cancel_registered(const std::string& resource);

  std::unique_ptr<LockClient> inner_;
  WatchdogOptions options_;
  std::map<std::string, std::shared_ptr<Lease>> by_resource_;  // one_watchdog_per_resource
};

}  // namespace redlock_sim
