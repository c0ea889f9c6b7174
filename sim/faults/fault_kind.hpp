// A fault kind as one unit: what its scenario fields are, how they are read, written and
// checked, what it does to a simulated world, how the story tells it, how the shrinker makes it
// smaller, which exploration class it belongs to and how it draws one, how the HTML report draws
// it and how real mode stages it. Each kind is one file of sim/faults/kinds/ that defines one
// FaultKindDescriptor; fault_kinds() lists them all, and the parser, the writer, the runner, the
// shrinker, explore, `list`, the reports and real mode iterate that list or ask a fault's
// descriptor instead of switching on the kind.
//
// The descriptor reaches the JSON reader, the JSON writer, the simulated world, real processes
// and the swarm's draws through the small ports below, so that this folder stays below
// scenarios/, sim/runner/, sim/explore/ and real/ (it needs neither the JSON library, nor the
// runner's World, nor the harness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/kernel/assert.hpp"
#include "sim/kernel/simulator.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// Times in a fault are bounded so that arithmetic on them can never overflow (the parser's
// bound for every time: about 31 years).
inline constexpr int64_t fault_time_ms_max = 1'000'000'000'000;

// The parser's view of one `faults[i]` object: each call marks the field used (unknown fields
// are refused after the kind has read its own) and refuses a wrong type or range with the
// file, the JSON path and what was expected.
class FaultFieldReader {
 public:
  virtual ~FaultFieldReader() = default;
  virtual bool has(const std::string& key) = 0;
  virtual std::string string(const std::string& key,
                             std::optional<std::string> fallback = std::nullopt) = 0;
  virtual std::string one_of(const std::string& key, const std::vector<std::string>& choices,
                             std::optional<std::string> fallback = std::nullopt) = 0;
  virtual int64_t integer(const std::string& key, int64_t low, int64_t high,
                          std::optional<int64_t> fallback = std::nullopt) = 0;
  virtual std::optional<int64_t> optional_integer(const std::string& key, int64_t low,
                                                  int64_t high) = 0;
  virtual bool boolean(const std::string& key, bool fallback) = 0;
  // `rate_ppm` or `rate` ([numerator, denominator]), as a clock's rate is read.
  virtual Rate rate() = 0;
  // A probability [numerator, denominator] (numerator <= denominator), or `fallback` when absent.
  virtual std::pair<uint32_t, uint32_t> ratio(const std::string& key,
                                              std::pair<uint32_t, uint32_t> fallback) = 0;
  // An array of `count` non-empty arrays of process names (a partition's sides); `shape` is the
  // message when the outer array does not have `count` entries.
  virtual std::vector<std::vector<std::string>> name_lists(const std::string& key,
                                                           std::size_t count,
                                                           const std::string& shape) = 0;
  // Refuses the object (key empty) or one of its fields.
  [[noreturn]] virtual void fail(const std::string& key, const std::string& message) = 0;
};

// The writer's view of one `faults[i]` object; only what differs from the defaults is written.
class FaultFieldWriter {
 public:
  virtual ~FaultFieldWriter() = default;
  virtual void string(const std::string& key, const std::string& value) = 0;
  virtual void integer(const std::string& key, int64_t value) = 0;
  virtual void boolean(const std::string& key, bool value) = 0;
  virtual void rate(const std::string& key, Rate value) = 0;
  virtual void ratio(const std::string& key, std::pair<uint32_t, uint32_t> value) = 0;
  virtual void name_lists(const std::string& key,
                          const std::vector<std::vector<std::string>>& value) = 0;
};

// What a fault may do to the simulated world; the runner's World implements it. Kinds schedule
// their own actions on the simulator; what touches the runner's own books (the cluster's
// persistence on a crash, the supervisor's restarts, the partition a heal ends, the event log)
// goes through the calls below.
class FaultWorld {
 public:
  virtual ~FaultWorld() = default;
  virtual Simulator& simulator() = 0;
  virtual ProcessId id_of(const std::string& name) const = 0;
  // Names in a partition's side: the failover group's name stands for its initial master.
  virtual std::vector<ProcessId> ids_of(const std::vector<std::string>& names) const = 0;
  // Logs the fault as applied (a fault_applied event, and its story line) at the current instant.
  virtual void record_fault(ProcessId process, const FaultSpec& fault) = 0;
  // Logs the end of a timed pause.
  virtual void record_pause_ended(ProcessId process) = 0;
  // After a clock change: re-aims a supervised restart timed on that clock.
  virtual void clock_changed(ProcessId process) = 0;
  // Schedules a crash kind at its time: the process stops (a node's persistence as `how`
  // says), its keys are lost or kept, and a timed restart is armed.
  virtual void schedule_stop(const FaultSpec& fault, StopKind how) = 0;
  // A restart by hand: cancels the supervisor's and restarts now.
  virtual void restart_now(ProcessId process) = 0;
  // Partitions: the network rule of fault `fault_index`, its event once begun, and a heal.
  virtual void add_partition(std::size_t fault_index, PartitionRule rule) = 0;
  virtual void partition_began(std::size_t fault_index, ProcessId teller,
                               const FaultSpec& fault) = 0;
  virtual void heal_partition(std::size_t partition_index, const FaultSpec& heal) = 0;
};

// What real mode (real/harness.cpp) can do to real processes; the harness implements it, so a
// kind stages itself without this folder knowing about processes, signals or proxies. Times are
// scenario milliseconds; the harness turns them into real instants.
class RealFaultStage {
 public:
  virtual ~RealFaultStage() = default;
  virtual ProcessId id_of(const std::string& name) const = 0;
  virtual std::vector<ProcessId> ids_of(const std::vector<std::string>& names) const = 0;
  // Runs `action` at the fault's at_ms (a cut that began before the run: at zero), then times it
  // (a kill or a stop counts as happened when its signal was sent).
  virtual void when(const FaultSpec& fault, std::function<void()> action) = 0;
  // Runs `action` at `at_ms`, with nothing timed; the run lasts at least until then.
  virtual void at(int64_t at_ms, std::function<void()> action) = 0;
  // Records how late an action at `scheduled_ms` ran.
  virtual void timed(const std::string& what, int64_t scheduled_ms) = 0;
  // The run lasts at least until `at_ms` (a window's end staged by the network).
  virtual void lasts_until(int64_t at_ms) = 0;
  // Logs the fault as applied (its event fires the kind's probe, as in the simulator).
  virtual void record_fault(ProcessId process, const FaultSpec& fault) = 0;
  virtual void record_pause_ended(ProcessId process) = 0;
  // The process's clocks jump by `delta_ns`; or its wall clock is set to read true wall time +
  // `offset_ms`.
  virtual void step_clock(ProcessId process, int64_t delta_ns) = 0;
  virtual void set_clock_offset(ProcessId process, int64_t offset_ms) = 0;
  virtual void pause(ProcessId process, bool stop) = 0;
  // Stops the fault's target as `how` says and arms its timed restart.
  virtual void stop(const FaultSpec& fault, StopKind how) = 0;
  // A restart by hand: cancels the supervisor's and restarts now.
  virtual void restart_now(ProcessId process) = 0;
  // The proxies' network: a partition rule (remembered as fault `fault_index`'s), the heal of
  // the partition of fault `partition_index`, a held message.
  virtual void add_partition(std::size_t fault_index, PartitionRule rule) = 0;
  virtual void partition_began(std::size_t fault_index, ProcessId teller,
                               const FaultSpec& fault) = 0;
  virtual void heal_partition(std::size_t partition_index, const FaultSpec& heal) = 0;
  virtual void add_hold(HoldRule rule) = 0;
};

// The swarm's view when it draws a fault of a class (sim/explore's Drawer implements it).
struct FaultDrawBounds {
  int64_t clock_step_ms_max = 0;
  int64_t clock_rate_ppm_max = 0;
  int64_t pause_ms_max = 0;
  int64_t down_ms_max = 0;
  int64_t partition_ms_max = 0;
  int64_t message_delay_ms_max = 0;
};
class FaultDraw {
 public:
  virtual ~FaultDraw() = default;
  // The drawn fault's target: a node or a client, as the class being drawn says.
  virtual std::string target() = 0;
  virtual std::string client() = 0;
  // Every node, then every client, in scenario order.
  virtual std::vector<std::string> everyone() const = 0;
  virtual int64_t between(int64_t low, int64_t high) = 0;
  virtual bool chance(uint32_t numerator, uint32_t denominator) = 0;
  virtual const FaultDrawBounds& bounds() const = 0;
};

// What a fault does to its target's clock, for the parser's check that every clock stays in the
// model's range: a rate it may run at, how far it may shift the reading, and whether it slews
// (a slew may double the rate for a while).
struct FaultClockReach {
  std::optional<Rate> rate;
  int64_t shift_ms = 0;
  bool slewed = false;
};

// A mark the HTML report draws on a process's row.
struct FaultMark {
  std::string style;  // the CSS class: clock-step, clock-rate, crash, hold-message
  std::string label;
  std::string title;
};
// How the HTML report draws a fault from the run's events. The trace draws clocks, pauses and
// stops itself; past its end (a truncated trace) `past_trace` marks the target's row and
// `pause_band_ms` draws a pause band there. `sender_mark` is drawn on the `from` process's row
// whatever the trace.
struct FaultDrawing {
  std::optional<FaultMark> past_trace;
  std::optional<int64_t> pause_band_ms;
  std::optional<FaultMark> sender_mark;
};

// A refusal of a fault by a check across the scenario's faults: the field and the message.
struct FaultCheckError {
  std::string key;
  std::string message;
};

// Every member has a default (nothing, false), so a kind's file names only what it has.
struct FaultKindDescriptor {
  const char* name =
      nullptr;  // the `kind` in a scenario file (FaultSpec::kind); its file's name too
  const char* help = nullptr;  // one line for `redlock-sim list`
  // Fills the kind's own fields (at_ms is read before, and checked after, by the parser).
  void (*read)(FaultFieldReader& fields, FaultSpec& fault) = nullptr;
  void (*write)(const FaultSpec& fault, FaultFieldWriter& fields) = nullptr;
  // Schedules the fault (the fault is `scenario.faults[fault_index]`).
  void (*apply)(FaultWorld& world, const std::vector<FaultSpec>& faults,
                std::size_t fault_index) = nullptr;
  // Its story line after the process's name, or nothing (a heal is told by its partition's end).
  std::optional<std::string> (*story)(const FaultSpec& fault) = nullptr;
  // How the HTML report joins a process name to the story line: "<name>'s <text>" for clock
  // faults, "<name> was <text>" and so on; nullptr means "<name> <text>".
  std::string (*sentence)(const std::string& name, const std::string& text) = nullptr;
  // Smaller variants of the fault's own numbers, for the shrinker (it adds an earlier at_ms
  // to every kind after these).
  std::vector<FaultSpec> (*shorter)(const FaultSpec& fault) = nullptr;
  // The exploration classes (fault_class_name) of this kind on a node and on a client; nullptr
  // when the swarm draws no such fault. `any_target_class` is the class whatever the target.
  const char* node_class = nullptr;
  const char* client_class = nullptr;
  const char* any_target_class = nullptr;
  // Why real mode cannot stage this kind, or nullptr when it can.
  const char* real_mode_refusal = nullptr;
  // Whether `at_ms` may be negative: a state that began before the run and that the run can
  // tell from one beginning at zero (a partition: a replica's "link down since", which
  // Sentinel's eligibility reads). The kind's apply starts it at time zero.
  bool may_start_before_run = false;
  // The probe (probe_names()) that its application fires, or nullptr.
  const char* probe = nullptr;
  // What it does to its target's clock, or nullptr when nothing.
  FaultClockReach (*clock_reach)(const FaultSpec& fault) = nullptr;
  // A check across the scenario's faults once all are read (a heal names an earlier partition).
  std::optional<FaultCheckError> (*check)(const std::vector<FaultSpec>& faults,
                                          std::size_t index) = nullptr;
  // How the HTML report draws it; nullptr draws nothing.
  FaultDrawing (*drawing)(const FaultSpec& fault) = nullptr;
  // It cuts side_a off from side_b: the report draws bands, the lint checks the cut matters and
  // the shrinker drops it when a side loses its last process.
  bool cuts_sides = false;
  // Draws the fault's fields for its exploration class (at_ms is drawn before); nullptr when the
  // swarm draws no such fault.
  void (*draw)(FaultDraw& draw, FaultSpec& fault) = nullptr;
  // Stages the fault on real processes (the fault is `faults[index]`); nullptr when real mode
  // cannot (real_mode_refusal says why).
  void (*stage)(RealFaultStage& stage, const std::vector<FaultSpec>& faults,
                std::size_t index) = nullptr;
  // Its row in docs/fault-kinds.md (`redlock-sim list --faults` writes that file): its fields in
  // Markdown, defaults in parentheses, and what it does.
  const char* doc_fields = nullptr;
  const char* doc_effect = nullptr;
};

// Every kind, by name: one per file of sim/faults/kinds/, collected by the build (a list it
// generates from that folder, so no hand-edited list names them).
const std::vector<const FaultKindDescriptor*>& fault_kinds();
// The kind of that name; a name no kind has is a programmer error (the parser refuses unknown
// kinds before anything asks).
const FaultKindDescriptor& fault_kind(const std::string& name);
const FaultKindDescriptor* find_fault_kind(const std::string& name);

// Shared pieces of the kinds' descriptors.
namespace fault_fields {
// The fields of a kind that has only a target process (resume, restart).
void read_target(FaultFieldReader& fields, FaultSpec& fault);
void write_target(const FaultSpec& fault, FaultFieldWriter& fields);
std::vector<FaultSpec> no_shorter(const FaultSpec& fault);
std::vector<FaultSpec> shorter_duration(const FaultSpec& fault);
std::vector<FaultSpec> shorter_until(const FaultSpec& fault);
// A kind's own fields (FaultSpec::fields); holding another type is a programmer error.
template <class Fields>
const Fields& own(const FaultSpec& fault) {
  const Fields* fields = fault.fields.get<Fields>();
  SIM_ASSERT(fields != nullptr);
  return *fields;
}
// Halved toward zero; none when it is -1, 0 or 1.
std::optional<int64_t> halved(int64_t value);
// The apply of a kind that changes its target process at at_ms: schedules `change`, then logs
// the fault; after a clock change (`clock_change`) also re-aims a restart timed on that clock.
using TargetChange = std::function<void(FaultWorld& world, ProcessId target, const FaultSpec&)>;
void change_target_at(FaultWorld& world, const FaultSpec& fault, TargetChange change,
                      bool clock_change);
std::string possessive(const std::string& name, const std::string& text);  // "N3's <text>"
std::string passive(const std::string& name, const std::string& text);     // "N3 was <text>"
}  // namespace fault_fields

}  // namespace redlock_sim
