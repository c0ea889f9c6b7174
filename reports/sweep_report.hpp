// A parameter sweep's results (`redlock-sim sweep`): the runs of a grid and of the bisections
// that followed, each verdict change along a line of the grid located to the exact integer, and
// the three renderings: a terminal summary, canonical JSON and a self-contained HTML plot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace redlock_sim {

// One varied field: its JSON path as the parser's messages write it, the name shown to people
// (the path's last key) and the grid's range.
struct SweepAxis {
  std::string path;
  std::string name;
  int64_t from = 0;
  int64_t to = 0;
  int64_t step = 1;
};

// What one run gave. A value the parser refuses is a point with `error` set and every verdict
// "invalid".
struct SweepOutcome {
  std::string mutual_exclusion;
  std::string resource_safety;
  std::string liveness;
  std::optional<int64_t> overlap_ms;  // the longest mutual-exclusion overlap, if any
  bool expectations_met = false;
  std::string error;
  std::string report;  // the run's HTML report, relative to the sweep's page, when written
};

struct SweepPoint {
  std::vector<int64_t> values;  // one per axis
  bool on_grid = false;
  SweepOutcome outcome;
};

// A stretch of one line of the grid over which a checker gave one verdict.
struct SweepBand {
  std::string verdict;
  int64_t from = 0;
  int64_t to = 0;
};

// One checker along one line: the line varies `axis`; `at` holds the other axes' values (the
// varied axis's slot is unused).
struct SweepLine {
  std::size_t axis = 0;
  std::vector<int64_t> at;
  std::string checker;
  std::vector<SweepBand> bands;
};

// A verdict change between two neighbouring runs on a line: exact when they are one apart.
struct SweepThreshold {
  std::size_t axis = 0;
  std::vector<int64_t> at;
  std::string checker;
  int64_t last = 0;  // the last value with `last_verdict`
  std::string last_verdict;
  int64_t first = 0;  // the first value with `first_verdict`
  std::string first_verdict;
  bool exact = false;
};

struct SweepResult {
  std::string file;
  std::string scenario;
  uint64_t seed = 0;
  std::vector<SweepAxis> axes;
  std::vector<std::string> settings;  // "--set"/"--unset" applied to the file, as given
  std::vector<SweepPoint> points;     // sorted by values
  std::vector<SweepLine> lines;
  std::vector<SweepThreshold> thresholds;
  std::size_t grid_runs = 0;
  std::size_t bisection_runs = 0;
  std::size_t runs_max = 0;
  bool run_limit_hit = false;
};

// The checkers a sweep follows, in report order, and their names for people.
const std::vector<std::string>& sweep_checkers();
std::string sweep_checker_title(const std::string& checker);
const std::string& sweep_verdict(const SweepOutcome& outcome, const std::string& checker);

std::string sweep_summary_text(const SweepResult& result);
nlohmann::json sweep_json(const SweepResult& result);
std::string sweep_json_text(const SweepResult& result);
// A self-contained page (inline SVG, no script, no network): verdict bands and the overlap
// length against the parameter, or one map per checker for two parameters.
std::string sweep_html(const SweepResult& result);

}  // namespace redlock_sim
