// What the `real` and `agree` commands share: where the client program and the clock shim are,
// the flags that point the harness at a redis-server, and the text of a real run's timings.
#pragma once

#include <boost/program_options.hpp>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "real/harness.hpp"

namespace redlock_sim::cli {

// Set by SIGINT/SIGTERM while a real run is under way; the harness stops and cleans up.
extern volatile std::sig_atomic_t real_interrupted;
void install_real_interrupt_handlers();

// The harness's options from the executable's own location (the shim is built beside it) and
// the redis-server binary; an error text (for exit 2) when something is missing.
std::optional<std::string> real_options(const std::string& redis_server, real::RealOptions& out);

// A driver of drivers/<name>/driver.json (docs/real-mode.md, "Drivers").
struct DriverManifest {
  std::string name;
  std::string library;  // the library and version it runs, e.g. "npm redlock 5.0.0-beta.2"
  std::vector<std::string> profiles;
  std::vector<std::string> command;
  std::vector<std::string> requires_programs;  // toolchain programs it needs on PATH
  std::string folder;
};
// Every driver manifest of the source tree, by name; an error text for a malformed one.
std::optional<std::string> driver_manifests(std::vector<DriverManifest>& out);
// The harness's spec for a named driver, checking its toolchain; an error text (exit 2) if not.
std::optional<std::string> driver_by_name(const std::string& name, real::DriverSpec& out);
// A library author's own command (run through /bin/sh), for the clients of `profiles` (all when
// empty).
real::DriverSpec driver_from_command(const std::string& command,
                                     const std::vector<std::string>& profiles);

// Whether a profile is validated against its real library, from docs/profile-validation.json
// (written by `agree --profiles --json`): "validated against npm redlock 4.2.0 (7 of 7 files
// agree)", "NOT validated: ..." with the reason. For `list` and the safety matrix.
std::string validation_status(const std::string& profile);
// Why a profile's library cannot be installed on the project's machines, if it cannot.
std::optional<std::string> unreachable_library(const std::string& profile);

// The flags --driver NAME, --driver-command CMD and --driver-profiles a,b (as `real` and `agree`
// declare them): adds the driver they choose to `options`; an error text (exit 2) when they
// contradict each other or name no driver.
std::optional<std::string> drivers_from_flags(const boost::program_options::variables_map& values,
                                              real::RealOptions& options);

// "Real run: 12 scheduled actions, late by 0.21 ms median, 1.9 ms at most; ..." and warnings.
std::string real_timing_text(const real::RealReport& report);

}  // namespace redlock_sim::cli
