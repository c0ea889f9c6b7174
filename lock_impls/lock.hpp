// The lock API every family, profile and zoo variant exposes, and what a checker reads from it.
//
// A `LockClient` is one configured client of one library (or family) bound to one port. It is
// used from coroutines:
//
//   Grant grant = co_await client.acquire("orders");
//   if (grant.acquired) {
//     if (client.has_watchdog()) runner.spawn(client.run_watchdog(grant.lease));
//     ... critical section, checking grant.lease->deadline and grant.lease->lost ...
//     ReleaseResult released = co_await client.release(grant.lease);
//   }
//
// What the checker gets for every acquisition (docs/catalogue.md, "Verdicts"):
// - `Grant::acquired`: whether the library told its caller "you hold it";
// - `Lease::value`: the random lock value (ownership token) written to Redis;
// - `Lease::fencing_token`: the monotonically increasing token, for fenced locks only;
// - `Lease::deadline`: the validity deadline as (ClockKind, local Instant) on the clock the
//   algorithm reads. The simulator maps it to true time through the holder's own clock: the hold
//   interval ends when that clock reaches the deadline, or at release. `Instant::max()` means
//   the library computes no deadline (a TTL-only or watchdog lock): the holder believes it holds
//   the lock until it releases it or is told it lost it.
// - extend returns the new deadline, and moves `Lease::deadline`;
// - watchdogs (auto-extension) run as a separate root coroutine the runner spawns; the ones that
//   tell their holder set `Lease::lost` (the holder polls it, as node-redlock's `signal.aborted`
//   or redis-plus-plus's callback); the ones that do not tell leave it false.
//
// The lock code does no I/O of its own besides the port. For the trace it may describe each
// attempt in short notes ("attempt 2: 2/5 nodes, validity -13 ms") through an optional sink.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lock_impls/port/port.hpp"

namespace redlock_sim {

// A point on one of the holder's clocks.
struct Deadline {
  ClockKind clock = ClockKind::monotonic;
  Instant at = Instant::max();  // max: no deadline computed; held until release or loss

  bool bounded() const { return at != Instant::max(); }
  friend bool operator==(const Deadline&, const Deadline&) = default;
};

// The holder's handle on one grant, shared with the watchdog (if any) that renews it.
struct Lease {
  std::string resource;  // the lock key
  std::string value;     // the random token written to Redis (or the hash field, for RLock)
  std::optional<int64_t> fencing_token;
  Deadline deadline;
  bool released = false;  // set by release(); a watchdog stops at its next tick
  bool lost = false;      // set by a watchdog that tells its holder the lock is gone
  // The library stopped renewing this grant without telling anyone (aioredlock's watchdog map
  // keyed by resource cancels another task's renewal).
  bool watchdog_cancelled = false;
  std::string lost_reason;
  uint32_t renewals = 0;      // successful extensions, by the holder or a watchdog
  uint32_t extensions = 0;    // extension attempts made through extend()
  uint32_t hold_count = 1;    // reentrant locks: how many times this owner holds it
  std::vector<NodeId> nodes;  // multi-master locks that renew per node: where it was taken
  // Called when a watchdog that tells its holder sets `lost`, so a runner can stamp the true
  // time the holder learned it; optional.
  std::function<void(const Lease&)> on_lost;
  // Called when a watchdog renewed the lease (its `deadline` is the new one), so a runner can
  // record what the holder now believes; optional.
  std::function<void(const Lease&)> on_renewed;

  void mark_lost(std::string reason) {
    lost = true;
    lost_reason = std::move(reason);
    if (on_lost) on_lost(*this);
  }
  void mark_renewed() {
    if (on_renewed) on_renewed(*this);
  }
};

struct Grant {
  bool acquired = false;
  std::shared_ptr<Lease> lease;  // set when acquired
  uint32_t attempts = 0;         // acquisition attempts made (1 = first try)
  uint32_t nodes_locked = 0;     // nodes that accepted the final attempt
  std::string failure;           // why not acquired: "taken", "validity", "error", ...
};

// An acquisition that succeeded: `value` on `resource`, believed until `deadline`.
inline void grant_lease(Grant& grant, std::string resource, std::string value, Deadline deadline) {
  grant.acquired = true;
  grant.lease = std::make_shared<Lease>();
  grant.lease->resource = std::move(resource);
  grant.lease->value = std::move(value);
  grant.lease->deadline = deadline;
}

struct ReleaseResult {
  bool released = false;  // the library reported success to its caller
  uint32_t nodes = 0;     // nodes where the key was ours and is now gone
  std::string failure;    // why released is false
};

// A release that counts: released when `enough` (a quorum of the nodes said so), otherwise a
// "quorum" failure; `nodes` is how many released.
inline ReleaseResult release_with_quorum(uint32_t nodes, bool enough) {
  ReleaseResult result;
  result.nodes = nodes;
  result.released = enough;
  if (!enough) result.failure = "quorum";
  return result;
}

struct ExtendResult {
  bool extended = false;   // the library reported success to its caller
  Deadline deadline;       // the new deadline when extended
  uint32_t nodes = 0;      // nodes that accepted the extension
  bool lock_gone = false;  // the servers said the lock is not ours (as opposed to errors/timeouts)
  std::string failure;
};

// Short text notes for the trace; never performs I/O itself.
using NoteSink = std::function<void(std::string)>;

class LockClient {
 public:
  explicit LockClient(Port& port) : port_(port) {}
  virtual ~LockClient() = default;
  LockClient(const LockClient&) = delete;
  LockClient& operator=(const LockClient&) = delete;

  virtual Task<Grant> acquire(std::string resource) = 0;
  virtual Task<ReleaseResult> release(std::shared_ptr<Lease> lease) = 0;
  // Extends to the library's own TTL (or lease time) from now.
  virtual Task<ExtendResult> extend(std::shared_ptr<Lease> lease) = 0;

  // Auto-extension: the runner spawns run_watchdog(lease) beside the critical section when
  // has_watchdog() is true. It ends after the lease is released or the watchdog gives up.
  virtual bool has_watchdog() const { return false; }
  virtual Task<void> run_watchdog(std::shared_ptr<Lease> lease);

  // The clock the algorithm reads for validity; deadlines are on it.
  virtual ClockKind clock() const = 0;

  void set_note_sink(NoteSink sink) { notes_ = std::move(sink); }
  Port& port() { return port_; }

 protected:
  void note(std::string text) const {
    if (notes_) notes_(std::move(text));
  }
  // Whether notes go anywhere: a note's text need not be built when they do not.
  bool noting() const { return static_cast<bool>(notes_); }
  Instant now_on(ClockKind kind) {
    return kind == ClockKind::wall ? port_.wall_now() : port_.monotonic_now();
  }

 private:
  Port& port_;
  NoteSink notes_;
};

}  // namespace redlock_sim
