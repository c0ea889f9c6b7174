// `redlock-sim sweep`'s engine: JSON paths into a scenario file, the grid of an axis's range,
// and a sweep that runs the grid and bisects each verdict change to the exact integer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "reports/sweep_report.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim::cli {

// `$.faults[2].delta_ms`: the path as the parser's error messages write it, split into object
// keys and array indexes.
struct JsonPath {
  std::string text;
  std::vector<std::variant<std::string, std::size_t>> segments;
};

// Parses a path; returns the reason it is not one, or nothing.
std::optional<std::string> parse_json_path(const std::string& text, JsonPath& out);

// Sets the field at `path` to `value`, creating missing objects on the way when the next segment
// is a key. Array indexes must exist. With `integer_only`, an existing field must hold an
// integer. Returns the reason it could not, or nothing.
std::optional<std::string> set_at_path(nlohmann::json& document, const JsonPath& path,
                                       const nlohmann::json& value, bool integer_only);
// Removes the field at `path` (which must exist).
std::optional<std::string> remove_at_path(nlohmann::json& document, const JsonPath& path);

// `PATH=FROM..TO[:STEP]`; a missing STEP gives about 20 intervals.
std::optional<std::string> parse_vary(const std::string& text, SweepAxis& axis, JsonPath& path);

inline constexpr std::size_t sweep_axes_max = 2;
inline constexpr std::size_t sweep_values_per_axis_max = 1'001;
inline constexpr std::size_t sweep_grid_points_max = 10'000;

// The grid's values along one axis: FROM, FROM + STEP, ..., and TO.
std::vector<int64_t> axis_values(const SweepAxis& axis);
// Every grid point, in lexicographic order of the axes' values. A pure function of the axes:
// a shard of a sweep is a slice of this list.
std::vector<std::vector<int64_t>> sweep_grid(const std::vector<SweepAxis>& axes);

struct SweepSetup {
  std::string file;
  nlohmann::json document;  // the file, with --set/--unset applied
  std::vector<std::string> settings;
  std::vector<SweepAxis> axes;
  std::vector<JsonPath> paths;  // one per axis
  ProfileCheck check;
  LockFactory factory;
  std::optional<uint64_t> seed;
  unsigned jobs = 1;
  std::size_t runs_max = 10'000;
};

// The scenario at one point of the sweep, or the parser's error.
struct PointScenario {
  std::optional<Scenario> scenario;
  std::string error;
  std::string text;  // the file's JSON at this point
};
PointScenario scenario_at(const SweepSetup& setup, const std::vector<int64_t>& values);

// Applies --set/--unset (in that order) to setup.document, reads the --vary axes and checks that
// every grid point is a scenario the parser takes. Returns the one message for the user
// ("sweep: --vary: ..."), or nothing.
std::optional<std::string> configure_sweep(SweepSetup& setup,
                                           const std::vector<std::string>& varies,
                                           const std::vector<std::string>& sets,
                                           const std::vector<std::string>& unsets);

// Runs the grid, then bisects every pair of neighbouring runs on a line of the grid whose
// verdicts differ until they are one apart (or the run budget is spent). Deterministic: the
// result depends on the setup only, not on `jobs`.
SweepResult run_sweep(const SweepSetup& setup);

}  // namespace redlock_sim::cli
