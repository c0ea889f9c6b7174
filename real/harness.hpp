// Real-process mode: the same scenario file staged with real redis-servers, real client
// processes, a register service and the file's faults applied for real, judged by the same
// checker code as the simulator (sim/runner/runner.hpp's apply_checkers and judge).
//
// Processes: one `redis-server` per node on 127.0.0.1 (a free port, its own folder, the node's
// persistence), one client process per client (`redlock-sim client`, docs/real-mode.md), and the
// harness itself, which owns the proxies of every link, the resource's registers and the external
// counter. Faults: SIGSTOP/SIGCONT for pauses, SIGKILL/SIGTERM and a restart on the same port
// and folder for crashes and shutdowns, an LD_PRELOAD shim (real/shim/clock_shim.c) for wall
// clock offsets and steps, the proxies for partitions, delays and held messages.
//
// True time is CLOCK_MONOTONIC minus the run's start; every event a client reports is stamped
// with it. Real runs are not deterministic: the report says how late each fault and step
// happened against its scheduled time.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/runner/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim::real {

// A client program other than `redlock-sim client`: a driver running a real library (drivers/),
// or a library author's own, speaking the line protocol of docs/real-mode.md.
struct DriverSpec {
  std::string name;
  std::vector<std::string> profiles;  // the clients it runs; empty: every client
  std::vector<std::string> argv;      // the command; `--config JSON` is appended
  std::string working_directory;      // where it runs (empty: the harness's)
};

struct RealOptions {
  std::string redis_server = "redis-server";  // a path, or a name looked up on PATH
  std::string client_program;                 // the redlock-sim executable (its `client`)
  std::string shim_library;                   // the clock shim's .so
  std::optional<int> port_base;               // nodes on port_base, port_base+1, ...
  bool keep_folder = false;                   // keep the run's temporary folder (logs)
  std::vector<DriverSpec> drivers;            // the first whose profiles match runs a client
  // Set (by a signal handler) to stop the run early; everything is still cleaned up.
  const volatile std::sig_atomic_t* interrupted = nullptr;
};

// One scheduled action and how late it really happened.
struct ActionTiming {
  std::string what;  // "fault clock_step N3", "step acquire A", ...
  int64_t scheduled_ms = 0;
  int64_t late_us = 0;  // actual minus scheduled, microseconds
  bool step = false;    // a client's scripted step (not a fault, resume or restart)
};

struct RealReport {
  std::vector<ActionTiming> actions;
  int64_t late_us_max = 0;
  int64_t late_us_median = 0;
  int64_t proxy_late_us_max = 0;      // the proxies' worst delivery against its planned time
  std::vector<std::string> warnings;  // a step and a fault closer than the measured jitter
  int64_t wall_ms = 0;                // the whole real run, set-up and clean-up included
  std::string folder;                 // where logs were (kept only with keep_folder)
  std::vector<std::string> drivers;   // "A: driver node-redlock-5" for clients a driver ran
  // Each real sentinel's events ("+sdown S1", "+switch-master S2", ...) at their true times
  // (scheduled_ms), to compare the failover's timing with the simulator's.
  std::vector<ActionTiming> failover_events;
};

struct RealRun {
  ScenarioResult result;
  RealReport report;
};

// Why the scenario cannot be staged for real yet (one sentence naming the field or fault), or
// nullopt when it can.
std::optional<std::string> unstageable_reason(const Scenario& scenario);
// The same, for the drivers that would run its clients: a driver does not follow Sentinel, so a
// client naming the failover group cannot be run by one.
std::optional<std::string> unstageable_reason(const Scenario& scenario,
                                              const std::vector<DriverSpec>& drivers);

// Stages and runs the scenario. On a set-up failure (no redis-server, port in use, a process
// that would not start) returns nullopt with `error` set, having stopped whatever it started.
std::optional<RealRun> run_real(const Scenario& scenario, const RealOptions& options,
                                std::string& error);

}  // namespace redlock_sim::real
