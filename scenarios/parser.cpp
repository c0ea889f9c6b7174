#include "scenarios/parser.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/faults/before_run.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/faults/pairing.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim {

using nlohmann::json;

ScenarioError::ScenarioError(std::string file, std::string path, std::string message)
    : std::runtime_error(file + ": " + path + ": " + message),
      file_(std::move(file)),
      path_(std::move(path)),
      message_(std::move(message)) {}

namespace {

// Times and counts are bounded so that arithmetic on them can never overflow.
constexpr int64_t time_ms_max = 1'000'000'000'000;  // about 31 years

std::string type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a fractional number";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "something else";
  }
}

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return type_name(value) + " " + text;
}

// Reads one JSON object field by field, remembering which fields were used, so that unknown
// fields can be reported.
class Reader {
 public:
  Reader(const json& value, std::string path, const std::string& file)
      : value_(value), path_(std::move(path)), file_(file) {
    if (!value_.is_object()) fail(path_, "expected an object, got " + shown(value_));
  }

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ScenarioError(file_, path, message);
  }
  std::string at(const std::string& key) const { return path_ + "." + key; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  bool has(const std::string& key) {
    used_.insert(key);
    return value_.contains(key);
  }
  const json& get(const std::string& key) {
    used_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) fail(at(key), "missing");
    return *it;
  }
  const json* find(const std::string& key) {
    used_.insert(key);
    auto it = value_.find(key);
    return it == value_.end() ? nullptr : &*it;
  }

  std::string string(const std::string& key, std::optional<std::string> fallback = {}) {
    const json* v = find(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      fail(at(key), "missing: expected a string");
    }
    if (!v->is_string()) fail(at(key), "expected a string, got " + shown(*v));
    return v->get<std::string>();
  }
  std::string one_of(const std::string& key, const std::vector<std::string>& choices,
                     std::optional<std::string> fallback = {}) {
    const std::string value = string(key, fallback);
    for (const std::string& choice : choices) {
      if (value == choice) return value;
    }
    std::string list;
    for (const std::string& choice : choices)
      list += (list.empty() ? "" : ", ") + choice;
    fail(at(key), "expected one of " + list + "; got \"" + value + "\"");
  }
  int64_t integer(const std::string& key, int64_t low, int64_t high,
                  std::optional<int64_t> fallback = {}) {
    const json* v = find(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      fail(at(key), "missing: expected an integer in [" + std::to_string(low) + ", " +
                        std::to_string(high) + "]");
    }
    return integer_value(*v, at(key), low, high);
  }
  std::optional<int64_t> optional_integer(const std::string& key, int64_t low, int64_t high) {
    if (!has(key)) return std::nullopt;
    return integer(key, low, high);
  }
  int64_t integer_value(const json& v, const std::string& path, int64_t low, int64_t high) const {
    const std::string range = "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
    if (!v.is_number_integer()) fail(path, "expected an integer in " + range + ", got " + shown(v));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(high)) {
      fail(path, "expected an integer in " + range + ", got " + v.dump());
    }
    const int64_t value = v.get<int64_t>();
    if (value < low || value > high) {
      fail(path, "expected an integer in " + range + ", got " + std::to_string(value));
    }
    return value;
  }
  bool boolean(const std::string& key, bool fallback) {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(at(key), "expected true or false, got " + shown(*v));
    return v->get<bool>();
  }
  const json& array(const std::string& key) {
    const json& v = get(key);
    if (!v.is_array()) fail(at(key), "expected an array, got " + shown(v));
    return v;
  }
  std::vector<std::string> strings(const std::string& key) {
    if (!has(key)) return {};
    const json& v = array(key);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        fail(at(key) + "[" + std::to_string(i) + "]", "expected a string, got " + shown(v[i]));
      }
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  // Every field of the object must have been read.
  void finish() const {
    for (auto it = value_.begin(); it != value_.end(); ++it) {
      if (used_.count(it.key()) == 0) {
        std::string known;
        for (const std::string& k : used_)
          known += (known.empty() ? "" : ", ") + k;
        fail(at(it.key()), "unknown field (known here: " + known + ")");
      }
    }
  }

 private:
  const json& value_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> used_;
};

Rate read_rate(Reader& r, const std::string& path_prefix) {
  (void)path_prefix;
  if (r.has("rate_ppm")) {
    return Rate::ppm(r.integer("rate_ppm", -999'999, 1'000'000));
  }
  if (r.has("rate")) {
    const json& v = r.array("rate");
    if (v.size() != 2) r.fail(r.at("rate"), "expected [numerator, denominator]");
    const int64_t n = r.integer_value(v[0], r.at("rate") + "[0]", 1, 1'000'000'000);
    const int64_t d = r.integer_value(v[1], r.at("rate") + "[1]", 1, 1'000'000'000);
    return Rate{n, d}.times(Rate::one());
  }
  return Rate::one();
}

ClockSpec read_clock(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  ClockSpec clock;
  clock.offset_ms = r.integer("offset_ms", -time_ms_max, time_ms_max, 0);
  clock.rate = read_rate(r, path);
  r.finish();
  return clock;
}

std::pair<uint32_t, uint32_t> read_ratio(Reader& r, const std::string& key) {
  const json& v = r.array(key);
  if (v.size() != 2) r.fail(r.at(key), "expected [numerator, denominator]");
  const auto n = static_cast<uint32_t>(r.integer_value(v[0], r.at(key) + "[0]", 0, 1'000'000));
  const auto d = static_cast<uint32_t>(r.integer_value(v[1], r.at(key) + "[1]", 1, 1'000'000));
  if (n > d) r.fail(r.at(key), "expected a probability: numerator <= denominator");
  return {n, d};
}

DelaySpec read_delay(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  const std::string kind = r.one_of("kind", {"fixed", "uniform", "pareto"}, "fixed");
  DelaySpec delay;
  if (kind == "fixed") {
    delay = DelaySpec::fixed(Duration::from_ms(r.integer("ms", 0, time_ms_max)));
  } else {
    const int64_t low = r.integer("min_ms", 0, time_ms_max);
    const int64_t high = r.integer("max_ms", 0, time_ms_max);
    if (high < low) r.fail(r.at("max_ms"), "expected max_ms >= min_ms");
    if (kind == "uniform") {
      delay = DelaySpec::uniform(Duration::from_ms(low), Duration::from_ms(high));
    } else {
      auto [n, d] = r.has("tail") ? read_ratio(r, "tail") : std::make_pair(1u, 2u);
      if (n == d) r.fail(r.at("tail"), "expected a tail probability below 1");
      delay = DelaySpec::pareto(Duration::from_ms(low), Duration::from_ms(high), n, d);
    }
  }
  r.finish();
  return delay;
}

PersistenceSpec read_persistence(const json& value, const std::string& path,
                                 const std::string& file) {
  Reader r(value, path, file);
  PersistenceSpec spec;
  const std::string mode = r.one_of("mode", {"none", "rdb", "aof"}, "none");
  spec.mode = mode == "rdb"   ? PersistenceMode::rdb
              : mode == "aof" ? PersistenceMode::aof
                              : PersistenceMode::none;
  const std::string fsync = r.one_of("appendfsync", {"always", "everysec", "no"}, "everysec");
  spec.appendfsync = fsync == "always" ? AppendFsync::always
                     : fsync == "no"   ? AppendFsync::no
                                       : AppendFsync::everysec;
  spec.rdb_interval_ms = r.integer("rdb_interval_ms", 1, time_ms_max, 60'000);
  r.finish();
  return spec;
}

NodeSpec read_node(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  NodeSpec node;
  node.name = r.string("name");
  node.role = r.one_of("role", {"master", "replica"}, "master");
  node.replica_of = r.string("replica_of", "");
  if (node.role == "replica" && node.replica_of.empty()) {
    r.fail(r.at("replica_of"), "missing: a replica names its master");
  }
  if (node.role == "master" && !node.replica_of.empty()) {
    r.fail(r.at("replica_of"), "only a replica has a master (set \"role\": \"replica\")");
  }
  node.redis_version = r.one_of("redis_version", {"7.0", "6.2"}, "7.0");
  if (r.has("persistence"))
    node.persistence = read_persistence(r.get("persistence"), r.at("persistence"), file);
  if (r.has("clock")) node.clock = read_clock(r.get("clock"), r.at("clock"), file);
  node.min_replicas_to_write = r.integer("min_replicas_to_write", 0, 100, 0);
  node.min_replicas_max_lag_s = r.integer("min_replicas_max_lag_s", 0, 3600, 10);
  node.replica_priority = r.integer("replica_priority", 0, 1000, 100);
  if (r.has("data")) {
    if (node.role == "replica") {
      r.fail(r.at("data"), "a replica starts in sync with its master: put the data on the master");
    }
    const json& list = r.array("data");
    for (std::size_t i = 0; i < list.size(); ++i) {
      Reader d(list[i], r.at("data") + "[" + std::to_string(i) + "]", file);
      InitialKey key;
      key.key = d.string("key");
      const json* value = d.find("value");
      if (value != nullptr && value->is_number_integer()) {
        key.value = std::to_string(d.integer("value", -time_ms_max, time_ms_max));
      } else {
        key.value = d.string("value");
      }
      key.ttl_ms = d.optional_integer("ttl_ms", 1, time_ms_max);
      d.finish();
      for (const InitialKey& earlier : node.data) {
        if (earlier.key == key.key) d.fail(d.at("key"), "duplicate key \"" + key.key + "\"");
      }
      node.data.push_back(std::move(key));
    }
  }
  r.finish();
  return node;
}

NetworkSpec read_network(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  NetworkSpec network;
  if (r.has("delay")) network.delay = read_delay(r.get("delay"), r.at("delay"), file);
  if (r.has("links")) {
    const json& links = r.array("links");
    for (std::size_t i = 0; i < links.size(); ++i) {
      Reader l(links[i], r.at("links") + "[" + std::to_string(i) + "]", file);
      LinkSpec link;
      link.from = l.string("from");
      link.to = l.string("to");
      link.both_ways = l.boolean("both_ways", true);
      if (l.has("delay")) link.delay = read_delay(l.get("delay"), l.at("delay"), file);
      if (l.has("loss"))
        std::tie(link.loss_numerator, link.loss_denominator) = read_ratio(l, "loss");
      l.finish();
      network.links.push_back(std::move(link));
    }
  }
  r.finish();
  return network;
}

FailoverSpec read_failover(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  FailoverSpec spec;
  spec.enabled = r.boolean("enabled", true);
  spec.master_name = r.string("master_name", "mymaster");
  spec.master = r.string("master");
  spec.sentinels = r.strings("sentinels");
  if (spec.sentinels.empty()) r.fail(r.at("sentinels"), "expected at least one sentinel name");
  spec.quorum = static_cast<uint32_t>(r.integer("quorum", 1, 100, 2));
  if (spec.quorum > spec.sentinels.size()) {
    r.fail(r.at("quorum"), "expected a quorum <= the number of sentinels (" +
                               std::to_string(spec.sentinels.size()) + ")");
  }
  spec.down_after_ms = r.integer("down_after_ms", 1, time_ms_max, 5'000);
  spec.failover_delay_ms = r.integer("failover_delay_ms", 0, time_ms_max, 1'000);
  r.finish();
  return spec;
}

StepSpec read_step(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  StepSpec step;
  const std::string kind = r.one_of("do", {"acquire", "release", "extend", "read", "write",
                                           "increment", "sleep", "stop_if_expired", "command"});
  for (StepKind k :
       {StepKind::acquire, StepKind::release, StepKind::extend, StepKind::read, StepKind::write,
        StepKind::increment, StepKind::sleep, StepKind::stop_if_expired, StepKind::command}) {
    if (kind == step_kind_name(k)) step.kind = k;
  }
  step.at_ms = r.optional_integer("at_ms", 0, time_ms_max);
  if (step.kind == StepKind::sleep) {
    step.duration_ms = r.integer("ms", 0, time_ms_max);
  }
  if (step.kind == StepKind::write)
    step.value = r.optional_integer("value", -time_ms_max, time_ms_max);
  if (step.kind == StepKind::read || step.kind == StepKind::write ||
      step.kind == StepKind::increment || step.kind == StepKind::command) {
    step.timeout_ms = r.integer("timeout_ms", 1, time_ms_max, 1'000);
  }
  if (step.kind == StepKind::command) {
    step.node = r.string("node");
    step.args = r.strings("args");
    if (step.args.empty()) r.fail(r.at("args"), "expected the command, e.g. [\"GET\", \"lock\"]");
  }
  r.finish();
  return step;
}

WorkloadSpec read_workload(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  WorkloadSpec workload;
  workload.start_ms = r.integer("start_ms", 0, time_ms_max, 0);
  workload.iterations_max = static_cast<uint32_t>(r.integer("iterations", 0, 1'000'000, 0));
  workload.work_ms = r.integer("work_ms", 0, time_ms_max, 0);
  workload.think_ms = r.integer("think_ms", 0, time_ms_max, 100);
  workload.release = r.boolean("release", true);
  workload.touch_resource = r.boolean("touch_resource", true);
  workload.extend_every_ms = r.integer("extend_every_ms", 0, time_ms_max, 0);
  r.finish();
  return workload;
}

ClientSpec read_client(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  ClientSpec client;
  client.name = r.string("name");
  client.profile = r.string("profile");
  if (r.has("params")) {
    const json& params = r.get("params");
    if (!params.is_object()) r.fail(r.at("params"), "expected an object, got " + shown(params));
    for (auto it = params.begin(); it != params.end(); ++it) {
      const std::string at = r.at("params") + "." + it.key();
      if (it->is_string()) {
        client.params[it.key()] = it->get<std::string>();
      } else if (it->is_boolean()) {
        client.params[it.key()] = it->get<bool>();
      } else if (it->is_number_integer() && it->is_number_unsigned() &&
                 it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        r.fail(at, "expected an integer below 2^63, got " + shown(*it));
      } else if (it->is_number_integer()) {
        client.params[it.key()] = it->get<int64_t>();
      } else {
        r.fail(at, "expected a string, an integer or a boolean, got " + shown(*it));
      }
    }
  }
  client.nodes = r.strings("nodes");
  client.lock = r.string("lock", "lock");
  if (r.has("clock")) client.clock = read_clock(r.get("clock"), r.at("clock"), file);
  client.watchdog = r.boolean("watchdog", true);
  if (r.has("steps")) {
    const json& steps = r.array("steps");
    for (std::size_t i = 0; i < steps.size(); ++i) {
      client.steps.push_back(
          read_step(steps[i], r.at("steps") + "[" + std::to_string(i) + "]", file));
    }
  }
  if (r.has("workload")) client.workload = read_workload(r.get("workload"), r.at("workload"), file);
  if (client.steps.empty() == !client.workload.has_value()) {
    r.fail(path, "expected exactly one of \"steps\" (non-empty) or \"workload\"");
  }
  r.finish();
  return client;
}

ResourceSpec read_resource(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  ResourceSpec spec;
  spec.enabled = true;
  spec.name = r.string("name", "register");
  const std::string fencing =
      r.one_of("fencing", {"none", "fence-writes", "fence-all", "compare-and-set"}, "none");
  spec.fencing = *parse_fencing_mode(fencing);
  const std::string source = r.one_of(
      "token_source", {"none", "oracle", "lock"},
      spec.fencing == FencingMode::none || spec.fencing == FencingMode::compare_and_set ? "none"
                                                                                        : "oracle");
  spec.token_source = source == "oracle" ? FencingTokenSource::oracle
                      : source == "lock" ? FencingTokenSource::lock
                                         : FencingTokenSource::none;
  if ((spec.fencing == FencingMode::fence_writes || spec.fencing == FencingMode::fence_all) &&
      spec.token_source == FencingTokenSource::none) {
    r.fail(r.at("token_source"), "fencing needs a token source: \"oracle\" or \"lock\"");
  }
  spec.token_start = r.integer("token_start", 0, time_ms_max, 32);
  spec.reject_equal_token = r.boolean("reject_equal_token", false);
  r.finish();
  return spec;
}

const std::vector<std::string>& fault_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const FaultKindDescriptor* kind : fault_kinds())
      out.push_back(kind->name);
    return out;
  }();
  return names;
}

// A fault kind reads its own fields (sim/faults) through this port over the parser's Reader.
class FaultReader final : public FaultFieldReader {
 public:
  FaultReader(Reader& r, const std::string& path) : r_(r), path_(path) {}
  bool has(const std::string& key) override { return r_.has(key); }
  std::string string(const std::string& key, std::optional<std::string> fallback) override {
    return r_.string(key, std::move(fallback));
  }
  std::string one_of(const std::string& key, const std::vector<std::string>& choices,
                     std::optional<std::string> fallback) override {
    return r_.one_of(key, choices, std::move(fallback));
  }
  int64_t integer(const std::string& key, int64_t low, int64_t high,
                  std::optional<int64_t> fallback) override {
    return r_.integer(key, low, high, fallback);
  }
  std::optional<int64_t> optional_integer(const std::string& key, int64_t low,
                                          int64_t high) override {
    return r_.optional_integer(key, low, high);
  }
  bool boolean(const std::string& key, bool fallback) override { return r_.boolean(key, fallback); }
  Rate rate() override { return read_rate(r_, path_); }
  std::pair<uint32_t, uint32_t> ratio(const std::string& key,
                                      std::pair<uint32_t, uint32_t> fallback) override {
    return r_.has(key) ? read_ratio(r_, key) : fallback;
  }
  std::vector<std::vector<std::string>> name_lists(const std::string& key, std::size_t count,
                                                   const std::string& shape) override {
    const json& lists = r_.array(key);
    if (lists.size() != count) r_.fail(r_.at(key), shape);
    std::vector<std::vector<std::string>> out(count);
    for (std::size_t s = 0; s < count; ++s) {
      const std::string at = r_.at(key) + "[" + std::to_string(s) + "]";
      if (!lists[s].is_array() || lists[s].empty()) {
        r_.fail(at, "expected a non-empty array of process names, got " + shown(lists[s]));
      }
      for (std::size_t i = 0; i < lists[s].size(); ++i) {
        if (!lists[s][i].is_string()) {
          r_.fail(at + "[" + std::to_string(i) + "]",
                  "expected a string, got " + shown(lists[s][i]));
        }
        out[s].push_back(lists[s][i].get<std::string>());
      }
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) override {
    r_.fail(key.empty() ? path_ : r_.at(key), message);
  }

 private:
  Reader& r_;
  const std::string& path_;
};

FaultSpec read_fault(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  FaultSpec fault;
  const FaultKindDescriptor& kind = *find_fault_kind(r.one_of("kind", fault_kind_names()));
  fault.kind = kind.name;
  const bool before_run = kind.may_start_before_run;
  if (!before_run && r.has("at_ms") && r.get("at_ms").is_number_integer() &&
      r.get("at_ms").get<int64_t>() < 0) {
    r.fail(r.at("at_ms"), std::string("expected at_ms >= 0: only a partition may begin before the "
                                      "run (a ") +
                              kind.name + " before time zero is not a state the run can start in)");
  }
  fault.at_ms = r.integer("at_ms", before_run ? -time_ms_max : 0, time_ms_max);
  FaultReader fields(r, path);
  kind.read(fields, fault);
  if (fault.until_ms && *fault.until_ms < fault.at_ms) {
    r.fail(r.at("until_ms"), "expected until_ms >= at_ms (" + std::to_string(fault.at_ms) + ")");
  }
  if (fault.at_ms < 0 && fault.until_ms && *fault.until_ms <= 0) {
    r.fail(r.at("until_ms"),
           "expected until_ms > 0: a partition that began before the run must last into it");
  }
  r.finish();
  return fault;
}

Expectations read_expect(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  Expectations expect;
  const std::vector<std::string> verdicts = {"holds", "violated"};
  if (r.has("mutual_exclusion")) expect.mutual_exclusion = r.one_of("mutual_exclusion", verdicts);
  if (r.has("resource_safety")) expect.resource_safety = r.one_of("resource_safety", verdicts);
  if (r.has("liveness")) expect.liveness = r.one_of("liveness", verdicts);
  expect.overlap_ms_min = r.optional_integer("overlap_ms_min", 0, time_ms_max);
  if (r.has("overlap")) {
    const json& v = r.array("overlap");
    if (v.size() != 2) r.fail(r.at("overlap"), "expected [start_ms, end_ms]");
    expect.overlap = {r.integer_value(v[0], r.at("overlap") + "[0]", 0, time_ms_max),
                      r.integer_value(v[1], r.at("overlap") + "[1]", 0, time_ms_max)};
    if (expect.overlap->second < expect.overlap->first) {
      r.fail(r.at("overlap"), "expected start_ms <= end_ms");
    }
  }
  expect.probes = r.strings("probes");
  expect.not_probes = r.strings("not_probes");
  // A misspelt probe would never fire (or always "not fire"): name the ones there are.
  for (const char* key : {"probes", "not_probes"}) {
    const std::vector<std::string>& names =
        std::string(key) == "probes" ? expect.probes : expect.not_probes;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (std::find(probe_names().begin(), probe_names().end(), names[i]) != probe_names().end()) {
        continue;
      }
      std::string known;
      for (const std::string& name : probe_names())
        known += (known.empty() ? "" : ", ") + name;
      r.fail(r.at(key) + "[" + std::to_string(i) + "]",
             "unknown probe \"" + names[i] + "\" (known: " + known + ")");
    }
  }
  expect.unavailability_max_ms = r.optional_integer("unavailability_max_ms", 0, time_ms_max);
  if (r.has("grants")) {
    const json& list = r.array("grants");
    for (std::size_t i = 0; i < list.size(); ++i) {
      Reader g(list[i], r.at("grants") + "[" + std::to_string(i) + "]", file);
      ExpectedGrant grant;
      grant.client = g.string("client");
      grant.at_ms = g.integer("at_ms", 0, time_ms_max);
      grant.validity_ms = g.optional_integer("validity_ms", 0, time_ms_max);
      g.finish();
      expect.grants.push_back(std::move(grant));
    }
  }
  if (r.has("replies")) {
    const json& list = r.array("replies");
    for (std::size_t i = 0; i < list.size(); ++i) {
      Reader e(list[i], r.at("replies") + "[" + std::to_string(i) + "]", file);
      ExpectedReply reply;
      reply.client = e.string("client");
      reply.at_ms = e.integer("at_ms", 0, time_ms_max);
      reply.reply = e.string("reply");
      e.finish();
      expect.replies.push_back(std::move(reply));
    }
  }
  r.finish();
  return expect;
}

LimitsSpec read_limits(const json& value, const std::string& path, const std::string& file) {
  Reader r(value, path, file);
  LimitsSpec limits;
  limits.events_max = static_cast<uint64_t>(r.integer("events_max", 1, 1'000'000'000, 10'000'000));
  limits.duration_ms = r.integer("duration_ms", 1, time_ms_max, 120'000);
  limits.messages_in_flight_max =
      static_cast<uint32_t>(r.integer("messages_in_flight_max", 1, 10'000'000, 100'000));
  limits.memory_mb = static_cast<std::size_t>(r.integer("memory_mb", 1, 65'536, 1024));
  r.finish();
  return limits;
}

template <typename T, typename ReadOne>
std::vector<T> read_list(Reader& r, const std::string& key, ReadOne read_one) {
  std::vector<T> out;
  if (!r.has(key)) return out;
  const json& list = r.array(key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(read_one(list[i], r.at(key) + "[" + std::to_string(i) + "]", r.file()));
  }
  return out;
}

// A process's clocks, in local ms, must stay within clock_reading_ms_max over the whole run so
// that the model's int64 nanoseconds never overflow: a reading plus a lock's TTL or timeout (at
// most time_ms_max each) stays below 2^63 ns. The bound is the start epoch, plus every offset
// and step that may apply to the process, plus its fastest rate (doubled by a slew) times the
// run's length. (A very slow clock needs no bound: its far deadlines never come.)
constexpr int64_t clock_reading_ms_max = 4'000'000'000'000;

void check_clock_reach(const Scenario& s, const std::string& file, const std::string& name,
                       const ClockSpec& clock, const std::string& path) {
  const auto ceiling = [](Rate rate) {
    return (static_cast<__int128>(rate.numerator) + rate.denominator - 1) / rate.denominator;
  };
  __int128 rate_ceiling = ceiling(clock.rate);
  __int128 shift_ms = clock.offset_ms < 0 ? -static_cast<__int128>(clock.offset_ms)
                                          : static_cast<__int128>(clock.offset_ms);
  bool slewed = false;
  for (const FaultSpec& f : s.faults) {
    if (f.target != name) continue;
    const FaultKindDescriptor& kind = fault_kind(f.kind);
    if (kind.clock_reach == nullptr) continue;
    const FaultClockReach reach = kind.clock_reach(f);
    if (reach.rate) rate_ceiling = std::max(rate_ceiling, ceiling(*reach.rate));
    shift_ms += reach.shift_ms < 0 ? -static_cast<__int128>(reach.shift_ms) : reach.shift_ms;
    slewed = slewed || reach.slewed;
  }
  const __int128 reach_ms =
      default_epoch_ms + shift_ms + rate_ceiling * (slewed ? 2 : 1) * s.limits.duration_ms;
  if (reach_ms > clock_reading_ms_max) {
    throw ScenarioError(file, path,
                        "this clock would read past " + std::to_string(clock_reading_ms_max) +
                            " ms, the model's range, within the run: keep the start epoch (" +
                            std::to_string(default_epoch_ms) +
                            " ms) + offsets and steps + rate x limits.duration_ms below it");
  }
}

// Scripted reads and writes go to the scenario's resource: without one they have no target.
void check_steps_have_resource(const Scenario& s, const std::string& file) {
  if (s.resource.enabled) return;
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    for (std::size_t j = 0; j < s.clients[i].steps.size(); ++j) {
      const StepKind kind = s.clients[i].steps[j].kind;
      if (kind == StepKind::read || kind == StepKind::write || kind == StepKind::increment) {
        throw ScenarioError(
            file, "$.clients[" + std::to_string(i) + "].steps[" + std::to_string(j) + "].do",
            std::string("step \"") + step_kind_name(kind) +
                "\" needs the scenario's \"resource\" (none is declared)");
      }
    }
  }
}

// Cross-references: every name a field mentions must exist, names must be unique.
void check_references(const Scenario& s, const std::string& file, const ProfileCheck& check) {
  std::map<std::string, std::string> processes;  // name -> where it was declared
  auto declare = [&](const std::string& name, const std::string& path) {
    if (name.empty()) throw ScenarioError(file, path, "expected a non-empty name");
    auto [it, inserted] = processes.emplace(name, path);
    if (!inserted)
      throw ScenarioError(file, path, "duplicate name \"" + name + "\" (also " + it->second + ")");
  };
  std::set<std::string> node_names;
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    declare(s.nodes[i].name, "$.nodes[" + std::to_string(i) + "].name");
    node_names.insert(s.nodes[i].name);
  }
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    declare(s.clients[i].name, "$.clients[" + std::to_string(i) + "].name");
  }
  for (std::size_t i = 0; i < s.failover.sentinels.size(); ++i) {
    declare(s.failover.sentinels[i], "$.failover.sentinels[" + std::to_string(i) + "]");
  }
  if (s.resource.enabled) declare(s.resource.name, "$.resource.name");
  auto node_ref = [&](const std::string& name, const std::string& path) {
    if (node_names.count(name) == 0) {
      throw ScenarioError(file, path, "no node is named \"" + name + "\"");
    }
  };
  auto process_ref = [&](const std::string& name, const std::string& path) {
    if (processes.count(name) == 0) {
      throw ScenarioError(
          file, path, "no process (node, client, sentinel or resource) is named \"" + name + "\"");
    }
  };
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    for (std::size_t j = 0; j < s.clients[i].steps.size(); ++j) {
      if (s.clients[i].steps[j].kind != StepKind::command) continue;
      node_ref(s.clients[i].steps[j].node,
               "$.clients[" + std::to_string(i) + "].steps[" + std::to_string(j) + "].node");
    }
  }
  for (const char* key : {"grants", "replies"}) {
    const bool grants = std::string(key) == "grants";
    const std::size_t count = grants ? s.expect.grants.size() : s.expect.replies.size();
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& name = grants ? s.expect.grants[i].client : s.expect.replies[i].client;
      if (std::none_of(s.clients.begin(), s.clients.end(),
                       [&](const ClientSpec& c) { return c.name == name; })) {
        throw ScenarioError(file,
                            "$.expect." + std::string(key) + "[" + std::to_string(i) + "].client",
                            "no client is named \"" + name + "\"");
      }
    }
  }
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    if (!s.nodes[i].replica_of.empty()) {
      const std::string path = "$.nodes[" + std::to_string(i) + "].replica_of";
      node_ref(s.nodes[i].replica_of, path);
      if (s.nodes[i].replica_of == s.nodes[i].name)
        throw ScenarioError(file, path, "a node cannot replicate itself");
    }
  }
  if (s.failover.enabled) node_ref(s.failover.master, "$.failover.master");
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    const ClientSpec& c = s.clients[i];
    const std::string at = "$.clients[" + std::to_string(i) + "]";
    if (c.nodes.empty())
      throw ScenarioError(file, at + ".nodes", "expected at least one node name");
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
      // With failover on, a client may name the group and follow its master.
      if (s.failover.enabled && c.nodes[n] == s.failover.master_name) continue;
      // "counter": the external linearizable counter service (fencing tokens), created on use.
      if (c.nodes[n] == "counter" && node_names.count("counter") == 0) continue;
      node_ref(c.nodes[n], at + ".nodes[" + std::to_string(n) + "]");
    }
    // A lock's node count is the length of the client's nodes list, never a parameter: a second
    // copy could only disagree with the list.
    if (c.params.count("nodes") != 0) {
      throw ScenarioError(file, at + ".params.nodes",
                          "no such parameter: a lock's node count comes from the client's nodes "
                          "list (" +
                              std::to_string(c.nodes.size()) + " here); remove \"nodes\"");
    }
    // A parameter that indexes the client's nodes must fit its list.
    if (c.params.count("token_node") != 0) {
      const std::optional<std::size_t> value = node_param(c, "token_node");
      if (!value || *value >= c.nodes.size()) {
        throw ScenarioError(file, at + ".params.token_node",
                            "expected an index into the client's nodes list, below " +
                                std::to_string(c.nodes.size()));
      }
    }
    if (check) {
      if (auto error = check(c)) throw ScenarioError(file, at + ".profile", *error);
    }
  }
  // The external counter service exists only when a client's nodes list names it.
  bool counter_used = false;
  for (const ClientSpec& c : s.clients) {
    if (processes.count("counter") == 0 &&
        std::find(c.nodes.begin(), c.nodes.end(), "counter") != c.nodes.end()) {
      counter_used = true;
    }
  }
  for (std::size_t i = 0; i < s.network.links.size(); ++i) {
    const std::string at = "$.network.links[" + std::to_string(i) + "]";
    for (const auto& [end, name] :
         {std::pair<const char*, const std::string*>{"from", &s.network.links[i].from},
          {"to", &s.network.links[i].to}}) {
      if (*name == "counter" && counter_used) continue;
      if (*name == "counter" && processes.count("counter") == 0) {
        throw ScenarioError(file, at + "." + end,
                            "no process is named \"counter\": the external counter exists only "
                            "when a client's nodes list names it");
      }
      process_ref(*name, at + "." + end);
    }
  }
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    const std::string at = "$.faults[" + std::to_string(i) + "]";
    if (f.at_ms > s.limits.duration_ms) {
      throw ScenarioError(file, at + ".at_ms",
                          "expected a time within the run (limits.duration_ms = " +
                              std::to_string(s.limits.duration_ms) + ")");
    }
    if (!f.target.empty()) process_ref(f.target, at + ".target");
    for (const std::string& name : f.side_a)
      process_ref(name, at + ".sides[0]");
    for (const std::string& name : f.side_b)
      process_ref(name, at + ".sides[1]");
    if (!f.from.empty()) process_ref(f.from, at + ".from");
    if (!f.to.empty()) process_ref(f.to, at + ".to");
    if (fault_kind(f.kind).check != nullptr) {
      if (const std::optional<FaultCheckError> error = fault_kind(f.kind).check(s.faults, i))
        throw ScenarioError(file, at + "." + error->key, error->message);
    }
    if (heals_cut_before_run_by_zero(s.faults, i, f.at_ms)) {
      throw ScenarioError(file, at + ".at_ms",
                          "expected at_ms > 0: partition \"" + f.name +
                              "\" began before the run and must last into it");
    }
  }
}

Scenario read_scenario(const json& root, const std::string& file, const ProfileCheck& check) {
  Reader r(root, "$", file);
  Scenario s;
  s.source = file;
  s.name = r.string("name");
  s.description = r.string("description", "");
  s.seed = static_cast<uint64_t>(r.integer("seed", 0, std::numeric_limits<int64_t>::max(), 1));
  s.nodes = read_list<NodeSpec>(r, "nodes", read_node);
  if (s.nodes.empty()) r.fail("$.nodes", "expected at least one node");
  if (r.has("network")) s.network = read_network(r.get("network"), "$.network", file);
  if (r.has("failover")) s.failover = read_failover(r.get("failover"), "$.failover", file);
  s.clients = read_list<ClientSpec>(r, "clients", read_client);
  if (s.clients.empty()) r.fail("$.clients", "expected at least one client");
  if (r.has("resource")) s.resource = read_resource(r.get("resource"), "$.resource", file);
  s.faults = read_list<FaultSpec>(r, "faults", read_fault);
  if (r.has("limits")) s.limits = read_limits(r.get("limits"), "$.limits", file);
  if (r.has("expect")) s.expect = read_expect(r.get("expect"), "$.expect", file);
  r.finish();
  check_references(s, file, check);
  check_steps_have_resource(s, file);
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    check_clock_reach(s, file, s.nodes[i].name, s.nodes[i].clock,
                      "$.nodes[" + std::to_string(i) + "].clock");
  }
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    check_clock_reach(s, file, s.clients[i].name, s.clients[i].clock,
                      "$.clients[" + std::to_string(i) + "].clock");
  }
  for (std::size_t i = 0; i < s.failover.sentinels.size(); ++i) {
    check_clock_reach(s, file, s.failover.sentinels[i], ClockSpec{},
                      "$.failover.sentinels[" + std::to_string(i) + "]");
  }
  if (s.resource.enabled) check_clock_reach(s, file, s.resource.name, ClockSpec{}, "$.resource");
  return s;
}

}  // namespace

Scenario parse_scenario_text(std::string_view text, const std::string& source,
                             const ProfileCheck& check_profile) {
  if (text.size() > scenario_file_bytes_max) {
    throw ScenarioError(source, "$",
                        "file too large: " + std::to_string(text.size()) + " bytes (at most " +
                            std::to_string(scenario_file_bytes_max) + ")");
  }
  json root;
  try {
    // The callback bounds nesting before the parser descends (deep nesting would otherwise
    // exhaust the stack).
    root = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > scenario_depth_max) throw std::length_error("nesting too deep");
      return true;
    });
  } catch (const json::exception& error) {
    // parse errors, and numbers too large for any JSON number type
    std::string what = error.what();
    const auto colon = what.find("] ");
    throw ScenarioError(
        source, "$",
        "not valid JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
  } catch (const std::length_error&) {
    throw ScenarioError(source, "$",
                        "nesting deeper than " + std::to_string(scenario_depth_max) + " levels");
  }
  try {
    return read_scenario(root, source, check_profile);
  } catch (const json::exception& error) {
    // A reader that missed a check is a bug, but the user still gets one message, not a crash.
    throw ScenarioError(source, "$", std::string("unexpected content: ") + error.what());
  }
}

Scenario parse_scenario_file(const std::string& path, const ProfileCheck& check_profile) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw ScenarioError(path, "$", "is a folder, not a scenario file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, "$", "cannot open the file");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > scenario_file_bytes_max) break;
  }
  return parse_scenario_text(text, path, check_profile);
}

FaultSpec parse_fault_text(std::string_view text, const std::string& source) {
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception& e) {
    throw ScenarioError(source, "$", std::string("not JSON: ") + e.what());
  }
  return read_fault(value, "$", source);
}

}  // namespace redlock_sim
