// The bounds of what explore and matrix draw: one set of flags, declared and checked here for
// both commands (explore adds the swarm's own two, --faults-per-class and --class-on).
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "sim/explore/fault_plan.hpp"

namespace redlock_sim::cli {

// The time and rate bounds, stored into `bounds`. A time of 0 (the default) is relative to the
// scenario's TTL (resolve_bounds: twice the TTL, at most half the run).
inline boost::program_options::options_description bound_flags(ExploreBounds& bounds) {
  namespace po = boost::program_options;
  po::options_description flags(
      "Bounds of the faults drawn (times in ms; a time of 0: twice the scenario's TTL, at most "
      "half the run; docs/explore.md)");
  flags.add_options()("window-ms", po::value<int64_t>(&bounds.window_ms)->default_value(0),
                      "faults start in [0, window) (0: anywhere in the run)")(
      "clock-step-max-ms", po::value<int64_t>(&bounds.clock_step_ms_max)->default_value(0),
      "largest clock step, either sign")(
      "clock-rate-max-ppm", po::value<int64_t>(&bounds.clock_rate_ppm_max)->default_value(50'000),
      "largest clock rate error, either sign (1 to 999999)")(
      "pause-max-ms", po::value<int64_t>(&bounds.pause_ms_max)->default_value(0), "longest pause")(
      "down-max-ms", po::value<int64_t>(&bounds.down_ms_max)->default_value(0),
      "longest time a crashed process stays down")(
      "partition-max-ms", po::value<int64_t>(&bounds.partition_ms_max)->default_value(0),
      "longest partition")("message-delay-max-ms",
                           po::value<int64_t>(&bounds.message_delay_ms_max)->default_value(0),
                           "longest time a message is held");
  return flags;
}

// Checks what bound_flags stored; one message naming the command and the flag, exit 2.
inline std::optional<int> check_bound_flags(const std::string& command,
                                            const ExploreBounds& bounds) {
  constexpr int64_t time_max = 1'000'000'000'000;
  const std::pair<const char*, int64_t> times[] = {
      {"window-ms", bounds.window_ms},
      {"clock-step-max-ms", bounds.clock_step_ms_max},
      {"pause-max-ms", bounds.pause_ms_max},
      {"down-max-ms", bounds.down_ms_max},
      {"partition-max-ms", bounds.partition_ms_max},
      {"message-delay-max-ms", bounds.message_delay_ms_max}};
  for (const auto& [flag, value] : times) {
    if (value < 0 || value > time_max) {
      return bad_input(command + ": --" + flag + " must be in [0, 1000000000000]");
    }
  }
  if (bounds.clock_rate_ppm_max < 1 || bounds.clock_rate_ppm_max > 999'999) {
    return bad_input(command + ": --clock-rate-max-ppm must be in [1, 999999]");
  }
  return std::nullopt;
}

}  // namespace redlock_sim::cli
