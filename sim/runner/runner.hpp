// The runner: builds a world from a Scenario, runs it, checks it, and returns everything a
// report needs.
//
// Lock clients come from an injected factory, so that sim/ depends on the lock API header only
// (lock_impls/lock.hpp) and never links lock code: the CLI and the tests wire in the registry.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lock_impls/lock.hpp"
#include "sim/checkers/checkers.hpp"
#include "sim/kernel/simulator.hpp"
#include "sim/runner/key_tracker.hpp"
#include "sim/runner/run_event.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// Makes the lock client a scenario's client asks for, bound to its port; null plus a message on
// failure (which the parser's profile check should have caught).
using LockFactory = std::function<std::unique_ptr<LockClient>(const ClientSpec& client, Port& port,
                                                              std::string& error)>;

struct RunOptions {
  std::optional<uint64_t> seed;  // overrides the scenario's
  std::size_t trace_records_max = 1'000'000;
  // Keep every message's text and fate for reports (costs a string per message).
  std::size_t message_log_max = 0;
  // The story and the key lifetimes are for people; exploration turns them off for speed and
  // re-runs a finding with them on.
  bool record_story = true;
  bool track_keys = true;
  // Off, the trace digest leaves out what messages say (not when they go or to whom): for runs
  // whose digest is never read, such as exploration's, which only wants the verdicts.
  bool digest_message_contents = true;
  // Off, the run computes no trace digest (ScenarioResult::trace_digest is empty) and, with no
  // trace records kept, records nothing: for runs whose digest is never read.
  bool trace_digest = true;
};

// One line of the story: what a process did or suffered, at a true instant, with its clocks.
struct StoryEvent {
  Instant at;
  ProcessId process = 0;
  Instant wall;
  Instant monotonic;
  StoryKind kind = StoryKind::fault;  // printed by story_kind_name
  std::string text;
  uint64_t grant_id = 0;  // the grant the line is about, if any
  // The typed event (an index into ScenarioResult::events) the line renders, if any.
  std::optional<std::size_t> event;
};

struct ProcessInfo {
  std::string name;
  std::string role;  // node, client, sentinel, resource, counter
};

struct ResultStats {
  uint64_t events = 0;
  int64_t simulated_ms = 0;
  uint64_t grants = 0;
  uint64_t messages = 0;
  std::string stop;  // how the run ended: idle, duration_limit, event_limit, ...
  bool limit_hit = false;
};

struct ScenarioResult {
  std::string scenario;
  // What the reports say of the scenario, so they render from the result alone (not in the
  // JSON result): its description, the file it was read from (empty if none) and the lock keys
  // its clients take (key lifetimes of other keys are not drawn).
  std::string description;
  std::string source;
  std::set<std::string> locks;
  uint64_t seed = 0;
  Verdict mutual_exclusion = Verdict::not_checked;
  Verdict resource_safety = Verdict::not_checked;
  Verdict liveness = Verdict::not_checked;
  std::vector<Violation> violations;
  bool expectations_met = false;
  std::vector<std::string> expectation_failures;
  std::string trace_digest;
  ResultStats stats;
  // Staged with real processes (real/), not simulated: reports say so and name `real`.
  bool staged_for_real = false;

  // For reports.
  std::vector<ProcessInfo> processes;
  std::vector<HoldInterval> holds;  // what each client believed
  std::vector<KeyLifetime> keys;    // what each node held
  History history;
  std::vector<ResourceOp> resource_log;
  std::optional<ResourceSafetyResult> resource_detail;
  LivenessResult liveness_detail;
  std::vector<StoryEvent> story;
  std::vector<RunEvent> events;  // the typed history the story's fault lines render
  std::vector<TraceRecord> trace;
  std::vector<MessageLogEntry> messages;    // when RunOptions::message_log_max > 0
  std::vector<ProcessClock> clocks;         // each process's clocks, full history, by ProcessId
  std::vector<CommandReplyRecord> replies;  // command steps' requests and replies
  bool trace_truncated = false;
};

ScenarioResult run_scenario(const Scenario& scenario, const LockFactory& factory,
                            const RunOptions& options = {});

// A result that names `scenario`: its name and what the reports say of it (description, source,
// lock keys). The simulator and the real-process harness start their results with it.
ScenarioResult result_for(const Scenario& scenario);

// The checkers over a finished run: `result.history` and `result.resource_log` are filled in;
// sets the holds, the three verdicts and the violations. The simulator and the real-process
// harness (real/) both judge through this, so a verdict means the same in both worlds.
void apply_checkers(const Scenario& scenario, ScenarioResult& result, const ClockReach& reach,
                    Instant run_end, int64_t final_value);
// Compares the result with the scenario's expectations: sets expectations_met and the failures.
// An expected overlap matches within `overlap_tolerance_ms` (5 in the simulator; a real run,
// whose grants land a few milliseconds late, uses the agreement tolerance).
void judge(const Scenario& scenario, ScenarioResult& result, int64_t overlap_tolerance_ms = 5);

}  // namespace redlock_sim
