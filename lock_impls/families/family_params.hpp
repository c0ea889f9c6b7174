// What a lock file uses to declare itself (lock_impls/registry.hpp): the parameter rows each
// family shares with the profiles and zoo variants built on it, and how the values a scenario
// gives replace the family's options. A lock's own rows sit in its own file, beside its
// constructor; nothing else declares a parameter.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

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
// The rows every SET-based lock shares (TTL, clock, request timeout, retries, drift), from any
// options with those fields.
template <typename Options>
ParamTable timing_params(const Options& d) {
  return {
      // A TTL of 0 means "no TTL" and is accepted only by the locks built without one
      // (zoo-no-ttl, redis-py-lock, python-redis-lock); for the others a SET with PX 0 is
      // Redis's error.
      ms_param("ttl_ms", d.ttl, "lock TTL in ms", d.ttl == Duration::zero() ? 0 : 1),
      choice_param("clock", {"wall", "monotonic"}, d.clock == ClockKind::wall ? 0 : 1,
                   "clock for elapsed time and deadline"),
      ms_param("request_timeout_ms", d.request_timeout, "per-request timeout"),
      integer_param("retry_count", "retries", d.retry_count, -1, 1'000'000,
                    "retries after the first (-1: forever)"),
      integer_param("retry_delay_ms_min", "ms", d.retry_delay.min_ms, 0, param_ms_max,
                    "smallest delay between attempts"),
      integer_param("retry_jitter_ms", "ms", d.retry_delay.jitter_ms, 0, param_ms_max,
                    "random extra delay, uniform [0, jitter]"),
      integer_param("drift_ppm", "ppm", d.drift.ppm, 0, 1'000'000, "drift factor"),
      integer_param("drift_constant_ms", "ms", d.drift.constant_ms, 0, param_ms_max,
                    "constant added to the drift"),
  };
}
// The values a scenario gives for those rows, into any options with the same fields: each value
// given replaces the option's (the profiles' own options take their library's defaults).
template <typename Options>
void apply_timing(const ParamValues& p, Options& o) {
  o.ttl = p.ms_or("ttl_ms", o.ttl);
  if (p.given("clock")) o.clock = p.choice("clock") == 0 ? ClockKind::wall : ClockKind::monotonic;
  o.request_timeout = p.ms_or("request_timeout_ms", o.request_timeout);
  if (p.given("retry_count")) o.retry_count = static_cast<int32_t>(p.integer("retry_count"));
  if (p.given("retry_delay_ms_min")) o.retry_delay.min_ms = p.integer("retry_delay_ms_min");
  if (p.given("retry_jitter_ms")) o.retry_delay.jitter_ms = p.integer("retry_jitter_ms");
  if (p.given("drift_ppm")) o.drift.ppm = p.integer("drift_ppm");
  if (p.given("drift_constant_ms")) o.drift.constant_ms = p.integer("drift_constant_ms");
}
ParamTable redlock_params(const RedlockOptions& d);
ParamTable single_params(const SingleInstanceOptions& d);
ParamSpec replicas_param(const HashLockOptions& d);
ParamSpec acks_param(const HashLockOptions& d);
ParamSpec lease_param(std::string help = "explicit lease time (-1 or 0: none, watchdog mode)");
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

// How a lock file registers a lock: its own data (LockText, its options, its own rows and the
// few lines that read them) in one of the shapes below; the shape builds the table and the
// constructor the registry keeps (LockEntry). A family or a family-shaped profile states its
// LockText at its top, above the options it describes; a profile written as its library's class
// gives it in its registration (`LibraryProfile::text`), so its file opens with that class.
struct LockText {
  std::string_view name;
  std::string_view description;  // one line
  std::string_view models;       // the library version/commit
};
// An entry of `kind` with that text, table and constructor.
LockEntry lock_entry(const LockText& text, LockKind kind, ParamTable params, LockMaker make);

// A profile that is the Redlock family with a library's options, on every listed node: the
// family's rows (defaults from five nodes), then `more`; `adjust` reads `more`'s values into
// the options before the family's values are applied.
struct RedlockProfile {
  LockText text;
  RedlockOptions (*options)(uint32_t node_count) = nullptr;  // the library's defaults
  ParamTable more;
  void (*adjust)(const ParamValues&, RedlockOptions&) = nullptr;
};
LockEntry redlock_profile(RedlockProfile profile);

// A profile that is the single-instance family with a library's options: the family's rows,
// then `more`; after the values, `adjust` derives what depends on them and, with `auto_extend`
// among `more` and set, `watchdog` says what extends the lock.
struct SingleProfile {
  LockText text;
  SingleInstanceOptions (*options)() = nullptr;  // the library's defaults
  ParamTable more;
  void (*adjust)(SingleInstanceOptions&) = nullptr;
  WatchdogOptions (*watchdog)(const SingleInstanceOptions&) = nullptr;
};
LockEntry single_profile(SingleProfile profile);

// `inner`, or, when `watchdog` is given and the scenario's `auto_extend` is on, `inner` under
// the watchdog `watchdog(o)` describes.
template <typename Options>
std::unique_ptr<LockClient> auto_extended(Port& port, const ParamValues& p,
                                          std::unique_ptr<LockClient> inner,
                                          WatchdogOptions (*watchdog)(const Options&),
                                          const Options& o) {
  if (watchdog == nullptr || !p.flag("auto_extend")) return inner;
  return watched(port, p, std::move(inner), watchdog(o));
}

}  // namespace redlock_sim
