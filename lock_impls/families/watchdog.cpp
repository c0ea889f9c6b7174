#include "lock_impls/families/watchdog.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/zoo/zoo.hpp"

namespace redlock_sim {

WatchdogClient::WatchdogClient(Port& port, std::unique_ptr<LockClient> inner,
                               WatchdogOptions options)
    : LockClient(port), inner_(std::move(inner)), options_(options) {}

Task<Grant> WatchdogClient::acquire(std::string resource) {
  Grant grant = co_await inner_->acquire(std::move(resource));
  if (grant.acquired && options_.hides_deadline) grant.lease->deadline.at = Instant::max();
  co_return grant;
}

Task<ReleaseResult> WatchdogClient::release(std::shared_ptr<Lease> lease) {
  if (options_.one_watchdog_per_resource) cancel_registered(lease->resource);
  co_return co_await inner_->release(lease);
}

void WatchdogClient::cancel_registered(const std::string& resource) {
  const auto it = by_resource_.find(resource);
  if (it == by_resource_.end()) return;
  it->second->watchdog_cancelled = true;
  by_resource_.erase(it);
}

Task<ExtendResult> WatchdogClient::extend(std::shared_ptr<Lease> lease) {
  ExtendResult result = co_await inner_->extend(lease);
  if (options_.hides_deadline) lease->deadline.at = Instant::max();
  co_return result;
}

Duration WatchdogClient::next_sleep(const Lease& lease) {
  if (options_.renew_before_deadline == Duration::zero() || !lease.deadline.bounded()) {
    return options_.period;
  }
  const Duration left = lease.deadline.at - now_on(lease.deadline.clock);
  const Duration sleep = left - options_.renew_before_deadline;
  return sleep < Duration::zero() ? Duration::zero() : sleep;
}

Task<void> WatchdogClient::run_watchdog(std::shared_ptr<Lease> lease) {
  if (options_.one_watchdog_per_resource) by_resource_[lease->resource] = lease;
  while (!lease->released && !lease->lost && !lease->watchdog_cancelled) {
    co_await port().sleep(next_sleep(*lease));
    if (lease->released || lease->watchdog_cancelled) co_return;
    const ExtendResult result = co_await extend(lease);
    if (lease->released) co_return;
    if (result.extended) {
      note("watchdog: renewed");
      lease->mark_renewed();
      continue;
    }
    const bool stop = result.lock_gone ? options_.stops_when_gone : options_.stops_on_error;
    note("watchdog: renewal failed (" + result.failure + ")" + (stop ? ", stopping" : ""));
    if (!stop) continue;
    if (options_.tells_holder) lease->mark_lost("renewal failed: " + result.failure);
    if (options_.unlocks_on_failure) co_await release(lease);
    co_return;
  }
}

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> watchdog_locks() {
  std::vector<LockEntry> list;
  for (const bool tells : {true, false}) {
    list.push_back(lock_entry(
        tells ? "watchdog" : "watchdog-silent", LockKind::family,
        tells ? "Redlock kept alive by a watchdog every ttl/3; a failed renewal tells the holder"
              : "Redlock kept alive by a watchdog every ttl/3; a failed renewal dies silently",
        "auto-extension family",
        plus(redlock_params(zoo::redlock_reference()), {period_param(), tells_param(tells)}),
        [tells](Port& port, const ParamValues& p) {
          RedlockOptions o = zoo::redlock_reference();
          o.node_count = p.node_count();
          apply_redlock(p, o);
          WatchdogOptions w{.period = o.ttl / 3, .tells_holder = tells};
          return watched(port, p, std::make_unique<RedlockClient>(port, o), w);
        }));
  }
  for (LockEntry& entry : list)
    entry.multi_node = true;  // every listed node is one of its masters
  return list;
}

}  // namespace redlock_sim
