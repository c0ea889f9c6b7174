// The registry: every family, library profile and zoo variant by name, with a one-line
// description, what it models, its typed parameter table (lock_impls/params.hpp: name, type,
// unit, default, range, help) and a constructor that reads the checked, typed values.
//
// An embedding program adds its own lock with `register_lock` (below), written against the
// port like ours; `run`, `explore`, `matrix` and the reports then find it by name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/lock.hpp"
#include "lock_impls/params.hpp"

namespace redlock_sim {

enum class LockKind : uint8_t { family, profile, zoo };
const char* lock_kind_name(LockKind kind);

struct LockEntry {
  std::string name;
  LockKind kind = LockKind::family;
  std::string description;      // one line
  std::string models;           // profiles: the library version/commit; zoo: the correct twin
  ParamTable params;            // every parameter the lock accepts, declared once
  bool fencing_tokens = false;  // every grant carries a fencing token (fenced locks)
  // The lock uses every node its client lists (Redlock and its kin); false: the first only. The
  // matrix gives a multi-node lock five masters.
  bool multi_node = false;
  // Builds the lock from values already checked against `params`.
  std::function<std::unique_ptr<LockClient>(Port&, const ParamValues&)> make;
};

struct MadeLock {
  std::unique_ptr<LockClient> client;  // null on error
  std::string error;                   // "ttl_ms: expected an integer, got '5s'"
};

// The public entry point for a lock of one's own: adds `entry` to the registry, beside the
// built-in families, profiles and zoo. Call it at start-up, before anything looks locks up
// (it invalidates the pointers find_lock_entry returned). Returns false, and registers nothing,
// when the name is taken, the entry has no constructor, or a default breaks its own table.
bool register_lock(LockEntry entry);

// All entries, families first, then profiles, then the zoo, each group in name order.
const std::vector<LockEntry>& lock_entries();
const LockEntry* find_lock_entry(std::string_view name);
// The first problem with `params` for lock `name` (unknown lock, unknown parameter, wrong type,
// out of range), or nothing: what the scenario parser asks before anything is built.
std::optional<std::string> check_lock_params(std::string_view name, const LockParams& params);
// `node_count`: the length of the client's node list (port nodes 0..node_count-1).
MadeLock make_lock(std::string_view name, Port& port, uint32_t node_count,
                   const LockParams& params = {});

}  // namespace redlock_sim
