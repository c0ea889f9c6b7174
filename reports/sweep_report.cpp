#include "reports/sweep_report.hpp"

#include "reports/html_model.hpp"
#include "reports/tool_version.hpp"
#include "sim/checkers/checkers.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace redlock_sim {

namespace {

using nlohmann::json;

using html::escape;

// Fixed-point text for SVG coordinates: integers and tenths only, so the page's bytes do not
// depend on how a standard library prints floating point.
std::string coordinate(double value) {
  const long long tenths = static_cast<long long>(value * 10 + (value < 0 ? -0.5 : 0.5));
  const long long whole = tenths / 10;
  const long long fraction = (tenths < 0 ? -tenths : tenths) % 10;
  std::string sign = (tenths < 0 && whole == 0) ? "-" : "";
  return sign + std::to_string(whole) + (fraction ? "." + std::to_string(fraction) : "");
}

std::string verdict_colour(const std::string& verdict) {
  if (verdict == "holds") return "#2e7d32";
  if (verdict == "violated") return "#c62828";
  if (verdict == "not_checked") return "#9e9e9e";
  if (verdict == "unresolved") return "#fbc02d";
  return "#212121";  // invalid
}

std::string verdict_words(const std::string& verdict) {
  if (verdict == "not_checked") return "not checked";
  return verdict;
}

// "at_ms=9847" for the axes other than `axis` (empty for a one-parameter sweep).
std::string line_place(const SweepResult& result, std::size_t axis,
                       const std::vector<int64_t>& at) {
  std::string out;
  for (std::size_t a = 0; a < result.axes.size(); ++a) {
    if (a == axis) continue;
    out += (out.empty() ? "" : ", ") + result.axes[a].name + "=" + std::to_string(at[a]);
  }
  return out;
}

// "holds for delta_ms <= 153, violated from 154": one line's bands as a sentence.
std::string bands_sentence(const SweepResult& result, const SweepLine& line) {
  const std::string& name = result.axes[line.axis].name;
  const SweepAxis& axis = result.axes[line.axis];
  const std::vector<SweepBand>& bands = line.bands;
  if (bands.size() == 1) {
    return verdict_words(bands[0].verdict) + " for every " + name + " in " +
           std::to_string(axis.from) + ".." + std::to_string(axis.to);
  }
  std::string out;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    const SweepBand& band = bands[i];
    std::string part = verdict_words(band.verdict);
    if (i == 0) {
      part += " for " + name + " <= " + std::to_string(band.to);
    } else if (i + 1 == bands.size()) {
      part += " from " + std::to_string(band.from);
    } else if (band.from == band.to) {
      part += " at " + std::to_string(band.from);
    } else {
      part += " for " + std::to_string(band.from) + ".." + std::to_string(band.to);
    }
    out += (i == 0 ? "" : ", ") + part;
  }
  return out;
}

json at_json(const SweepResult& result, std::size_t axis, const std::vector<int64_t>& at) {
  json out = json::object();
  for (std::size_t a = 0; a < result.axes.size(); ++a) {
    if (a != axis) out[result.axes[a].path] = at[a];
  }
  return out;
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         escape(title) +
         "</title>\n<style>\n"
         "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
         "h1{font-size:1.4em}\ntable{border-collapse:collapse;margin:1em 0}\n"
         "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}\n"
         "svg text{font-size:12px;fill:#222}\n.legend span{display:inline-block;width:1em;"
         "height:1em;margin:0 .3em 0 1em;vertical-align:middle}\ncode{background:#f4f4f4}\n"
         "</style>\n</head>\n<body>\n";
}

std::string legend() {
  std::string out = "<p class=\"legend\">";
  for (const char* verdict : {"holds", "violated", "not_checked", "unresolved", "invalid"}) {
    out += "<span style=\"background:" + verdict_colour(verdict) + "\"></span>" +
           verdict_words(verdict);
  }
  return out + "</p>\n";
}

// An SVG element wrapped in a link to the point's report when there is one.
std::string linked(const SweepPoint& point, const std::string& element) {
  if (point.outcome.report.empty()) return element;
  return "<a href=\"" + escape(point.outcome.report) + "\">" + element + "</a>";
}

std::string point_title(const SweepResult& result, const SweepPoint& point) {
  std::string out;
  for (std::size_t a = 0; a < result.axes.size(); ++a) {
    out += (a ? ", " : "") + result.axes[a].name + "=" + std::to_string(point.values[a]);
  }
  for (const std::string& checker : sweep_checkers()) {
    out += "; " + sweep_checker_title(checker) + " " +
           verdict_words(sweep_verdict(point.outcome, checker));
  }
  if (point.outcome.overlap_ms) out += "; overlap " + std::to_string(*point.outcome.overlap_ms);
  if (point.outcome.overlap_ms) out += " ms";
  if (!point.outcome.error.empty()) out += "; " + point.outcome.error;
  return out;
}

// One parameter: a strip of verdict bands per checker, then the overlap length of every run.
std::string one_axis_svg(const SweepResult& result) {
  const SweepAxis& axis = result.axes[0];
  const double left = 150, width = 760, strip = 26;
  const double span = static_cast<double>(axis.to - axis.from + 1);
  const auto x_at = [&](double value) { return left + (value - axis.from + 0.5) / span * width; };
  const auto x_edge = [&](double value) { return left + (value - axis.from) / span * width; };
  const std::vector<std::string>& checkers = sweep_checkers();
  const double chart_top = 20 + checkers.size() * (strip + 8) + 20, chart_height = 220;
  const double total_height = chart_top + chart_height + 50;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    coordinate(left + width + 40) + "\" height=\"" + coordinate(total_height) +
                    "\" role=\"img\">\n";
  for (std::size_t c = 0; c < checkers.size(); ++c) {
    const double y = 20 + c * (strip + 8);
    svg += "<text x=\"4\" y=\"" + coordinate(y + strip / 2 + 4) + "\">" +
           sweep_checker_title(checkers[c]) + "</text>\n";
    for (const SweepLine& line : result.lines) {
      if (line.checker != checkers[c]) continue;
      for (std::size_t b = 0; b < line.bands.size(); ++b) {
        const SweepBand& band = line.bands[b];
        svg += "<rect x=\"" + coordinate(x_edge(band.from)) + "\" y=\"" + coordinate(y) +
               "\" width=\"" + coordinate(x_edge(band.to + 1) - x_edge(band.from)) +
               "\" height=\"" + coordinate(strip) + "\" fill=\"" + verdict_colour(band.verdict) +
               "\"><title>" + verdict_words(band.verdict) + " for " + axis.name + " " +
               std::to_string(band.from) + ".." + std::to_string(band.to) + "</title></rect>\n";
        // The gap between two bands a bisection could not close (run limit) is unresolved.
        if (b + 1 < line.bands.size() && line.bands[b + 1].from > band.to + 1) {
          svg += "<rect x=\"" + coordinate(x_edge(band.to + 1)) + "\" y=\"" + coordinate(y) +
                 "\" width=\"" + coordinate(x_edge(line.bands[b + 1].from) - x_edge(band.to + 1)) +
                 "\" height=\"" + coordinate(strip) + "\" fill=\"" + verdict_colour("unresolved") +
                 "\"/>\n";
        }
      }
    }
  }
  int64_t overlap_max = 1;
  for (const SweepPoint& point : result.points) {
    if (point.outcome.overlap_ms) overlap_max = std::max(overlap_max, *point.outcome.overlap_ms);
  }
  const auto y_at = [&](int64_t overlap) {
    return chart_top + chart_height - static_cast<double>(overlap) / overlap_max * chart_height;
  };
  const std::string bottom = coordinate(chart_top + chart_height);
  svg += "<text x=\"4\" y=\"" + coordinate(chart_top + 12) +
         "\">longest overlap</text>\n<text x=\"4\" y=\"" + coordinate(chart_top + 28) + "\">" +
         std::to_string(overlap_max) + " ms</text>\n<text x=\"4\" y=\"" + bottom +
         "\">0 ms</text>\n";
  svg += "<line x1=\"" + coordinate(left) + "\" y1=\"" + bottom + "\" x2=\"" +
         coordinate(left + width) + "\" y2=\"" + bottom + "\" stroke=\"#888\"/>\n";
  std::string polyline;
  for (const SweepPoint& point : result.points) {
    polyline += (polyline.empty() ? "" : " ") + coordinate(x_at(point.values[0])) + "," +
                coordinate(y_at(point.outcome.overlap_ms.value_or(0)));
  }
  svg += "<polyline fill=\"none\" stroke=\"#555\" points=\"" + polyline + "\"/>\n";
  for (const SweepPoint& point : result.points) {
    if (point.outcome.report.empty() && !point.on_grid) continue;
    const std::string circle = "<circle cx=\"" + coordinate(x_at(point.values[0])) + "\" cy=\"" +
                               coordinate(y_at(point.outcome.overlap_ms.value_or(0))) +
                               "\" r=\"4\" fill=\"" +
                               verdict_colour(point.outcome.mutual_exclusion) + "\"><title>" +
                               escape(point_title(result, point)) + "</title></circle>";
    svg += linked(point, circle) + "\n";
  }
  const std::string label_y = coordinate(chart_top + chart_height + 18);
  svg += "<text x=\"" + coordinate(left) + "\" y=\"" + label_y + "\">" + std::to_string(axis.from) +
         "</text>\n<text x=\"" + coordinate(left + width) + "\" y=\"" + label_y +
         "\" text-anchor=\"end\">" + std::to_string(axis.to) + "</text>\n<text x=\"" +
         coordinate(left + width / 2) + "\" y=\"" + coordinate(chart_top + chart_height + 36) +
         "\" text-anchor=\"middle\">" + escape(axis.path) + "</text>\n";
  return svg + "</svg>\n";
}

// Two parameters: one map per checker, a cell per grid point, the located thresholds as dots.
std::string two_axis_svg(const SweepResult& result, const std::string& checker) {
  std::vector<int64_t> xs, ys;
  for (const SweepPoint& point : result.points) {
    if (!point.on_grid) continue;
    xs.push_back(point.values[0]);
    ys.push_back(point.values[1]);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  const double cell_w = std::clamp(640.0 / xs.size(), 4.0, 40.0);
  const double cell_h = std::clamp(400.0 / ys.size(), 4.0, 30.0);
  const double left = 90, top = 10;
  const double width = cell_w * xs.size(), height = cell_h * ys.size();
  const auto index_of = [](const std::vector<int64_t>& grid, int64_t v) {
    return static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), v) - grid.begin());
  };
  // A value's position along an axis: grid values at cell centres, values between interpolated.
  const auto position = [](const std::vector<int64_t>& grid, double v, double cell) {
    std::size_t i = 0;
    while (i + 1 < grid.size() && grid[i + 1] <= v)
      ++i;
    double offset = 0;
    if (i + 1 < grid.size() && v > grid[i])
      offset = (v - grid[i]) / static_cast<double>(grid[i + 1] - grid[i]);
    return (i + 0.5 + offset) * cell;
  };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    coordinate(left + width + 20) + "\" height=\"" + coordinate(top + height + 50) +
                    "\" role=\"img\">\n";
  for (const SweepPoint& point : result.points) {
    if (!point.on_grid) continue;
    const std::size_t column = index_of(xs, point.values[0]);
    const std::size_t row = ys.size() - 1 - index_of(ys, point.values[1]);
    const std::string rect = "<rect x=\"" + coordinate(left + column * cell_w) + "\" y=\"" +
                             coordinate(top + row * cell_h) + "\" width=\"" + coordinate(cell_w) +
                             "\" height=\"" + coordinate(cell_h) + "\" fill=\"" +
                             verdict_colour(sweep_verdict(point.outcome, checker)) +
                             "\" stroke=\"#fff\" stroke-width=\"0.5\"><title>" +
                             escape(point_title(result, point)) + "</title></rect>";
    svg += linked(point, rect) + "\n";
  }
  for (const SweepThreshold& t : result.thresholds) {
    if (t.checker != checker) continue;
    const double middle = (static_cast<double>(t.last) + static_cast<double>(t.first)) / 2;
    double x = 0, y = 0;
    if (t.axis == 0) {
      x = position(xs, middle, cell_w);
      y = height - position(ys, static_cast<double>(t.at[1]), cell_h);
    } else {
      x = position(xs, static_cast<double>(t.at[0]), cell_w);
      y = height - position(ys, middle, cell_h);
    }
    svg += "<circle cx=\"" + coordinate(left + x) + "\" cy=\"" + coordinate(top + y) +
           "\" r=\"2.5\" fill=\"#000\"><title>" + escape(result.axes[t.axis].name) + " " +
           std::to_string(t.last) + " | " + std::to_string(t.first) + "</title></circle>\n";
  }
  const std::string label_y = coordinate(top + height + 16);
  svg += "<text x=\"" + coordinate(left) + "\" y=\"" + label_y + "\">" +
         std::to_string(xs.front()) + "</text>\n<text x=\"" + coordinate(left + width) + "\" y=\"" +
         label_y + "\" text-anchor=\"end\">" + std::to_string(xs.back()) + "</text>\n<text x=\"" +
         coordinate(left + width / 2) + "\" y=\"" + coordinate(top + height + 34) +
         "\" text-anchor=\"middle\">" + escape(result.axes[0].path) + "</text>\n";
  svg += "<text x=\"4\" y=\"" + coordinate(top + height) + "\">" + std::to_string(ys.front()) +
         "</text>\n<text x=\"4\" y=\"" + coordinate(top + 12) + "\">" + std::to_string(ys.back()) +
         "</text>\n<text x=\"4\" y=\"" + coordinate(top + height / 2) + "\">" +
         escape(result.axes[1].name) + "</text>\n";
  return svg + "</svg>\n";
}

std::string threshold_table(const SweepResult& result) {
  if (result.thresholds.empty()) return "<p>No verdict changes on the grid.</p>\n";
  std::map<std::vector<int64_t>, const SweepPoint*> by_values;
  for (const SweepPoint& point : result.points)
    by_values[point.values] = &point;
  const auto cell = [&](std::vector<int64_t> values, std::size_t axis, int64_t value,
                        const std::string& verdict) {
    values[axis] = value;
    std::string text = std::to_string(value) + " (" + verdict_words(verdict) + ")";
    auto it = by_values.find(values);
    if (it != by_values.end() && !it->second->outcome.report.empty())
      text = "<a href=\"" + escape(it->second->outcome.report) + "\">" + text + "</a>";
    return "<td>" + text + "</td>";
  };
  std::string out =
      "<table>\n<tr><th>checker</th><th>parameter</th><th>where</th><th>last</th>"
      "<th>first</th><th>exact</th></tr>\n";
  for (const SweepThreshold& t : result.thresholds) {
    out += "<tr><td>" + sweep_checker_title(t.checker) + "</td><td><code>" +
           escape(result.axes[t.axis].path) + "</code></td><td>" +
           escape(line_place(result, t.axis, t.at)) + "</td>" +
           cell(t.at, t.axis, t.last, t.last_verdict) +
           cell(t.at, t.axis, t.first, t.first_verdict) + "<td>" + (t.exact ? "yes" : "no") +
           "</td></tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

const std::vector<std::string>& sweep_checkers() {
  return checker_names();
}

std::string sweep_checker_title(const std::string& checker) {
  std::string out = checker;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

const std::string& sweep_verdict(const SweepOutcome& outcome, const std::string& checker) {
  if (checker == "mutual_exclusion") return outcome.mutual_exclusion;
  if (checker == "resource_safety") return outcome.resource_safety;
  return outcome.liveness;
}

std::string sweep_summary_text(const SweepResult& result) {
  std::string out = "sweep " + result.file + " (" + result.scenario + "), seed " +
                    std::to_string(result.seed) + "\n";
  for (const std::string& setting : result.settings)
    out += "  " + setting + "\n";
  for (const SweepAxis& axis : result.axes) {
    out += "  vary " + axis.path + " = " + std::to_string(axis.from) + ".." +
           std::to_string(axis.to) + ", step " + std::to_string(axis.step) + "\n";
  }
  out += "runs: " + std::to_string(result.grid_runs) + " on the grid, " +
         std::to_string(result.bisection_runs) + " to bisect\n";
  constexpr std::size_t sentences_max = 60;
  std::size_t sentences = 0, left_out = 0;
  for (const std::string& checker : sweep_checkers()) {
    for (const SweepLine& line : result.lines) {
      if (line.checker != checker) continue;
      // In a map, lines without a change are many and say little: only the changes are told.
      if (result.axes.size() > 1 && line.bands.size() == 1) continue;
      if (sentences == sentences_max) {
        ++left_out;
        continue;
      }
      ++sentences;
      const std::string place = line_place(result, line.axis, line.at);
      out += sweep_checker_title(checker) + (place.empty() ? "" : " (" + place + ")") + " " +
             bands_sentence(result, line) + "\n";
    }
  }
  if (result.axes.size() > 1) {
    for (const std::string& checker : sweep_checkers()) {
      bool changes = false;
      std::string verdict;
      for (const SweepLine& line : result.lines) {
        if (line.checker != checker) continue;
        if (line.bands.size() > 1) changes = true;
        verdict = line.bands.front().verdict;
      }
      if (!changes)
        out += sweep_checker_title(checker) + " " + verdict_words(verdict) +
               " everywhere on the grid\n";
    }
  }
  if (left_out > 0) {
    out += "(" + std::to_string(left_out) + " more lines with changes are in the JSON)\n";
  }
  if (result.run_limit_hit) {
    std::size_t ranges = 0;
    for (const SweepThreshold& t : result.thresholds)
      ranges += t.exact ? 0 : 1;
    out += "run limit reached (" + std::to_string(result.runs_max) +
           " runs): " + std::to_string(ranges) + " verdict changes are located to a range only\n";
  }
  return out;
}

json sweep_json(const SweepResult& result) {
  json axes = json::array();
  for (const SweepAxis& axis : result.axes) {
    axes.push_back({{"path", axis.path},
                    {"name", axis.name},
                    {"from", axis.from},
                    {"to", axis.to},
                    {"step", axis.step}});
  }
  json points = json::array();
  for (const SweepPoint& point : result.points) {
    const SweepOutcome& o = point.outcome;
    json entry = {{"values", point.values},
                  {"on_grid", point.on_grid},
                  {"verdicts",
                   {{"mutual_exclusion", o.mutual_exclusion},
                    {"resource_safety", o.resource_safety},
                    {"liveness", o.liveness}}},
                  {"overlap_ms", o.overlap_ms ? json(*o.overlap_ms) : json(nullptr)},
                  {"expectations_met", o.expectations_met}};
    if (!o.error.empty()) entry["error"] = o.error;
    if (!o.report.empty()) entry["report"] = o.report;
    points.push_back(std::move(entry));
  }
  json lines = json::array();
  for (const SweepLine& line : result.lines) {
    json bands = json::array();
    for (const SweepBand& band : line.bands)
      bands.push_back({{"verdict", band.verdict}, {"from", band.from}, {"to", band.to}});
    lines.push_back({{"axis", result.axes[line.axis].path},
                     {"at", at_json(result, line.axis, line.at)},
                     {"checker", line.checker},
                     {"bands", bands}});
  }
  json thresholds = json::array();
  for (const SweepThreshold& t : result.thresholds) {
    thresholds.push_back({{"axis", result.axes[t.axis].path},
                          {"at", at_json(result, t.axis, t.at)},
                          {"checker", t.checker},
                          {"last", t.last},
                          {"last_verdict", t.last_verdict},
                          {"first", t.first},
                          {"first_verdict", t.first_verdict},
                          {"exact", t.exact}});
  }
  return json{{"file", result.file},
              {"scenario", result.scenario},
              {"seed", result.seed},
              {"axes", axes},
              {"settings", result.settings},
              {"runs",
               {{"grid", result.grid_runs},
                {"bisection", result.bisection_runs},
                {"max", result.runs_max},
                {"limit_hit", result.run_limit_hit}}},
              {"points", points},
              {"lines", lines},
              {"thresholds", thresholds},
              {"tool", tool_json()}};
}

std::string sweep_json_text(const SweepResult& result) {
  return sweep_json(result).dump(2) + "\n";
}

std::string sweep_html(const SweepResult& result) {
  std::string out = page_head("sweep: " + result.scenario);
  out += "<h1>Where is the edge? " + escape(result.scenario) + "</h1>\n<pre>" +
         escape(sweep_summary_text(result)) + "</pre>\n" + legend();
  if (result.axes.size() == 1) {
    out += "<p>Bands: each checker's verdict against <code>" + escape(result.axes[0].path) +
           "</code>. Below: the longest mutual-exclusion overlap of each run (dots: the grid "
           "and the two runs either side of each change; click one for its report).</p>\n";
    out += one_axis_svg(result);
  } else {
    for (const std::string& checker : sweep_checkers()) {
      out += "<h2>" + sweep_checker_title(checker) + "</h2>\n";
      // A map of one colour says less than a sentence.
      bool uniform = true;
      for (const SweepPoint& point : result.points) {
        uniform = uniform && sweep_verdict(point.outcome, checker) ==
                                 sweep_verdict(result.points.front().outcome, checker);
      }
      if (uniform) {
        out += "<p>" + verdict_words(sweep_verdict(result.points.front().outcome, checker)) +
               " everywhere on the grid.</p>\n";
      } else {
        out += two_axis_svg(result, checker);
      }
    }
  }
  out += "<h2>Verdict changes</h2>\n" + threshold_table(result);
  out += "<p><small>redlock-sim " + std::string(tool_version()) + " (commit " +
         escape(tool_commit()) + ")</small></p>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace redlock_sim
