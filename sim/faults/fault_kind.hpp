// A fault kind as one unit: what its scenario fields are, how they are read, written and
// checked, what it does to a simulated world, how the story tells it, how the shrinker makes it
// smaller, which exploration class it belongs to and whether real mode can stage it. Each kind
// is one file of this folder that defines one FaultKindDescriptor; fault_kinds() lists them all,
// and the parser, the writer, the runner, the shrinker, explore's classes, `list` and the
// reports iterate that list instead of switching on the kind.
//
// The descriptor reaches the JSON reader, the JSON writer and the simulated world through the
// three small ports below, so that this folder stays below scenarios/ and sim/runner/ (it needs
// neither the JSON library nor the runner's World).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  // Schedules a crash kind at its time: the process stops (a node's persistence as the kind
  // says), its keys are lost or kept, and a timed restart is armed.
  virtual void schedule_stop(const FaultSpec& fault) = 0;
  // A restart by hand: cancels the supervisor's and restarts now.
  virtual void restart_now(ProcessId process) = 0;
  // Partitions: the network rule of fault `fault_index`, its event once begun, and a heal.
  virtual void add_partition(std::size_t fault_index, PartitionRule rule) = 0;
  virtual void partition_began(std::size_t fault_index, ProcessId teller,
                               const FaultSpec& fault) = 0;
  virtual void heal_partition(std::size_t partition_index, const FaultSpec& heal) = 0;
};

struct FaultKindDescriptor {
  FaultKind kind;
  const char* name;  // the `kind` in a scenario file
  const char* help;  // one line for `redlock-sim list`
  // Fills the kind's own fields (at_ms is read before, and checked after, by the parser).
  void (*read)(FaultFieldReader& fields, FaultSpec& fault);
  void (*write)(const FaultSpec& fault, FaultFieldWriter& fields);
  // Schedules the fault (the fault is `scenario.faults[fault_index]`).
  void (*apply)(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t fault_index);
  // Its story line after the process's name, or nothing (a heal is told by its partition's end).
  std::optional<std::string> (*story)(const FaultSpec& fault);
  // How the HTML report joins a process name to the story line: "<name>'s <text>" for clock
  // faults, "<name> was <text>" and so on; nullptr means "<name> <text>".
  std::string (*sentence)(const std::string& name, const std::string& text);
  // Smaller variants of the fault's own numbers, for the shrinker (it adds an earlier at_ms
  // to every kind after these).
  std::vector<FaultSpec> (*shorter)(const FaultSpec& fault);
  // The exploration classes (fault_class_name) of this kind on a node and on a client; nullptr
  // when the swarm draws no such fault. `any_target_class` is the class whatever the target.
  const char* node_class;
  const char* client_class;
  const char* any_target_class;
  // Why real mode cannot stage this kind, or nullptr when it can.
  const char* real_mode_refusal;
  // Whether `at_ms` may be negative: a state that began before the run and that the run can
  // tell from one beginning at zero (a partition: a replica's "link down since", which
  // Sentinel's eligibility reads). The kind's apply starts it at time zero.
  bool may_start_before_run = false;
};

// Every kind, in FaultKind order (a kind's index is its enum value).
const std::vector<const FaultKindDescriptor*>& fault_kinds();
const FaultKindDescriptor& fault_kind(FaultKind kind);
const FaultKindDescriptor* find_fault_kind(const std::string& name);

// Shared pieces of the kinds' descriptors.
namespace fault_fields {
std::vector<FaultSpec> no_shorter(const FaultSpec& fault);
std::vector<FaultSpec> shorter_duration(const FaultSpec& fault);
std::vector<FaultSpec> shorter_until(const FaultSpec& fault);
std::vector<FaultSpec> shorter_delta(const FaultSpec& fault);  // delta_ms halved
// The apply of a kind that changes its target process at at_ms: schedules `change`, then logs
// the fault; after a clock change (`clock_change`) also re-aims a restart timed on that clock.
using TargetChange = std::function<void(FaultWorld& world, ProcessId target, const FaultSpec&)>;
void change_target_at(FaultWorld& world, const FaultSpec& fault, TargetChange change,
                      bool clock_change);
std::string possessive(const std::string& name, const std::string& text);  // "N3's <text>"
std::string passive(const std::string& name, const std::string& text);     // "N3 was <text>"
}  // namespace fault_fields

}  // namespace redlock_sim
