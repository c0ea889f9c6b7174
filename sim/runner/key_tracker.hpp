// What each node *held*: the lifetime of every key on every node in true time, rebuilt from the
// writes the node propagates (SET ... PXAT, PEXPIREAT, PERSIST, DEL) and from crashes. A key's
// expiry is an absolute time on the node's own wall clock, so its true-time end is computed at
// the end of the run from that clock's full history (a later clock jump moves it).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lock_impls/port/reply.hpp"
#include "sim/kernel/simulator.hpp"
#include "sim/replication/cluster_node.hpp"

namespace redlock_sim {

struct KeyLifetime {
  ProcessId node = 0;
  std::string key;
  std::string value;       // the lock token, for strings
  Instant start;           // true time the key (with this value) appeared
  Instant end;             // true time it was deleted, overwritten, lost or logically expired
  std::string end_reason;  // deleted | overwritten | expired | crashed | run_end
  std::optional<int64_t> expire_at_ms;  // absolute, on the node's wall clock, at the end
  // For an expired key: the first true-time millisecond at which the node reads it as missing
  // (its wall clock past `when`, Redis's `now > when`): the catalogue's "expires from T". `end`
  // is the exact instant, which a drifting clock puts inside the millisecond before.
  std::optional<int64_t> expires_from_ms;
};

// In (node, key, start) order, ties as std::sort over those three leaves them (the order
// result JSON has always had).
std::vector<KeyLifetime> sorted_by_node_key_start(std::vector<KeyLifetime> lifetimes);

class KeyTracker {
 public:
  // Feeds what a node propagated at true time `now` (AOF/replication form of its writes).
  void on_effects(ProcessId node, const std::vector<Command>& commands, Instant now);
  // The same from a node's effects as it propagates them (replicas-only ones skipped), the
  // compact lock writes read without writing them out as argvs.
  void on_effects(ProcessId node, const std::vector<Propagated>& effects, Instant now);
  void on_crash(ProcessId node, Instant now);
  // Keys a node has after a restart that reloaded them.
  void on_loaded(ProcessId node, const std::string& key, const std::string& value,
                 std::optional<int64_t> expire_at_ms, Instant now);
  std::vector<KeyLifetime> lifetimes(const Simulator& simulator, Instant run_end) const;
  // Lifetimes kept so far, live and closed (for the run's memory count).
  std::size_t kept() const { return live_count_ + closed_.size(); }

 private:
  struct Live {
    std::string value;
    Instant start;
    std::optional<int64_t> expire_at_ms;
  };
  // A node's live keys, looked up by the command's key itself (no pair built for a search).
  using Keys = std::map<std::string, Live, std::less<>>;
  // Ends the piece at `it` (if any) for `reason` and starts one with `value` in its place.
  struct Words;
  void apply(ProcessId node, Keys& keys, const Words& argv, Instant now);
  void replace(ProcessId node, Keys& keys, Keys::iterator it, std::string_view key,
               std::string value, Instant now, std::optional<int64_t> expire_at_ms,
               const char* reason);
  void close(ProcessId node, Keys& keys, std::string_view key, Instant now, const char* reason);

  std::map<ProcessId, Keys> live_;  // in (node, key) order, as lifetimes() lists them
  std::size_t live_count_ = 0;
  struct Closed {
    ProcessId node;
    std::string key;
    Live live;
    Instant end;
    std::string reason;
  };
  std::vector<Closed> closed_;
};

}  // namespace redlock_sim
