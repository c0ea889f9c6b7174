// A scenario in memory: what scenarios/ parses from JSON and the runner builds a world from.
// docs/scenario-format.md documents every field; the names here follow the JSON names.
// All times are true-time milliseconds unless a field says otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lock_impls/port/param_value.hpp"
#include "sim/kernel/clock.hpp"
#include "sim/kernel/network.hpp"
#include "sim/resource/resource.hpp"

namespace redlock_sim {

struct ClockSpec {
  int64_t offset_ms = 0;  // wall clock minus true time at the start
  Rate rate = Rate::one();
};

enum class PersistenceMode : uint8_t { none, rdb, aof };
enum class AppendFsync : uint8_t { always, everysec, no };

struct PersistenceSpec {
  PersistenceMode mode = PersistenceMode::none;
  AppendFsync appendfsync = AppendFsync::everysec;
  int64_t rdb_interval_ms = 60'000;  // a snapshot every interval (save <seconds> 1)
};

// A string key a node holds before the run (a fencing counter at 32, a stale lock key), with a
// TTL counted from time zero on the node's own wall clock.
struct InitialKey {
  std::string key;
  std::string value;
  std::optional<int64_t> ttl_ms;
};

struct NodeSpec {
  std::string name;
  std::string role = "master";  // master | replica
  std::string replica_of;       // for replicas: the master's node name
  std::string redis_version = "7.0";
  PersistenceSpec persistence;
  ClockSpec clock;
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag_s = 10;
  int64_t replica_priority = 100;
  std::vector<InitialKey> data;  // a master's keys at time zero (its replicas have them too)
};

struct LinkSpec {
  std::string from;
  std::string to;
  bool both_ways = true;
  std::optional<DelaySpec> delay;
  uint32_t loss_numerator = 0;  // loss probability as a ratio
  uint32_t loss_denominator = 1;
};

struct NetworkSpec {
  DelaySpec delay = DelaySpec::fixed(Duration::from_ms(1));
  std::vector<LinkSpec> links;
};

struct FailoverSpec {
  bool enabled = false;
  std::string master_name = "mymaster";
  std::string master;                  // the initial master's node name
  std::vector<std::string> sentinels;  // process names of the sentinels (placed like any process)
  uint32_t quorum = 2;
  int64_t down_after_ms = 5'000;
  int64_t failover_delay_ms = 1'000;  // from objectively down to the promotion (the convention)
};

enum class StepKind : uint8_t {
  acquire,
  release,
  extend,
  read,             // READ the resource (with the token the fencing mode asks for)
  write,            // WRITE last read value + 1 (or `value`)
  increment,        // read then write
  sleep,            // on the client's monotonic clock
  stop_if_expired,  // check-then-act: skip the rest of the steps if the validity has passed
  command,          // a plain command on a node (GET on a replica), its reply recorded
};
const char* step_kind_name(StepKind kind);

struct StepSpec {
  StepKind kind = StepKind::acquire;
  std::optional<int64_t> at_ms;   // start no earlier than this true time
  int64_t duration_ms = 0;        // sleep
  std::optional<int64_t> value;   // write
  int64_t timeout_ms = 1'000;     // read/write/increment requests to the resource; command
  std::string node;               // command: the node it is sent to
  std::vector<std::string> args;  // command: argv, name first ("GET", "lock")
};

struct WorkloadSpec {
  int64_t start_ms = 0;
  uint32_t iterations_max = 0;  // 0: until the run ends
  int64_t work_ms = 0;          // between the read and the write, on the client's clock
  int64_t think_ms = 100;       // between release and the next acquire
  bool release = true;
  bool touch_resource = true;  // false: hold the lock (work_ms) without reading or writing
  // 0: never. Otherwise the work is done in pieces this long on the client's clock, each followed
  // by an extend; a failed extension abandons the critical section (no write) and releases.
  int64_t extend_every_ms = 0;
};

struct ClientSpec {
  std::string name;
  std::string profile;
  LockParams params;               // the profile's parameters, typed as the file wrote them
  std::vector<std::string> nodes;  // NodeId i of the lock client is nodes[i]
  std::string lock = "lock";
  ClockSpec clock;
  bool watchdog = true;  // spawn the profile's watchdog, if it has one
  std::vector<StepSpec> steps;
  std::optional<WorkloadSpec> workload;
};

// A parameter that indexes a client's nodes (`token_node`): its value when
// it is an integer of a sane size, nothing otherwise.
inline std::optional<std::size_t> node_param(const ClientSpec& client, const char* key) {
  const auto found = client.params.find(key);
  if (found == client.params.end()) return std::nullopt;
  const auto* n = std::get_if<int64_t>(&found->second);
  if (n == nullptr || *n < 0 || *n > 99'999'999) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

enum class FencingTokenSource : uint8_t {
  none,
  oracle,  // an external linearizable oracle hands out token_start+1, +2, ... at each grant
  lock,    // the lock's own fencing token (fenced locks)
};

struct ResourceSpec {
  bool enabled = false;
  std::string name = "register";
  FencingMode fencing = FencingMode::none;
  FencingTokenSource token_source = FencingTokenSource::none;
  int64_t token_start = 32;  // so the first grant gets 33, as in Kleppmann's example
  bool reject_equal_token = false;
};

// How a process stops (the crash kinds), and what a Redis node's disk keeps of it.
enum class StopKind : uint8_t {
  kill,        // kill -9: the page cache survives, so everything written to the AOF does
  power_loss,  // only fsynced AOF data and completed snapshots survive
  shutdown,    // clean: the AOF is fsynced and, with RDB on, a final snapshot is saved
};

// A fault kind's own fields: a struct its file declares (a pause burst's duration, period and
// count), held whatever its type. Copies share the value, which never changes once held (`set`
// holds a new one), so a FaultSpec stays cheap to copy for the shrinker; two holders are equal
// when they hold equal values of the same type (the struct's operator==).
class FaultFields {
 public:
  FaultFields() = default;
  template <class T>
  static FaultFields of(T value) {
    FaultFields fields;
    fields.value_ = std::make_shared<const Held<T>>(std::move(value));
    return fields;
  }
  // The held value if it is a T, else nullptr.
  template <class T>
  const T* get() const {
    const auto* held = dynamic_cast<const Held<T>*>(value_.get());
    return held != nullptr ? &held->value : nullptr;
  }
  bool empty() const { return value_ == nullptr; }
  friend bool operator==(const FaultFields& a, const FaultFields& b) {
    if (a.value_ == nullptr || b.value_ == nullptr) return a.value_ == b.value_;
    return a.value_->equals(*b.value_);
  }

 private:
  struct Value {
    virtual ~Value() = default;
    virtual bool equals(const Value& other) const = 0;
  };
  template <class T>
  struct Held final : Value {
    explicit Held(T held) : value(std::move(held)) {}
    bool equals(const Value& other) const override {
      const auto* same = dynamic_cast<const Held<T>*>(&other);
      return same != nullptr && same->value == value;
    }
    T value;
  };
  std::shared_ptr<const Value> value_;
};

struct FaultSpec;
// The story's line for a partition ("is cut off from N4, N5 until 900 ms", told by the first
// process of side A) and for a held message; the simulator and the real harness tell the same.
std::string partition_story_text(const FaultSpec& fault);
std::string hold_story_text(const FaultSpec& fault);

// A fault in a scenario. `kind` names its kind (sim/faults/kinds/<kind>.cpp); which of the other
// fields it uses, and what they mean, is that kind's (its descriptor reads and writes them).
struct FaultSpec {
  std::string kind = "pause";
  int64_t at_ms = 0;
  std::string target;                  // a process name (clock, pause/resume, crash/restart faults)
  std::optional<int64_t> duration_ms;  // pause: resume after; crash kinds: restart after
  ClockKind restart_clock = ClockKind::monotonic;  // which supervisor clock times the restart
  std::string name;                                // partition: a name for `heal`
  std::vector<std::string> side_a;
  std::vector<std::string> side_b;
  bool one_way = false;
  std::optional<int64_t> until_ms;  // partition: heal at; hold_message: release at
  std::string from;                 // hold_message, link_loss
  std::string to;
  std::string command;
  // A kind's own typed fields (the clock kinds, link_loss, pause_burst); the other kinds still
  // use the shared fields above.
  FaultFields fields;
};

struct LimitsSpec {
  uint64_t events_max = 10'000'000;
  int64_t duration_ms = 120'000;
  uint32_t messages_in_flight_max = 100'000;
  // What one run may keep (history, story, trace, messages in flight), counted as
  // Simulator::memory_bytes counts it; past it the run ends with stop reason memory_limit.
  std::size_t memory_mb = 1024;
};

// One grant a timeline gives (the catalogue's "T2 = 2 050, validity 9 848"): the client was
// granted the lock within the overlap tolerance (5 ms) of `at_ms`, with, when given, a validity
// (its first deadline minus its clock's reading at the grant, on the clock the lock uses) within
// the same tolerance of `validity_ms`.
struct ExpectedGrant {
  std::string client;
  int64_t at_ms = 0;
  std::optional<int64_t> validity_ms;
};

// A command step's reply a timeline gives (the catalogue's "NOREPLICAS at 12 000"): a command
// step of the client sent within 5 ms of `at_ms` got `reply`, as the story prints it
// ("(nil)", "\"tok\"", "(integer) 33", "OK", "(error) NOREPLICAS ...", "(timeout)").
struct ExpectedReply {
  std::string client;
  int64_t at_ms = 0;
  std::string reply;
};

// What a command step sent and got, for the story, the JSON result and expect.replies.
struct CommandReplyRecord {
  ProcessId client = 0;
  std::string node;
  std::vector<std::string> command;
  Instant sent_at;
  std::string reply;  // describe(reply), or "(timeout)" / "(refused)" when none came
};

struct Expectations {
  std::optional<std::string> mutual_exclusion;  // holds | violated
  std::optional<std::string> resource_safety;
  std::optional<std::string> liveness;
  std::optional<int64_t> overlap_ms_min;
  std::optional<std::pair<int64_t, int64_t>> overlap;  // [start, end) ms, within 5 ms
  std::vector<std::string> probes;                     // must fire
  std::vector<std::string> not_probes;                 // must not fire
  std::optional<int64_t> unavailability_max_ms;        // the liveness bound
  std::vector<ExpectedGrant> grants;                   // each must match a grant
  std::vector<ExpectedReply> replies;                  // each must match a command step's reply
};

// Every probe the runner has (History::probe names), for expect.probes and expect.not_probes.
const std::vector<std::string>& probe_names();

struct Scenario {
  std::string name;
  std::string description;
  std::string source;  // the file it came from, for messages
  uint64_t seed = 1;
  std::vector<NodeSpec> nodes;
  NetworkSpec network;
  FailoverSpec failover;
  std::vector<ClientSpec> clients;
  ResourceSpec resource;
  std::vector<FaultSpec> faults;
  LimitsSpec limits;
  Expectations expect;
};

}  // namespace redlock_sim
