#include "lock_impls/registry.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "lock_impls/families/fenced.hpp"
#include "lock_impls/families/hash_lock.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/single_instance.hpp"
#include "lock_impls/families/watchdog.hpp"
#include "lock_impls/profiles/aioredlock.hpp"
#include "lock_impls/profiles/node_redlock.hpp"
#include "lock_impls/profiles/pottery.hpp"
#include "lock_impls/profiles/python_redis_lock.hpp"
#include "lock_impls/profiles/redis_plus_plus.hpp"
#include "lock_impls/profiles/redis_py.hpp"
#include "lock_impls/profiles/redisson.hpp"
#include "lock_impls/profiles/redlock_py.hpp"
#include "lock_impls/profiles/redlock_rb.hpp"
#include "lock_impls/profiles/redsync.hpp"
#include "lock_impls/zoo/zoo.hpp"

namespace redlock_sim {

namespace {

constexpr int64_t param_ms_max = 1'000'000'000'000;

// Reads overrides by key, remembering the first error; unknown keys are errors.
class ParamReader {
 public:
  ParamReader(const LockParams& params, const std::vector<LockOverride>& allowed)
      : params_(params) {
    for (const auto& entry : params) {  // (clang 14 cannot capture a structured binding)
      const std::string& key = entry.first;
      const bool known = std::any_of(allowed.begin(), allowed.end(),
                                     [&](const LockOverride& o) { return o.key == key; });
      if (!known) fail(key + ": not an override of this lock");
    }
  }

  // Every integer parameter has a range: times are bounded like the scenario format's
  // (time_ms_max, about 31 years), so that a local clock reading plus any of them stays far
  // from int64 nanoseconds' limit.
  int64_t integer(const std::string& key, int64_t fallback, int64_t low, int64_t high) {
    const auto it = params_.find(key);
    if (it == params_.end()) return fallback;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0') {
      fail(key + ": expected an integer, got '" + it->second + "'");
      return fallback;
    }
    if (errno == ERANGE || value < low || value > high) {
      fail(key + ": expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
           "], got " + it->second);
      return fallback;
    }
    return value;
  }
  uint32_t count(const std::string& key, uint32_t fallback) {
    return static_cast<uint32_t>(integer(key, fallback, 0, 1'000'000));
  }
  Duration ms(const std::string& key, Duration fallback, int64_t low = 0) {
    return Duration::from_ms(integer(key, fallback.ms_floor(), low, param_ms_max));
  }
  bool flag(const std::string& key, bool fallback) {
    const auto it = params_.find(key);
    if (it == params_.end()) return fallback;
    if (it->second == "true" || it->second == "1") return true;
    if (it->second == "false" || it->second == "0") return false;
    fail(key + ": expected true or false, got '" + it->second + "'");
    return fallback;
  }
  // Returns the index of the chosen value in `choices`.
  std::size_t choice(const std::string& key, std::size_t fallback,
                     const std::vector<std::string>& choices) {
    const auto it = params_.find(key);
    if (it == params_.end()) return fallback;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      if (choices[i] == it->second) return i;
    }
    std::string expected;
    for (const std::string& c : choices)
      expected += (expected.empty() ? "" : " | ") + c;
    fail(key + ": expected " + expected + ", got '" + it->second + "'");
    return fallback;
  }
  const std::string& error() const { return error_; }

 private:
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  const LockParams& params_;
  std::string error_;
};

using Maker = std::function<std::unique_ptr<LockClient>(Port&, ParamReader&)>;

struct Builder {
  LockEntry entry;
  Maker make;
};

const LockOverride o_nodes{"nodes", "uint", "number of Redis nodes"};
const LockOverride o_ttl{"ttl_ms", "int", "lock TTL in ms"};
const LockOverride o_clock{"clock", "wall | monotonic", "clock for elapsed time and deadline"};
const LockOverride o_fan_out{"fan_out", "parallel | sequential", "how nodes are contacted"};
const LockOverride o_wait{"wait", "all | quorum", "wait for every node or return at quorum"};
const LockOverride o_timeout{"request_timeout_ms", "int", "per-request timeout"};
const LockOverride o_retry_count{"retry_count", "int", "retries after the first (-1: forever)"};
const LockOverride o_delay{"retry_delay_ms_min", "int", "smallest delay between attempts"};
const LockOverride o_jitter{"retry_jitter_ms", "int", "random extra delay, uniform [0, jitter]"};
const LockOverride o_drift_ppm{"drift_ppm", "int", "drift factor, parts per million"};
const LockOverride o_drift_ms{"drift_constant_ms", "int", "constant added to the drift"};
const LockOverride o_extend_quorum{"extend_quorum", "uint", "nodes an extension needs (0: Q)"};
const LockOverride o_auto_extend{"auto_extend", "bool", "run the watchdog / auto-extension"};
const LockOverride o_period{"watchdog_period_ms", "int", "time between renewals"};
const LockOverride o_tells{"tells_holder", "bool", "a failed renewal sets Lease::lost"};
const LockOverride o_replicas{"replicas", "uint", "replicas behind the master"};
const LockOverride o_acks{"acks_required", "uint", "replica acks needed (0: all)"};
const LockOverride o_wait_numreplicas{
    "wait_numreplicas", "uint", "single-instance: WAIT for this many replica acks after the SET"};
const LockOverride o_wait_timeout{"wait_timeout_ms", "int",
                                  "single-instance: WAIT's timeout in ms (0: WAIT blocks)"};
const LockOverride o_replica_wait{
    "replica_wait_ms", "int", "WAIT's timeout in ms (0: WAIT blocks; the request still times out)"};
const LockOverride o_lease{"lease_ms", "int", "explicit lease time (no watchdog)"};
const LockOverride o_fenced_lease{
    "lease_ms", "int",
    "lease time, honoured only with wait_time_ms (lockAndGetToken ignores it: watchdog)"};
const LockOverride o_wait_time{"wait_time_ms", "int", "how long to wait for a busy lock"};
const LockOverride o_source{"token_source", "external_counter | redis_master | quorum_max",
                            "where fencing tokens come from"};
const LockOverride o_token_node{"token_node", "uint", "port node of the token source"};
const LockOverride o_inner{"inner", "redlock | single-instance", "the lock being fenced"};

std::vector<LockOverride> redlock_keys() {
  return {o_nodes,       o_ttl,   o_clock,  o_fan_out,   o_wait,     o_timeout,
          o_retry_count, o_delay, o_jitter, o_drift_ppm, o_drift_ms, o_extend_quorum};
}
std::vector<LockOverride> single_keys() {
  return {o_ttl, o_clock, o_timeout, o_retry_count, o_delay, o_jitter, o_drift_ppm, o_drift_ms};
}
std::vector<LockOverride> plus(std::vector<LockOverride> keys, std::vector<LockOverride> more) {
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

// The overrides Redlock and single-instance locks share (their options use the same names).
template <typename Options>
void apply_common(ParamReader& p, Options& o) {
  // A TTL of 0 means "no TTL" and is accepted only by the locks built without one (zoo-no-ttl,
  // redis-py-lock, python-redis-lock); for the others a SET with PX 0 is Redis's error.
  o.ttl = p.ms("ttl_ms", o.ttl, o.ttl == Duration::zero() ? 0 : 1);
  o.clock = p.choice("clock", o.clock == ClockKind::wall ? 0 : 1, {"wall", "monotonic"}) == 0
                ? ClockKind::wall
                : ClockKind::monotonic;
  o.request_timeout = p.ms("request_timeout_ms", o.request_timeout);
  o.retry_count = static_cast<int32_t>(p.integer("retry_count", o.retry_count, -1, 1'000'000));
  o.retry_delay.min_ms = p.integer("retry_delay_ms_min", o.retry_delay.min_ms, 0, param_ms_max);
  o.retry_delay.jitter_ms = p.integer("retry_jitter_ms", o.retry_delay.jitter_ms, 0, param_ms_max);
  o.drift.ppm = p.integer("drift_ppm", o.drift.ppm, 0, 1'000'000);
  o.drift.constant_ms = p.integer("drift_constant_ms", o.drift.constant_ms, 0, param_ms_max);
}

void apply_redlock(ParamReader& p, RedlockOptions& o) {
  apply_common(p, o);
  o.fan_out =
      p.choice("fan_out", o.fan_out == FanOut::parallel ? 0 : 1, {"parallel", "sequential"}) == 0
          ? FanOut::parallel
          : FanOut::sequential;
  o.wait = p.choice("wait", o.wait == FanOutMode::wait_for_all ? 0 : 1, {"all", "quorum"}) == 0
               ? FanOutMode::wait_for_all
               : FanOutMode::return_at_quorum;
  o.extend_quorum = p.count("extend_quorum", o.extend_quorum);
}

// The Redis docs apply no drift to one instance; the catalogue's convention does (S15, S22), so
// single-instance locks take the drift overrides too.
void apply_single(ParamReader& p, SingleInstanceOptions& o) {
  apply_common(p, o);
}

void apply_hash(ParamReader& p, HashLockOptions& o) {
  o.replicas = p.count("replicas", o.replicas);
  o.acks_required = p.count("acks_required", o.acks_required);
  o.replica_wait = p.ms("replica_wait_ms", o.replica_wait);
  const int64_t lease_ms = p.integer("lease_ms", -1, -1, param_ms_max);
  if (lease_ms >= 0) {
    o.lease = Duration::from_ms(lease_ms);
    o.lease_given = true;
  }
  o.wait_time = p.ms("wait_time_ms", o.wait_time, -1);
  o.request_timeout = p.ms("request_timeout_ms", o.request_timeout);
}

void apply_watchdog(ParamReader& p, WatchdogOptions& o) {
  o.period = p.ms("watchdog_period_ms", o.period, 1);
  o.tells_holder = p.flag("tells_holder", o.tells_holder);
}

std::unique_ptr<LockClient> redlock_client(Port& port, ParamReader& p, RedlockOptions o) {
  o.node_count = p.count("nodes", o.node_count);
  apply_redlock(p, o);
  return std::make_unique<RedlockClient>(port, o);
}

std::unique_ptr<LockClient> single_client(Port& port, ParamReader& p, SingleInstanceOptions o) {
  apply_single(p, o);
  return std::make_unique<SingleInstanceClient>(port, o);
}

std::unique_ptr<LockClient> watched(Port& port, ParamReader& p, std::unique_ptr<LockClient> inner,
                                    WatchdogOptions w) {
  apply_watchdog(p, w);
  return std::make_unique<WatchdogClient>(port, std::move(inner), w);
}

std::vector<Builder> family_builders();
std::vector<Builder> profile_builders();
std::vector<Builder> zoo_builders();

const std::vector<Builder>& builders() {
  static const std::vector<Builder> all = [] {
    std::vector<Builder> list;
    for (auto group : {family_builders(), profile_builders(), zoo_builders()}) {
      std::sort(group.begin(), group.end(),
                [](const Builder& a, const Builder& b) { return a.entry.name < b.entry.name; });
      for (Builder& b : group)
        list.push_back(std::move(b));
    }
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

const std::vector<LockEntry>& lock_entries() {
  static const std::vector<LockEntry> entries = [] {
    std::vector<LockEntry> list;
    for (const Builder& b : builders())
      list.push_back(b.entry);
    return list;
  }();
  return entries;
}

const LockEntry* find_lock_entry(std::string_view name) {
  for (const LockEntry& entry : lock_entries()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

MadeLock make_lock(std::string_view name, Port& port, const LockParams& params) {
  for (const Builder& b : builders()) {
    if (b.entry.name != name) continue;
    ParamReader reader(params, b.entry.overrides);
    MadeLock made;
    if (!reader.error().empty()) {
      made.error = reader.error();
      return made;
    }
    made.client = b.make(port, reader);
    if (!reader.error().empty()) {
      made.client.reset();
      made.error = reader.error();
    }
    return made;
  }
  return MadeLock{.client = nullptr, .error = "unknown lock '" + std::string(name) + "'"};
}

namespace {

std::vector<Builder> family_builders() {
  std::vector<Builder> list;
  list.push_back(
      {{"single-instance", LockKind::family,
        "SET NX PX on one node, compare-and-delete release, compare-and-PEXPIRE extend",
        "Redis docs, single instance", plus(single_keys(), {o_wait_numreplicas, o_wait_timeout})},
       [](Port& port, ParamReader& p) {
         SingleInstanceOptions o = zoo::single_instance_reference();
         o.wait_numreplicas = p.count("wait_numreplicas", o.wait_numreplicas);
         o.wait_timeout = p.ms("wait_timeout_ms", o.wait_timeout);
         return single_client(port, p, o);
       }});
  list.push_back({{"redlock", LockKind::family,
                   "Redlock per the Redis docs: N masters, majority, validity = ttl - elapsed - "
                   "drift, release-all on failure, jittered retries",
                   "Redis docs; redis_lock_semantics.md section 3", redlock_keys()},
                  [](Port& port, ParamReader& p) {
                    return redlock_client(port, p, zoo::redlock_reference());
                  }});
  for (const bool tells : {true, false}) {
    list.push_back(
        {{tells ? "watchdog" : "watchdog-silent", LockKind::family,
          tells ? "Redlock kept alive by a watchdog every ttl/3; a failed renewal tells the holder"
                : "Redlock kept alive by a watchdog every ttl/3; a failed renewal dies silently",
          "auto-extension family", plus(redlock_keys(), {o_period, o_tells})},
         [tells](Port& port, ParamReader& p) {
           RedlockOptions o = zoo::redlock_reference();
           o.node_count = p.count("nodes", o.node_count);
           apply_redlock(p, o);
           WatchdogOptions w{.period = o.ttl / 3, .tells_holder = tells};
           return watched(port, p, std::make_unique<RedlockClient>(port, o), w);
         }});
  }
  list.push_back({{"wait-acked-hash",
                   LockKind::family,
                   "reentrant hash lock on a master, acquisition confirmed by WAIT from replicas, "
                   "watchdog renewal",
                   "Redisson RLock shape",
                   {o_replicas, o_acks, o_replica_wait, o_lease, o_wait_time, o_timeout}},
                  [](Port& port, ParamReader& p) {
                    HashLockOptions o{.replicas = 2, .acks_required = 0};
                    apply_hash(p, o);
                    return std::make_unique<HashLockClient>(port, o);
                  }});
  list.push_back(
      {{"fenced", LockKind::family,
        "a lock plus a fencing token per grant from an external counter, one master's INCR, "
        "or the max INCR over a quorum",
        "Kleppmann 2016", plus(redlock_keys(), {o_source, o_token_node, o_inner})},
       [](Port& port, ParamReader& p) -> std::unique_ptr<LockClient> {
         const bool single = p.choice("inner", 0, {"redlock", "single-instance"}) == 1;
         RedlockOptions r = zoo::redlock_reference();
         r.node_count = single ? 1 : p.count("nodes", r.node_count);
         std::unique_ptr<LockClient> inner =
             single ? single_client(port, p, zoo::single_instance_reference())
                    : redlock_client(port, p, r);
         const auto source = static_cast<TokenSource>(
             p.choice("token_source", 0, {"external_counter", "redis_master", "quorum_max"}));
         FencedOptions f{.source = source,
                         .token_node = p.count(
                             "token_node", source == TokenSource::redis_master ? 0 : r.node_count),
                         .node_count = r.node_count};
         return std::make_unique<FencedClient>(port, std::move(inner), f);
       }});
  list.back().entry.fencing_tokens = true;
  return list;
}

Builder redlock_profile(std::string name, std::string description, std::string models,
                        std::function<RedlockOptions(uint32_t, Duration)> options,
                        Duration default_ttl) {
  return Builder{{std::move(name), LockKind::profile, std::move(description), std::move(models),
                  redlock_keys()},
                 [options, default_ttl](Port& port, ParamReader& p) {
                   return redlock_client(port, p, options(p.count("nodes", 5), default_ttl));
                 }};
}

// Redlock libraries: Go, JavaScript, Python.
std::vector<Builder> redlock_library_builders() {
  std::vector<Builder> list;
  list.push_back(
      {{"redsync-v4", LockKind::profile,
        "Go: parallel SET NX PX, 32 tries 50-250 ms, drift 1% (no +2), monotonic, ctx timeout 5%",
        "go-redsync/redsync v4 @ 5560bd2",
        plus(redlock_keys(), {{"fail_fast", "bool", "WithFailFast"},
                              {"set_nx_on_extend", "bool", "WithSetNXOnExtend (PR #149)"},
                              {"status_bug", "bool", "before PR #38/#61: a 0 reply is success"}})},
       [](Port& port, ParamReader& p) {
         const uint32_t n = p.count("nodes", 5);
         RedlockOptions o = p.flag("fail_fast", false) ? profiles::redsync_v4_fail_fast(n)
                                                       : profiles::redsync_v4(n);
         if (p.flag("set_nx_on_extend", false)) {
           o.extend_command = RedlockExtendCommand::pexpire_if_value_else_set_nx;
         }
         o.any_reply_counts_as_success = p.flag("status_bug", false);
         return redlock_client(port, p, o);
       }});
  list.push_back(
      {{"node-redlock-5.0.0-beta.2", LockKind::profile,
        "npm 5.0.0-beta.2 (its latest tag is 4.2.0): wall clock, validity from before the retries "
        "and never checked, returns at quorum, no release between tries",
        "mike-marcacci/node-redlock 5.0.0-beta.2 @ 54de94c", plus(redlock_keys(), {o_auto_extend})},
       [](Port& port, ParamReader& p) -> std::unique_ptr<LockClient> {
         RedlockOptions o =
             profiles::node_redlock_5_0_0_beta_2(p.count("nodes", 5), Duration::from_ms(10'000));
         const bool using_routine = p.flag("auto_extend", false);
         std::unique_ptr<LockClient> client = redlock_client(port, p, o);
         if (!using_routine) return client;
         return watched(port, p, std::move(client), profiles::node_redlock_using());
       }});
  list.push_back(redlock_profile(
      "node-redlock-4.2.0",
      "waits for all servers, checks expiration > now, a failed extend unlocks every server",
      "mike-marcacci/node-redlock v4.2.0 @ 870778c", profiles::node_redlock_4_2_0,
      Duration::from_ms(10'000)));
  list.push_back(
      {{"redlock-py", LockKind::profile,
        "sequential, wall clock in whole ms, 3 tries fixed 200 ms, quorum with errors raises "
        "without releasing",
        "SPSCommerce/redlock-py @ 42ef491", redlock_keys()},
       [](Port& port, ParamReader& p) {
         const RedlockOptions o =
             profiles::redlock_py(p.count("nodes", 5), Duration::from_ms(10'000));
         const int32_t default_retries = o.retry_count;
         std::unique_ptr<LockClient> client = redlock_client(port, p, o);
         // `retry_count or default`: a configured 0 falls back to the default (issue #24).
         auto& redlock = static_cast<RedlockClient&>(*client);
         if (redlock.options().retry_count == 0) redlock.set_retry_count(default_retries);
         return client;
       }});
  return list;
}

// Redlock libraries: Ruby, pottery, C++.
std::vector<Builder> more_redlock_library_builders() {
  std::vector<Builder> list;
  list.push_back(
      {{"redlock-rb", LockKind::profile,
        "sequential with 100 ms timeouts, validity >= 0, extend re-creates a lapsed key (#36)",
        "leandromoreira/redlock-rb 2.x @ f176e57",
        plus(redlock_keys(), {{"extend_only_if_locked", "bool", "extend may not re-create"}})},
       [](Port& port, ParamReader& p) {
         RedlockOptions o = profiles::redlock_rb(p.count("nodes", 5), Duration::from_ms(10'000));
         if (p.flag("extend_only_if_locked", false)) {
           o.extend_command = RedlockExtendCommand::set_if_absent_or_same_only_if_locked;
         }
         return redlock_client(port, p, o);
       }});
  list.push_back(redlock_profile(
      "pottery",
      "parallel with bail-out at quorum, new uuid per attempt, infinite retries, at most 3 "
      "extensions without validity",
      "brainix/pottery @ e2f40424", profiles::pottery, Duration::from_ms(10'000)));
  const LockOverride o_scripting{"scripting", "bool",
                                 "false: RedMutexTx (WATCH/GET/MULTI extend, no drift)"};
  list.push_back(
      {{"redis-plus-plus-redlockmutex", LockKind::profile,
        "C++: sequential, start fixed before the retry loop, a node error escapes leaving keys",
        "sewenew/redis-plus-plus RedLockMutexVessel @ 2c47000",
        plus(redlock_keys(), {o_scripting})},
       [](Port& port, ParamReader& p) {
         RedlockOptions o = profiles::redis_plus_plus_redlock_mutex(p.count("nodes", 5),
                                                                    Duration::from_ms(10'000));
         if (!p.flag("scripting", true)) o = profiles::redis_plus_plus_tx(o);
         return redlock_client(port, p, o);
       }});
  list.push_back(
      {{"redis-plus-plus-redmutex", LockKind::profile,
        "C++: polls try_lock every 0-5 ms; LockWatcher extends every ttl/2 and tells on failure",
        "sewenew/redis-plus-plus RedMutex @ 2c47000",
        plus(redlock_keys(), {o_period, o_tells, o_scripting})},
       [](Port& port, ParamReader& p) {
         RedlockOptions o =
             profiles::redis_plus_plus_red_mutex(p.count("nodes", 5), Duration::from_ms(3'000));
         if (!p.flag("scripting", true)) o = profiles::redis_plus_plus_tx(o);
         std::unique_ptr<LockClient> inner = redlock_client(port, p, o);
         const Duration ttl = static_cast<RedlockClient&>(*inner).options().ttl;
         return watched(port, p, std::move(inner), profiles::redis_plus_plus_lock_watcher(ttl));
       }});
  return list;
}

// aioredlock, Redisson and the single-node Python locks.
std::vector<Builder> other_library_builders() {
  std::vector<Builder> list;
  list.push_back(
      {{"aioredlock", LockKind::profile,
        "asyncio: gather waits for all nodes, SET script re-creates on extend, watchdog every 6 s",
        "joanvila/aioredlock @ 685d1b5", plus(redlock_keys(), {o_auto_extend, o_period})},
       [](Port& port, ParamReader& p) -> std::unique_ptr<LockClient> {
         RedlockOptions o = profiles::aioredlock(p.count("nodes", 5), Duration::from_ms(10'000));
         std::unique_ptr<LockClient> inner = redlock_client(port, p, o);
         if (!p.flag("auto_extend", true)) return inner;
         // The watchdog period follows the lease actually configured (0.6 * lease).
         const Duration lease = static_cast<RedlockClient&>(*inner).options().ttl;
         return watched(port, p, std::move(inner), profiles::aioredlock_watchdog(lease));
       }});
  list.push_back({{"redisson-rlock",
                   LockKind::profile,
                   "Java: reentrant hash lock, WAIT accepts ONE replica ack, silent 10 s watchdog",
                   "redisson/redisson RLock @ 66863978b",
                   {o_replicas, o_acks, o_lease, o_wait_time, o_timeout}},
                  [](Port& port, ParamReader& p) {
                    HashLockOptions o = profiles::redisson_rlock(1);
                    apply_hash(p, o);
                    return std::make_unique<HashLockClient>(port, o);
                  }});
  list.push_back({{"redisson-redlock",
                   LockKind::profile,
                   "Java: sequential sub-lock tryLock, no validity check, per-node watchdogs",
                   "redisson/redisson RedissonRedLock @ 66863978b",
                   {o_nodes, o_lease, o_timeout}},
                  [](Port& port, ParamReader& p) {
                    MultiHashLockOptions o = profiles::redisson_redlock(p.count("nodes", 5));
                    apply_hash(p, o.sub);
                    return std::make_unique<MultiHashLockClient>(port, o);
                  }});
  list.push_back({{"redisson-fencedlock",
                   LockKind::profile,
                   "Java: RLock plus INCR token in the acquire script, re-entries bump the token",
                   "redisson/redisson RFencedLock @ 66863978b",
                   {o_replicas, o_acks, o_fenced_lease, o_wait_time, o_timeout}},
                  [](Port& port, ParamReader& p) {
                    HashLockOptions o = profiles::redisson_fenced_lock(1);
                    apply_hash(p, o);
                    profiles::redisson_fenced_lock_lease(o);
                    return std::make_unique<HashLockClient>(port, o);
                  }});
  list.back().entry.fencing_tokens = true;
  list.push_back(
      {{"redis-py-lock", LockKind::profile,
        "Python: one node, timeout=None means no TTL, polls every 0.1 s, extend adds to PTTL",
        "redis/redis-py Lock @ 34817ce2", single_keys()},
       [](Port& port, ParamReader& p) {
         return single_client(port, p, profiles::redis_py_lock(Duration::zero()));
       }});
  list.push_back({{"python-redis-lock", LockKind::profile,
                   "Python: one node, expire=None means no TTL, renewal thread dies silently",
                   "ionelmc/python-redis-lock 4.0.1 @ e448f12",
                   plus(single_keys(), {o_auto_extend, o_period})},
                  [](Port& port, ParamReader& p) -> std::unique_ptr<LockClient> {
                    SingleInstanceOptions o = profiles::python_redis_lock(Duration::zero());
                    apply_single(p, o);
                    profiles::python_redis_lock_wait(o);
                    const Duration expire = o.ttl;
                    auto inner = std::make_unique<SingleInstanceClient>(port, o);
                    if (!p.flag("auto_extend", false)) return inner;
                    return watched(port, p, std::move(inner),
                                   profiles::python_redis_lock_renewal(expire));
                  }});
  return list;
}

std::vector<Builder> profile_builders() {
  std::vector<Builder> list = redlock_library_builders();
  for (Builder& b : more_redlock_library_builders())
    list.push_back(std::move(b));
  for (Builder& b : other_library_builders())
    list.push_back(std::move(b));
  return list;
}

std::vector<Builder> zoo_builders() {
  std::vector<Builder> list;
  const auto single = [](std::string name, std::string description,
                         SingleInstanceOptions (*options)()) {
    return Builder{
        {std::move(name), LockKind::zoo, std::move(description), "single-instance", single_keys()},
        [options](Port& port, ParamReader& p) { return single_client(port, p, options()); }};
  };
  const auto redlock = [](std::string name, std::string description, RedlockOptions (*options)()) {
    return Builder{
        {std::move(name), LockKind::zoo, std::move(description), "redlock", redlock_keys()},
        [options](Port& port, ParamReader& p) { return redlock_client(port, p, options()); }};
  };
  list.push_back(single("zoo-plain-del-release", "release by plain DEL: deletes another's lock",
                        zoo::plain_del_release));
  list.push_back(single("zoo-get-then-del-release",
                        "release by GET then DEL: the key can change hands in between",
                        zoo::get_then_del_release));
  list.push_back(single("zoo-setnx-then-expire",
                        "SETNX then PEXPIRE: a crash in between leaves a lock without TTL",
                        zoo::setnx_then_expire));
  list.push_back(
      single("zoo-no-ttl", "SET NX without expiry: a crashed holder blocks for ever", zoo::no_ttl));
  list.push_back(redlock("zoo-no-elapsed-check",
                         "Redlock validity ignores the acquisition's elapsed time",
                         zoo::no_elapsed_check));
  list.push_back(redlock("zoo-extend-on-minority",
                         "Redlock extension counted as success on a single node",
                         zoo::extend_on_minority));
  list.push_back(redlock("zoo-resurrecting-extend",
                         "Redlock extension re-creates the key where it lapsed",
                         zoo::resurrecting_extend));
  list.push_back(redlock("zoo-unconditional-extend",
                         "Redlock extension by SET XX PX: overwrites the new holder's keys",
                         zoo::unconditional_extend));
  return list;
}

}  // namespace

}  // namespace redlock_sim
