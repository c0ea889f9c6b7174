#include "scenarios/writer.hpp"

#include <nlohmann/json.hpp>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

using nlohmann::json;

namespace {

// Only what differs from the defaults is written, so a written scenario reads like a
// hand-written one.

json rate_json(const Rate& rate) {
  return json::array({rate.numerator, rate.denominator});
}

json clock_json(const ClockSpec& clock) {
  json out = json::object();
  if (clock.offset_ms != 0) out["offset_ms"] = clock.offset_ms;
  if (!(clock.rate == Rate::one())) out["rate"] = rate_json(clock.rate);
  return out;
}

json delay_json(const DelaySpec& delay) {
  switch (delay.kind) {
    case DelaySpec::Kind::fixed:
      return {{"kind", "fixed"}, {"ms", delay.min.ms_floor()}};
    case DelaySpec::Kind::uniform:
      return {
          {"kind", "uniform"}, {"min_ms", delay.min.ms_floor()}, {"max_ms", delay.max.ms_floor()}};
    case DelaySpec::Kind::pareto:
      return {{"kind", "pareto"},
              {"min_ms", delay.min.ms_floor()},
              {"max_ms", delay.max.ms_floor()},
              {"tail", json::array({delay.tail_numerator, delay.tail_denominator})}};
  }
  return json::object();
}

json node_json(const NodeSpec& node) {
  json out = {{"name", node.name}};
  if (node.role != "master") out["role"] = node.role;
  if (!node.replica_of.empty()) out["replica_of"] = node.replica_of;
  if (node.redis_version != "7.0") out["redis_version"] = node.redis_version;
  const PersistenceSpec& p = node.persistence;
  if (p.mode != PersistenceMode::none) {
    json persistence = {{"mode", p.mode == PersistenceMode::rdb ? "rdb" : "aof"}};
    if (p.appendfsync != AppendFsync::everysec) {
      persistence["appendfsync"] = p.appendfsync == AppendFsync::always ? "always" : "no";
    }
    if (p.rdb_interval_ms != 60'000) persistence["rdb_interval_ms"] = p.rdb_interval_ms;
    out["persistence"] = persistence;
  }
  json clock = clock_json(node.clock);
  if (!clock.empty()) out["clock"] = clock;
  if (node.min_replicas_to_write != 0) out["min_replicas_to_write"] = node.min_replicas_to_write;
  for (const InitialKey& k : node.data) {
    json key = {{"key", k.key}, {"value", k.value}};
    if (k.ttl_ms) key["ttl_ms"] = *k.ttl_ms;
    out["data"].push_back(key);
  }
  if (node.min_replicas_max_lag_s != 10)
    out["min_replicas_max_lag_s"] = node.min_replicas_max_lag_s;
  if (node.replica_priority != 100) out["replica_priority"] = node.replica_priority;
  return out;
}

json step_json(const StepSpec& step) {
  json out = {{"do", step_kind_name(step.kind)}};
  if (step.at_ms) out["at_ms"] = *step.at_ms;
  if (step.kind == StepKind::sleep) out["ms"] = step.duration_ms;
  if (step.kind == StepKind::write && step.value) out["value"] = *step.value;
  const bool resource_step = step.kind == StepKind::read || step.kind == StepKind::write ||
                             step.kind == StepKind::increment || step.kind == StepKind::command;
  if (resource_step && step.timeout_ms != 1'000) out["timeout_ms"] = step.timeout_ms;
  if (step.kind == StepKind::command) {
    out["node"] = step.node;
    out["args"] = step.args;
  }
  return out;
}

json client_json(const ClientSpec& client) {
  json out = {{"name", client.name}, {"profile", client.profile}, {"nodes", client.nodes}};
  if (!client.params.empty()) {
    json params = json::object();
    for (const auto& [key, value] : client.params)
      params[key] = std::visit([](const auto& v) { return json(v); }, value);
    out["params"] = params;
  }
  if (client.lock != "lock") out["lock"] = client.lock;
  json clock = clock_json(client.clock);
  if (!clock.empty()) out["clock"] = clock;
  if (!client.watchdog) out["watchdog"] = false;
  if (!client.steps.empty()) {
    json steps = json::array();
    for (const StepSpec& step : client.steps)
      steps.push_back(step_json(step));
    out["steps"] = steps;
  }
  if (client.workload) {
    const WorkloadSpec& w = *client.workload;
    out["workload"] = {{"start_ms", w.start_ms},
                       {"iterations", w.iterations_max},
                       {"work_ms", w.work_ms},
                       {"think_ms", w.think_ms},
                       {"release", w.release}};
    if (!w.touch_resource) out["workload"]["touch_resource"] = false;
    if (w.extend_every_ms > 0) out["workload"]["extend_every_ms"] = w.extend_every_ms;
  }
  return out;
}

// A fault kind writes its own fields (sim/faults) through this port into a JSON object.
class FaultWriter final : public FaultFieldWriter {
 public:
  explicit FaultWriter(json& out) : out_(out) {}
  void string(const std::string& key, const std::string& value) override { out_[key] = value; }
  void integer(const std::string& key, int64_t value) override { out_[key] = value; }
  void boolean(const std::string& key, bool value) override { out_[key] = value; }
  void rate(const std::string& key, Rate value) override { out_[key] = rate_json(value); }
  void ratio(const std::string& key, std::pair<uint32_t, uint32_t> value) override {
    out_[key] = json::array({value.first, value.second});
  }
  void name_lists(const std::string& key,
                  const std::vector<std::vector<std::string>>& value) override {
    json lists = json::array();
    for (const std::vector<std::string>& names : value)
      lists.push_back(names);
    out_[key] = lists;
  }

 private:
  json& out_;
};

json fault_json(const FaultSpec& f) {
  json out = {{"kind", f.kind}, {"at_ms", f.at_ms}};
  FaultWriter fields(out);
  fault_kind(f.kind).write(f, fields);
  return out;
}

json resource_json(const ResourceSpec& r) {
  json out = {{"fencing", fencing_mode_name(r.fencing)}};
  if (r.name != "register") out["name"] = r.name;
  const bool fenced = r.fencing == FencingMode::fence_writes || r.fencing == FencingMode::fence_all;
  const FencingTokenSource default_source =
      fenced ? FencingTokenSource::oracle : FencingTokenSource::none;
  if (r.token_source != default_source) {
    out["token_source"] = r.token_source == FencingTokenSource::oracle ? "oracle"
                          : r.token_source == FencingTokenSource::lock ? "lock"
                                                                       : "none";
  }
  if (r.token_start != 32) out["token_start"] = r.token_start;
  if (r.reject_equal_token) out["reject_equal_token"] = true;
  return out;
}

json expect_json(const Expectations& e) {
  json out = json::object();
  if (e.mutual_exclusion) out["mutual_exclusion"] = *e.mutual_exclusion;
  if (e.resource_safety) out["resource_safety"] = *e.resource_safety;
  if (e.liveness) out["liveness"] = *e.liveness;
  if (e.overlap_ms_min) out["overlap_ms_min"] = *e.overlap_ms_min;
  if (e.overlap) out["overlap"] = json::array({e.overlap->first, e.overlap->second});
  if (!e.probes.empty()) out["probes"] = e.probes;
  if (!e.not_probes.empty()) out["not_probes"] = e.not_probes;
  if (e.unavailability_max_ms) out["unavailability_max_ms"] = *e.unavailability_max_ms;
  for (const ExpectedGrant& g : e.grants) {
    json grant = {{"client", g.client}, {"at_ms", g.at_ms}};
    if (g.validity_ms) grant["validity_ms"] = *g.validity_ms;
    out["grants"].push_back(grant);
  }
  for (const ExpectedReply& e2 : e.replies)
    out["replies"].push_back({{"client", e2.client}, {"at_ms", e2.at_ms}, {"reply", e2.reply}});
  return out;
}

}  // namespace

std::string write_scenario(const Scenario& s) {
  // nlohmann's ordered_json keeps the order of a hand-written file: name first.
  nlohmann::ordered_json out;
  out["name"] = s.name;
  if (!s.description.empty()) out["description"] = s.description;
  out["seed"] = s.seed;
  json nodes = json::array();
  for (const NodeSpec& node : s.nodes)
    nodes.push_back(node_json(node));
  out["nodes"] = nodes;
  json network = {{"delay", delay_json(s.network.delay)}};
  if (!s.network.links.empty()) {
    json links = json::array();
    for (const LinkSpec& link : s.network.links) {
      json l = {{"from", link.from}, {"to", link.to}};
      if (!link.both_ways) l["both_ways"] = false;
      if (link.delay) l["delay"] = delay_json(*link.delay);
      if (link.loss_numerator > 0) {
        l["loss"] = json::array({link.loss_numerator, link.loss_denominator});
      }
      links.push_back(l);
    }
    network["links"] = links;
  }
  out["network"] = network;
  if (s.failover.enabled) {
    out["failover"] = {{"master_name", s.failover.master_name},
                       {"master", s.failover.master},
                       {"sentinels", s.failover.sentinels},
                       {"quorum", s.failover.quorum},
                       {"down_after_ms", s.failover.down_after_ms},
                       {"failover_delay_ms", s.failover.failover_delay_ms}};
  }
  json clients = json::array();
  for (const ClientSpec& client : s.clients)
    clients.push_back(client_json(client));
  out["clients"] = clients;
  if (s.resource.enabled) out["resource"] = resource_json(s.resource);
  json faults = json::array();
  for (const FaultSpec& fault : s.faults)
    faults.push_back(fault_json(fault));
  out["faults"] = faults;
  out["limits"] = {{"duration_ms", s.limits.duration_ms},
                   {"events_max", s.limits.events_max},
                   {"messages_in_flight_max", s.limits.messages_in_flight_max}};
  out["expect"] = expect_json(s.expect);
  return out.dump(2) + "\n";
}

std::string write_fault(const FaultSpec& fault) {
  return fault_json(fault).dump();
}

}  // namespace redlock_sim
