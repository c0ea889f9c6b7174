#include "sim/runner/run_event.hpp"

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

std::optional<std::string> fault_story_text(const FaultSpec& fault) {
  return fault_kind(fault.kind).story(fault);
}

// A fault whose kind fires `probe` when applied (its descriptor's probe).
bool applied(const RunEvent& e, const std::string& probe) {
  if (e.kind != RunEventKind::fault_applied) return false;
  const char* fires = fault_kind(e.fault.kind).probe;
  return fires != nullptr && probe == fires;
}

}  // namespace

std::optional<StoryText> run_event_story(const RunEvent& event) {
  switch (event.kind) {
    case RunEventKind::fault_applied: {
      std::optional<std::string> text = fault_story_text(event.fault);
      if (!text) return std::nullopt;
      return StoryText{StoryKind::fault, std::move(*text)};
    }
    case RunEventKind::pause_ended:
      return StoryText{StoryKind::fault, "resumed"};
    case RunEventKind::supervisor_restart:
      return StoryText{StoryKind::fault, "restarted by its supervisor"};
    case RunEventKind::cluster:
      return StoryText{
          cluster_event_is_fault_like(event.cluster.kind) ? StoryKind::fault : StoryKind::cluster,
          std::string(cluster_event_name(event.cluster.kind)) + ": " +
              cluster_event_text(event.cluster)};
  }
  return std::nullopt;
}

RunEvent heal_event(const FaultSpec& heal,
                    const std::map<std::size_t, std::size_t>& partition_events,
                    std::size_t partition, const std::vector<RunEvent>& events) {
  RunEvent event{.kind = RunEventKind::fault_applied, .fault = heal};
  if (const auto it = partition_events.find(partition); it != partition_events.end()) {
    event.ends = it->second;
    event.process = events.at(it->second).process;
  }
  return event;
}

const std::vector<ProbeDefinition>& probe_definitions() {
  static const std::vector<ProbeDefinition> probes = {
      {"clock_rate", [](const RunEvent& e) { return applied(e, "clock_rate"); }},
      {"clock_slew", [](const RunEvent& e) { return applied(e, "clock_slew"); }},
      // An absolute offset is a step too (its kind fires clock_step): the wall clock jumps.
      {"clock_step", [](const RunEvent& e) { return applied(e, "clock_step"); }},
      {"failover",
       [](const RunEvent& e) {
         return e.kind == RunEventKind::cluster &&
                (e.cluster.kind == ClusterEventKind::promoted ||
                 e.cluster.kind == ClusterEventKind::promoted_slave);
       }},
      {"key_lost_on_restart",
       [](const RunEvent& e) {
         return e.kind == RunEventKind::cluster && e.cluster.kind == ClusterEventKind::restarted &&
                e.cluster.keys_lost > 0;
       }},
      {"pause", [](const RunEvent& e) { return applied(e, "pause"); }},
  };
  return probes;
}

std::map<std::string, uint64_t> count_probes(const std::vector<RunEvent>& events) {
  std::map<std::string, uint64_t> counts;
  for (const RunEvent& event : events) {
    for (const ProbeDefinition& probe : probe_definitions()) {
      if (probe.fires(event)) ++counts[probe.name];
    }
  }
  return counts;
}

}  // namespace redlock_sim
