// Swarm fault plans: from a base scenario and a seed, which fault classes are on and with what
// parameters (swarm testing: each run turns a random subset of the classes on, so rare
// combinations and single faults both get explored).
//
// Every class draws from its own stream `explore/<class>` derived from the seed, so adding a
// class (or turning one off) never changes what the other classes draw for the same seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

enum class FaultClass : uint8_t {
  node_clock_step,    // a node's wall clock jumps (NTP step, an administrator)
  node_clock_rate,    // a node's oscillator runs fast or slow
  client_clock_step,  // a client's wall clock jumps
  client_clock_rate,  // a client's oscillator runs fast or slow
  client_pause,       // stop-the-world GC on a client
  node_pause,         // a node stops (SIGSTOP, a VM migration)
  node_crash,         // kill -9 and restart after a while (loses what is not persisted)
  node_power_loss,    // power loss and restart (loses what is not fsynced)
  partition,          // a set of processes cut off for a while
  message_delay,      // one message held for a long time (the 90 s packet)
  client_crash,       // a client dies (and is restarted if it runs a workload)
};
inline constexpr int fault_class_count = 11;

const char* fault_class_name(FaultClass fault_class);
std::optional<FaultClass> parse_fault_class(const std::string& name);
std::vector<FaultClass> all_fault_classes();
// One line per class, for `redlock-sim list`.
const char* fault_class_description(FaultClass fault_class);
// The class a fault of `scenario` belongs to, from its kind and target (a node or a client);
// nothing for kinds the swarm never draws (offsets, slews, resumes, shutdowns, heals, ...) or
// for targets it never picks (sentinels, the resource, the counter service).
std::optional<FaultClass> fault_class_of(const Scenario& scenario, const FaultSpec& fault);
// The classes of a scenario's faults, in class order, each once.
std::vector<FaultClass> fault_classes_of(const Scenario& scenario);

// Bounds on what the swarm draws; users set them (the bound flags of explore and matrix). A
// time bound of 0 means "twice the scenario's TTL, at most half the run" (resolve_bounds).
struct ExploreBounds {
  int64_t window_ms = 0;  // faults start in [0, window); 0 or past the end: the whole run
  uint32_t faults_per_class_max = 2;
  int64_t clock_step_ms_max = 0;  // either sign
  int64_t clock_rate_ppm_max = 50'000;
  int64_t pause_ms_max = 0;
  int64_t down_ms_max = 0;  // crash and power loss: time until the restart
  int64_t partition_ms_max = 0;
  int64_t message_delay_ms_max = 0;
  uint32_t on_numerator = 1;  // each class is on with this probability
  uint32_t on_denominator = 2;
};

struct FaultPlan {
  std::vector<FaultClass> classes_on;  // in class order
  std::vector<FaultSpec> faults;
  std::vector<FaultClass> fault_classes;  // the class of each fault, parallel to `faults`
};

// The TTL the default bounds are relative to: the largest `ttl_ms` (else `lease_ms`) a client's
// params set, above 0; a client that sets neither counts as `default_ttl_ms` (10 s, the TTL of the
// catalogue's Redlock and of most libraries' examples).
inline constexpr int64_t default_ttl_ms = 10'000;
int64_t scenario_ttl_ms(const Scenario& base);

// The bounds draw_fault_plan uses: every time bound of 0 becomes twice the scenario's TTL, at
// most half the run (so that faults fit inside it and can be outlived), at least 1 ms; the window
// is clamped to the run.
ExploreBounds resolve_bounds(const ExploreBounds& bounds, const Scenario& base);

FaultPlan draw_fault_plan(const Scenario& base, uint64_t seed,
                          const std::vector<FaultClass>& enabled, const ExploreBounds& bounds);

// The base scenario with the plan's faults added and the run's seed set.
Scenario apply_fault_plan(const Scenario& base, const FaultPlan& plan, uint64_t seed);

}  // namespace redlock_sim
