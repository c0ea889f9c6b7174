// What a lock file uses to declare itself (lock_impls/registry.hpp): the parameter rows each
// family shares with the profiles and zoo variants built on it, and how the values a scenario
// gives replace the family's options. A lock's own rows sit in its own file, beside its
// constructor; nothing else declares a parameter.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lock_impls/families/hash_lock.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/single_instance.hpp"
#include "lock_impls/families/watchdog.hpp"
#include "lock_impls/registry.hpp"

namespace redlock_sim {

using LockMaker = std::function<std::unique_ptr<LockClient>(Port&, const ParamValues&)>;

LockEntry lock_entry(std::string name, LockKind kind, std::string description, std::string models,
                     ParamTable params, LockMaker make);
ParamTable plus(ParamTable rows, ParamTable more);

// Rows, with the given options' values as their defaults.
ParamTable redlock_params(const RedlockOptions& d);
ParamTable single_params(const SingleInstanceOptions& d);
ParamSpec replicas_param(const HashLockOptions& d);
ParamSpec acks_param(const HashLockOptions& d);
ParamSpec lease_param(std::string help = "explicit lease time (-1: none, watchdog mode)");
ParamSpec wait_time_param(const HashLockOptions& d);
ParamSpec hash_timeout_param(const HashLockOptions& d);
ParamSpec period_param();
ParamSpec tells_param(bool fallback);
ParamSpec auto_extend_param(bool fallback);

// Each value the scenario gives replaces the option's; rows the lock does not declare are
// never given.
void apply_redlock(const ParamValues& p, RedlockOptions& o);
void apply_single(const ParamValues& p, SingleInstanceOptions& o);
void apply_hash(const ParamValues& p, HashLockOptions& o);
void apply_watchdog(const ParamValues& p, WatchdogOptions& o);

// `o` with the given values (its node count from `nodes`), built.
std::unique_ptr<LockClient> redlock_client(Port& port, const ParamValues& p, RedlockOptions o);
std::unique_ptr<LockClient> single_client(Port& port, const ParamValues& p,
                                          SingleInstanceOptions o);
std::unique_ptr<LockClient> watched(Port& port, const ParamValues& p,
                                    std::unique_ptr<LockClient> inner, WatchdogOptions w);

// A profile that is the Redlock family with a library's options and nothing else.
LockEntry redlock_profile(std::string name, std::string description, std::string models,
                          RedlockOptions (*options)(uint32_t, Duration), Duration default_ttl);

}  // namespace redlock_sim
