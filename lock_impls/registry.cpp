#include "lock_impls/registry.hpp"

#include <algorithm>

#include "lock_impls/builtin_locks.hpp"

namespace redlock_sim {

namespace {

bool entry_order(const LockEntry& a, const LockEntry& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.name < b.name;
}

std::vector<LockEntry>& registered() {
  static std::vector<LockEntry> all = [] {
    std::vector<LockEntry> list;
    for (auto* locks_of_file :
         {single_instance_locks, redlock_locks, watchdog_locks, hash_lock_locks, fenced_locks,
          redsync_locks, node_redlock_locks, redlock_py_locks, redlock_rb_locks, pottery_locks,
          redis_plus_plus_locks, aioredlock_locks, redisson_locks, redis_py_locks,
          python_redis_lock_locks, zoo_locks}) {
      for (LockEntry& e : locks_of_file())
        list.push_back(std::move(e));
    }
    std::stable_sort(list.begin(), list.end(), entry_order);
    return list;
  }();
  return all;
}

}  // namespace

const char* lock_kind_name(LockKind kind) {
  switch (kind) {
    case LockKind::family:
      return "family";
    case LockKind::profile:
      return "profile";
    case LockKind::zoo:
      return "zoo";
  }
  return "?";
}

bool register_lock(LockEntry entry) {
  if (!entry.make || entry.name.empty() || find_lock_entry(entry.name) != nullptr) return false;
  for (const ParamSpec& spec : entry.params) {
    if (!spec.default_value) continue;
    if (check_params(entry.params, {{spec.name, *spec.default_value}})) return false;
  }
  std::vector<LockEntry>& all = registered();
  all.insert(std::upper_bound(all.begin(), all.end(), entry, entry_order), std::move(entry));
  return true;
}

const std::vector<LockEntry>& lock_entries() {
  return registered();
}

const LockEntry* find_lock_entry(std::string_view name) {
  for (const LockEntry& entry : lock_entries()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::optional<std::string> check_lock_params(std::string_view name, const LockParams& params) {
  const LockEntry* entry = find_lock_entry(name);
  if (entry == nullptr) return "unknown lock '" + std::string(name) + "'";
  return check_params(entry->params, params);
}

MadeLock make_lock(std::string_view name, Port& port, uint32_t node_count,
                   const LockParams& params) {
  if (auto error = check_lock_params(name, params)) {
    return MadeLock{.client = nullptr, .error = *error};
  }
  const LockEntry& entry = *find_lock_entry(name);
  return MadeLock{.client = entry.make(port, ParamValues(entry.params, params, node_count)),
                  .error = {}};
}

}  // namespace redlock_sim
