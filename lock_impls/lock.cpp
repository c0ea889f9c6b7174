#include "lock_impls/lock.hpp"

namespace redlock_sim {

// Families without auto-extension have nothing to run.
Task<void> LockClient::run_watchdog(std::shared_ptr<Lease> /*lease*/) {
  co_return;
}

}  // namespace redlock_sim
