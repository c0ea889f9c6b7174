// The built-in locks: one function per lock file, each returning the registry entries (name,
// description, what it models, parameter table, constructor) that file declares. A lock is
// declared once, in its own file; this list only names the files, because a static library
// drops a self-registering object that nothing references (docs/decisions.md, issue 15).
// A program of one's own registers with register_lock (lock_impls/registry.hpp) instead.
#pragma once

#include <vector>

#include "lock_impls/registry.hpp"

namespace redlock_sim {

std::vector<LockEntry> single_instance_locks();    // families/single_instance.cpp
std::vector<LockEntry> redlock_locks();            // families/redlock.cpp
std::vector<LockEntry> watchdog_locks();           // families/watchdog.cpp
std::vector<LockEntry> hash_lock_locks();          // families/hash_lock.cpp
std::vector<LockEntry> fenced_locks();             // families/fenced.cpp
std::vector<LockEntry> redsync_locks();            // profiles/redsync.cpp
std::vector<LockEntry> node_redlock_locks();       // profiles/node_redlock.cpp
std::vector<LockEntry> redlock_py_locks();         // profiles/redlock_py.cpp
std::vector<LockEntry> redlock_rb_locks();         // profiles/redlock_rb.cpp
std::vector<LockEntry> pottery_locks();            // profiles/pottery.cpp
std::vector<LockEntry> redis_plus_plus_locks();    // profiles/redis_plus_plus.cpp
std::vector<LockEntry> aioredlock_locks();         // profiles/aioredlock.cpp
std::vector<LockEntry> redisson_locks();           // profiles/redisson.cpp
std::vector<LockEntry> redis_py_locks();           // profiles/redis_py.cpp
std::vector<LockEntry> python_redis_lock_locks();  // profiles/python_redis_lock.cpp
std::vector<LockEntry> zoo_locks();                // zoo/zoo.cpp

}  // namespace redlock_sim
