// The registry: every family, library profile and zoo variant by name, with a one-line
// description, the parameter overrides it accepts, and a constructor.
//
// Overrides are string key/value pairs so a JSON scenario can pass them straight through
// (numbers and booleans as their JSON text: "ttl_ms": "3000" or 3000 rendered as text, "true").
// Every entry documents the keys it accepts; an unknown key or a malformed value is an error
// naming the key, never silently ignored. The keys and types (each entry accepts a subset):
//
//   nodes                 uint   number of Redis nodes the lock uses (port nodes 0..nodes-1)
//   ttl_ms                int    lock TTL / lease / auto-release time in ms (0: no expiry,
//                                where the library allows it)
//   clock                 enum   wall | monotonic: the clock elapsed time and deadlines use
//   fan_out               enum   parallel | sequential
//   wait                  enum   all | quorum: wait for every node, or return at a quorum
//   request_timeout_ms    int    per-request timeout (the library's or its driver's)
//   retry_count           int    retries after the first attempt; -1 retries for ever
//   retry_delay_ms_min    int    smallest delay between attempts
//   retry_jitter_ms       int    the delay adds uniform [0, jitter] ms from the port's randomness
//   drift_ppm             int    clock drift factor in parts per million (10000 = 0.01)
//   drift_constant_ms     int    constant added to the drift
//   extend_quorum         uint   nodes an extension needs (0: majority)
//   auto_extend           bool   run the library's watchdog / auto-extension
//   watchdog_period_ms    int    time between renewals
//   tells_holder          bool   a failed renewal sets Lease::lost
//   replicas              uint   replicas behind the master (WAIT-acknowledged locks)
//   acks_required         uint   replica acknowledgements needed (0: all replicas)
//   lease_ms              int    explicit lease time (no watchdog); absent: watchdog mode
//   wait_time_ms          int    how long acquire waits for a busy lock (-1: for ever)
//   token_source          enum   external_counter | redis_master | quorum_max (fenced)
//   token_node            uint   port node of the counter service / master for tokens
//   inner                 enum   redlock | single-instance: the lock a fenced lock wraps
//   fail_fast             bool   redsync WithFailFast
//   extend_only_if_locked bool   redlock-rb: extension may not re-create an absent key
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/lock.hpp"

namespace redlock_sim {

enum class LockKind : uint8_t { family, profile, zoo };
const char* lock_kind_name(LockKind kind);

using LockParams = std::map<std::string, std::string>;

struct LockOverride {
  std::string key;
  std::string type;  // uint, int, bool, or "a | b | c" for enums
  std::string meaning;
};

struct LockEntry {
  std::string name;
  LockKind kind = LockKind::family;
  std::string description;  // one line
  std::string models;       // profiles: the library version/commit; zoo: the correct twin
  std::vector<LockOverride> overrides;
  bool fencing_tokens = false;  // every grant carries a fencing token (fenced locks)
};

struct MadeLock {
  std::unique_ptr<LockClient> client;  // null on error
  std::string error;                   // "ttl_ms: expected an integer, got 'x'"
};

// All entries, families first, then profiles, then the zoo, each group in name order.
const std::vector<LockEntry>& lock_entries();
const LockEntry* find_lock_entry(std::string_view name);
MadeLock make_lock(std::string_view name, Port& port, const LockParams& params = {});

}  // namespace redlock_sim
