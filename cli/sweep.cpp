#include "cli/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <map>
#include <set>
#include <thread>

#include "cli/worker_pool.hpp"

namespace redlock_sim::cli {

namespace {

using nlohmann::json;

// Values beyond this are refused up front, so no step or count arithmetic can overflow (the
// parser's own limits are far smaller).
constexpr int64_t sweep_value_abs_max = 1'000'000'000'000'000;

std::optional<int64_t> parse_integer(std::string_view text) {
  int64_t value = 0;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

std::string type_of(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_number_float()) return "a fractional number";
  return "an integer";
}

// The path's prefix up to (and without) segment `count`, as text.
std::string prefix(const JsonPath& path, std::size_t count) {
  std::string out = "$";
  for (std::size_t i = 0; i < count; ++i) {
    if (const auto* key = std::get_if<std::string>(&path.segments[i])) {
      out += "." + *key;
    } else {
      out += "[" + std::to_string(std::get<std::size_t>(path.segments[i])) + "]";
    }
  }
  return out;
}

// Walks to the parent of the path's last segment; creates missing objects when `create`.
std::optional<std::string> walk_to_parent(json*& node, const JsonPath& path, bool create) {
  for (std::size_t i = 0; i + 1 < path.segments.size(); ++i) {
    const bool next_is_key = std::holds_alternative<std::string>(path.segments[i + 1]);
    if (const auto* key = std::get_if<std::string>(&path.segments[i])) {
      if (!node->is_object()) return prefix(path, i) + " is " + type_of(*node) + ", not an object";
      if (!node->contains(*key)) {
        if (!create || !next_is_key) return "no field " + prefix(path, i + 1) + " in the file";
        (*node)[*key] = json::object();
      }
      node = &(*node)[*key];
    } else {
      const std::size_t index = std::get<std::size_t>(path.segments[i]);
      if (!node->is_array()) return prefix(path, i) + " is " + type_of(*node) + ", not an array";
      if (index >= node->size()) {
        return "no " + prefix(path, i + 1) + " in the file (" + prefix(path, i) + " has " +
               std::to_string(node->size()) + ")";
      }
      node = &(*node)[index];
    }
  }
  return std::nullopt;
}

SweepOutcome outcome_of(const ScenarioResult& result) {
  SweepOutcome outcome;
  outcome.mutual_exclusion = verdict_name(result.mutual_exclusion);
  outcome.resource_safety = verdict_name(result.resource_safety);
  outcome.liveness = verdict_name(result.liveness);
  outcome.expectations_met = result.expectations_met;
  for (const Violation& v : result.violations) {
    if (v.checker != "mutual_exclusion") continue;
    const int64_t length = (v.end - v.start).ms_floor();
    outcome.overlap_ms = std::max(outcome.overlap_ms.value_or(0), length);
  }
  return outcome;
}

SweepOutcome run_point(const SweepSetup& setup, const std::vector<int64_t>& values) {
  PointScenario point = scenario_at(setup, values);
  if (!point.scenario) {
    return SweepOutcome{.mutual_exclusion = "invalid",
                        .resource_safety = "invalid",
                        .liveness = "invalid",
                        .error = point.error};
  }
  // Verdicts only: the story and key lifetimes are for reports, which re-run their points.
  RunOptions options{.seed = setup.seed, .record_story = false, .track_keys = false};
  return outcome_of(run_scenario(*point.scenario, setup.factory, options));
}

using Results = std::map<std::vector<int64_t>, SweepOutcome>;

// Runs the points on `jobs` threads; each point's outcome lands in its own slot, so the results
// do not depend on the schedule.
void run_points(const SweepSetup& setup, const std::vector<std::vector<int64_t>>& points,
                Results& results) {
  std::vector<SweepOutcome> outcomes(points.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < points.size(); i = next++)
      outcomes[i] = run_point(setup, points[i]);
  };
  run_workers(static_cast<unsigned>(std::min<std::size_t>(setup.jobs, points.size())), worker);
  for (std::size_t i = 0; i < points.size(); ++i)
    results[points[i]] = std::move(outcomes[i]);
}

bool same_verdicts(const SweepOutcome& a, const SweepOutcome& b) {
  return a.mutual_exclusion == b.mutual_exclusion && a.resource_safety == b.resource_safety &&
         a.liveness == b.liveness;
}

// One line of the grid: the axis it varies and the other axes' values (the axis's slot is 0).
struct Line {
  std::size_t axis = 0;
  std::vector<int64_t> at;
};

std::vector<Line> grid_lines(const std::vector<SweepAxis>& axes) {
  std::vector<Line> lines;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    std::vector<SweepAxis> others = axes;
    others[a] = SweepAxis{.from = 0, .to = 0, .step = 1};
    for (std::vector<int64_t>& at : sweep_grid(others))
      lines.push_back({a, std::move(at)});
  }
  return lines;
}

// The runs on a line, in order of the varied value.
std::vector<const std::pair<const std::vector<int64_t>, SweepOutcome>*> on_line(
    const Results& results, const Line& line) {
  std::vector<const std::pair<const std::vector<int64_t>, SweepOutcome>*> out;
  for (const auto& entry : results) {
    bool match = true;
    for (std::size_t a = 0; a < line.at.size() && match; ++a)
      match = a == line.axis || entry.first[a] == line.at[a];
    if (match) out.push_back(&entry);
  }
  std::sort(out.begin(), out.end(), [&](const auto* x, const auto* y) {
    return x->first[line.axis] < y->first[line.axis];
  });
  return out;
}

// Bands and thresholds of every checker along every line, from the runs made.
void describe_lines(const std::vector<Line>& lines, const Results& results, SweepResult& out) {
  for (const std::string& checker : sweep_checkers()) {
    for (const Line& line : lines) {
      const auto runs = on_line(results, line);
      SweepLine described{.axis = line.axis, .at = line.at, .checker = checker};
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const int64_t value = runs[i]->first[line.axis];
        const std::string& verdict = sweep_verdict(runs[i]->second, checker);
        if (!described.bands.empty() && described.bands.back().verdict == verdict) {
          described.bands.back().to = value;
          continue;
        }
        if (!described.bands.empty()) {
          const SweepBand& before = described.bands.back();
          out.thresholds.push_back({.axis = line.axis,
                                    .at = line.at,
                                    .checker = checker,
                                    .last = before.to,
                                    .last_verdict = before.verdict,
                                    .first = value,
                                    .first_verdict = verdict,
                                    .exact = value == before.to + 1});
        }
        described.bands.push_back({verdict, value, value});
      }
      out.lines.push_back(std::move(described));
    }
  }
}

}  // namespace

std::optional<std::string> parse_json_path(const std::string& text, JsonPath& out) {
  out = JsonPath{.text = text};
  const std::string hint = " (write it as the parser's messages do, e.g. $.faults[2].delta_ms)";
  if (text.size() < 2 || text[0] != '$') return "a path starts with '$'" + hint;
  std::size_t i = 1;
  while (i < text.size()) {
    if (text[i] == '.') {
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != '.' && text[end] != '[')
        ++end;
      if (end == i + 1) return "an empty key at character " + std::to_string(i + 1) + hint;
      out.segments.emplace_back(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (text[i] == '[') {
      const std::size_t close = text.find(']', i);
      const std::string digits =
          close == std::string::npos ? "" : text.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        return "expected an index like [2] at character " + std::to_string(i + 1) + hint;
      out.segments.emplace_back(static_cast<std::size_t>(std::stoul(digits)));
      i = close + 1;
    } else {
      return "expected '.' or '[' at character " + std::to_string(i + 1) + hint;
    }
  }
  return std::nullopt;
}

std::optional<std::string> set_at_path(json& document, const JsonPath& path, const json& value,
                                       bool integer_only) {
  json* node = &document;
  if (auto failed = walk_to_parent(node, path, true)) return failed;
  const auto& last = path.segments.back();
  if (const auto* key = std::get_if<std::string>(&last)) {
    if (!node->is_object()) {
      return prefix(path, path.segments.size() - 1) + " is " + type_of(*node) + ", not an object";
    }
    if (integer_only && node->contains(*key) && !(*node)[*key].is_number_integer()) {
      return path.text + " is " + type_of((*node)[*key]) + "; only integers can be varied";
    }
    (*node)[*key] = value;
    return std::nullopt;
  }
  const std::size_t index = std::get<std::size_t>(last);
  if (!node->is_array() || index >= node->size()) {
    return "no " + path.text + " in the file";
  }
  if (integer_only && !(*node)[index].is_number_integer()) {
    return path.text + " is " + type_of((*node)[index]) + "; only integers can be varied";
  }
  (*node)[index] = value;
  return std::nullopt;
}

std::optional<std::string> remove_at_path(json& document, const JsonPath& path) {
  json* node = &document;
  if (auto failed = walk_to_parent(node, path, false)) return failed;
  const auto* key = std::get_if<std::string>(&path.segments.back());
  if (key == nullptr) return "only an object's field can be removed, not " + path.text;
  if (!node->is_object() || !node->contains(*key)) return "no field " + path.text + " in the file";
  node->erase(*key);
  return std::nullopt;
}

namespace {
std::optional<std::string> apply_settings(const std::vector<std::string>& sets,
                                          const std::vector<std::string>& unsets, json& document,
                                          std::vector<std::string>& settings) {
  for (const std::string& text : sets) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos) return "--set: expected PATH=VALUE, got '" + text + "'";
    JsonPath path;
    if (auto failed = parse_json_path(text.substr(0, equals), path)) return "--set: " + *failed;
    json value = json::parse(text.substr(equals + 1), nullptr, false);
    if (value.is_discarded()) {
      return "--set: the value of '" + text + "' is not JSON (a number, or a quoted string)";
    }
    if (auto failed = set_at_path(document, path, value, false)) return "--set: " + *failed;
    settings.push_back("set " + text);
  }
  for (const std::string& text : unsets) {
    JsonPath path;
    if (auto failed = parse_json_path(text, path)) return "--unset: " + *failed;
    if (auto failed = remove_at_path(document, path)) return "--unset: " + *failed;
    settings.push_back("unset " + text);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_vary(const std::string& text, SweepAxis& axis, JsonPath& path) {
  const std::string usage = "expected PATH=FROM..TO[:STEP], got '" + text + "'";
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos) return usage;
  if (auto failed = parse_json_path(text.substr(0, equals), path)) return *failed;
  const std::string range = text.substr(equals + 1);
  const std::size_t dots = range.find("..");
  if (dots == std::string::npos) return usage;
  const std::size_t colon = range.find(':', dots);
  const auto from = parse_integer(range.substr(0, dots));
  const auto to = parse_integer(
      range.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2));
  std::optional<int64_t> step;
  if (colon != std::string::npos) {
    step = parse_integer(range.substr(colon + 1));
    if (!step) return usage;
  }
  if (!from || !to) return usage;
  const auto in_limits = [](int64_t v) {
    return v >= -sweep_value_abs_max && v <= sweep_value_abs_max;
  };
  if (!in_limits(*from) || !in_limits(*to)) {
    return "the range '" + range + "' goes beyond +-10^15";
  }
  if (*from >= *to) return "FROM must be below TO in '" + range + "'";
  if (step && (*step < 1 || *step > *to - *from)) {
    return "STEP must be in [1, TO - FROM] in '" + range + "'";
  }
  const int64_t span = *to - *from;
  axis.path = path.text;
  const auto* last_key = std::get_if<std::string>(&path.segments.back());
  axis.name = last_key ? *last_key : path.text;
  axis.from = *from;
  axis.to = *to;
  axis.step = step ? *step : std::max<int64_t>(1, (span + 19) / 20);
  if (static_cast<uint64_t>(span / axis.step) + 2 > sweep_values_per_axis_max + 1) {
    return "'" + range + "' gives more than " + std::to_string(sweep_values_per_axis_max) +
           " values; give a larger STEP";
  }
  return std::nullopt;
}

std::vector<int64_t> axis_values(const SweepAxis& axis) {
  std::vector<int64_t> values;
  for (int64_t v = axis.from; v < axis.to; v += axis.step)
    values.push_back(v);
  values.push_back(axis.to);
  return values;
}

std::vector<std::vector<int64_t>> sweep_grid(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<int64_t>> grid = {{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<int64_t>> longer;
    for (const std::vector<int64_t>& point : grid) {
      for (int64_t v : axis_values(axis)) {
        longer.push_back(point);
        longer.back().push_back(v);
      }
    }
    grid = std::move(longer);
  }
  return grid;
}

PointScenario scenario_at(const SweepSetup& setup, const std::vector<int64_t>& values) {
  json document = setup.document;
  PointScenario out;
  for (std::size_t a = 0; a < setup.axes.size(); ++a) {
    if (auto failed = set_at_path(document, setup.paths[a], json(values[a]), true)) {
      out.error = *failed;
      return out;
    }
  }
  out.text = document.dump(2) + "\n";
  try {
    out.scenario = parse_scenario_text(out.text, setup.file, setup.check);
  } catch (const ScenarioError& error) {
    out.error = error.what();
  }
  return out;
}

std::optional<std::string> configure_sweep(SweepSetup& setup,
                                           const std::vector<std::string>& varies,
                                           const std::vector<std::string>& sets,
                                           const std::vector<std::string>& unsets) {
  if (varies.empty()) return "sweep: give at least one --vary PATH=FROM..TO";
  if (varies.size() > sweep_axes_max) return "sweep: --vary at most twice";
  if (auto failed = apply_settings(sets, unsets, setup.document, setup.settings))
    return "sweep: " + *failed;
  for (const std::string& vary : varies) {
    SweepAxis axis;
    JsonPath path;
    if (auto failed = parse_vary(vary, axis, path)) return "sweep: --vary: " + *failed;
    for (const SweepAxis& other : setup.axes)
      if (other.path == axis.path) return "sweep: --vary " + axis.path + " twice";
    // A path that does not reach an integer field is the flag's mistake, whatever the value.
    json probe = setup.document;
    if (auto failed = set_at_path(probe, path, json(axis.from), true))
      return "sweep: --vary: " + *failed;
    setup.axes.push_back(axis);
    setup.paths.push_back(path);
  }
  // Two fields with one name ($.clients[0].steps[1].at_ms, $.faults[0].at_ms) are told apart by
  // their whole paths.
  if (setup.axes.size() == 2 && setup.axes[0].name == setup.axes[1].name) {
    for (SweepAxis& axis : setup.axes)
      axis.name = axis.path;
  }
  std::size_t grid_size = 1;
  for (const SweepAxis& axis : setup.axes)
    grid_size *= axis_values(axis).size();
  if (grid_size > sweep_grid_points_max) {
    return "sweep: the grid has " + std::to_string(grid_size) + " points, more than " +
           std::to_string(sweep_grid_points_max) + "; give a larger STEP";
  }
  // Every grid point must be a scenario the parser takes, before anything runs.
  for (const std::vector<int64_t>& point : sweep_grid(setup.axes)) {
    const PointScenario at = scenario_at(setup, point);
    if (at.scenario) continue;
    std::string where;
    for (std::size_t a = 0; a < setup.axes.size(); ++a)
      where += (a ? ", " : "") + setup.axes[a].name + "=" + std::to_string(point[a]);
    return "sweep: at " + where + ": " + at.error;
  }
  return std::nullopt;
}

SweepResult run_sweep(const SweepSetup& setup) {
  SweepResult out{.file = setup.file,
                  .axes = setup.axes,
                  .settings = setup.settings,
                  .runs_max = setup.runs_max};
  Results results;
  const std::vector<std::vector<int64_t>> grid = sweep_grid(setup.axes);
  run_points(setup, grid, results);
  out.grid_runs = grid.size();
  const std::vector<Line> lines = grid_lines(setup.axes);
  // Rounds of bisection: every pair of neighbouring runs on a line whose verdicts differ and
  // which are more than one apart gets its midpoint run, all of a round in parallel.
  for (;;) {
    std::set<std::vector<int64_t>> wanted;
    for (const Line& line : lines) {
      const auto runs = on_line(results, line);
      for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
        const int64_t low = runs[i]->first[line.axis], high = runs[i + 1]->first[line.axis];
        if (high - low < 2 || same_verdicts(runs[i]->second, runs[i + 1]->second)) continue;
        std::vector<int64_t> middle = runs[i]->first;
        middle[line.axis] = low + (high - low) / 2;
        wanted.insert(middle);
      }
    }
    if (wanted.empty()) break;
    std::vector<std::vector<int64_t>> batch(wanted.begin(), wanted.end());
    const std::size_t room = setup.runs_max > results.size() ? setup.runs_max - results.size() : 0;
    if (batch.size() > room) {
      batch.resize(room);
      out.run_limit_hit = true;
    }
    if (batch.empty()) break;
    run_points(setup, batch, results);
  }
  out.bisection_runs = results.size() - grid.size();
  const std::set<std::vector<int64_t>> on_grid(grid.begin(), grid.end());
  for (auto& [values, outcome] : results)
    out.points.push_back({values, on_grid.count(values) > 0, outcome});
  describe_lines(lines, results, out);
  return out;
}

}  // namespace redlock_sim::cli
