// The typed history of one run: what the runner and the models did to the world, as records.
// The story's fault and cluster lines are renderings of these records (run_event_story), the
// probes are predicates over them (probe_definitions), and the HTML report draws faults,
// partitions, held messages and failovers from them, never from a sentence or the scenario.
// What the clients did (grants, releases, extensions, losses, resource operations) is typed in
// the History (sim/checkers/history.hpp) and the resource log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kernel/simulator.hpp"
#include "sim/replication/cluster_event.hpp"
#include "sim/runner/story_kind.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

enum class RunEventKind : uint8_t {
  fault_applied,       // `fault` took effect at `at` (partitions, heals and holds too)
  pause_ended,         // a pause with a duration ran out: the process resumed
  supervisor_restart,  // a crashed process's supervisor restarted it (crash faults' duration)
  cluster,             // the replicated, persistent world changed: `cluster`
};

struct RunEvent {
  Instant at;
  ProcessId process = 0;  // whom it concerns (a partition: the first process of side A)
  RunEventKind kind = RunEventKind::fault_applied;
  FaultSpec fault;       // fault_applied
  ClusterEvent cluster;  // cluster
  // A heal: the index in the run's events of the partition it ends, if that had begun.
  std::optional<std::size_t> ends;
};

// The event of a heal of the partition at `partition` (a fault index), told by that partition's
// teller; `partition_events` maps fault indexes of begun partitions to their events.
RunEvent heal_event(const FaultSpec& heal,
                    const std::map<std::size_t, std::size_t>& partition_events,
                    std::size_t partition, const std::vector<RunEvent>& events);

// The story line of an event, kind and text, or nothing (a heal is not told).
struct StoryText {
  StoryKind kind;
  std::string text;
};
std::optional<StoryText> run_event_story(const RunEvent& event);

// A probe is a name and a predicate over one event; it fires once per event that satisfies it.
struct ProbeDefinition {
  const char* name;
  bool (*fires)(const RunEvent& event);
};
// Every probe, sorted by name: the names a scenario's expect.probes / not_probes may use.
const std::vector<ProbeDefinition>& probe_definitions();
// How often each probe fired over a run's events (probes that never fired are absent).
std::map<std::string, uint64_t> count_probes(const std::vector<RunEvent>& events);

}  // namespace redlock_sim
