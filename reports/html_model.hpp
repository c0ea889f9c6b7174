// What the HTML report draws, worked out once from a result: lanes, the window
// to open on, fault intervals and marks, each process's clock as piecewise-linear segments, and
// which items fit in the drawing budget. Internal to reports/ (html_report.cpp, html_svg.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "reports/html_report.hpp"

namespace redlock_sim::html {

// Geometry of the main chart, in SVG user units (CSS pixels at 100 %).
inline constexpr double svg_width = 1200;
inline constexpr double plot_left = 150;
inline constexpr double plot_right = 1185;
inline constexpr double axis_height = 46;  // ticks, then a strip for violation labels
inline constexpr double lane_height = 46;
inline constexpr double offset_plot_height = 150;

// Okabe-Ito, the palette readable with every common colour-vision deficiency. Clients take them in
// order; vermillion is kept for violations.
inline constexpr const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                          "#56B4E9", "#F0E442", "#000000"};
inline constexpr std::size_t palette_size = 7;
inline constexpr const char* vermillion = "#D55E00";

struct Lane {
  ProcessId id = 0;
  std::string name;
  std::string role;
  double y = 0;     // top of the lane
  int colour = -1;  // index into the palette (clients), -1 otherwise
};

struct Span {
  ProcessId process = 0;
  int64_t start_us = 0;
  int64_t end_us = 0;
};

struct Mark {
  ProcessId process = 0;
  int64_t at_us = 0;
  std::string kind;   // clock-step | clock-rate | crash | restart | hold-message
  std::string label;  // short, drawn beside the mark
  std::string info;   // longer, shown on hover
};

struct PartitionBand {
  ProcessId process = 0;
  int64_t start_us = 0;
  int64_t end_us = 0;
  std::string label;
};

// A clock reading at a true instant; between two points both clocks are linear, and a wall-clock
// step happens exactly at a point (the reading there is the one after the step).
struct ClockPoint {
  int64_t at_us = 0;
  int64_t wall_us = 0;  // relative to default_epoch_ms
  int64_t monotonic_us = 0;
};

struct Model {
  const ScenarioResult* result = nullptr;
  int64_t run_end_us = 0;
  int64_t window_start_us = 0;  // the window the page opens on
  int64_t window_end_us = 0;
  std::vector<Lane> lanes;   // drawing order
  std::vector<int> lane_of;  // by ProcessId: index into lanes
  std::map<std::string, ProcessId> owner_of_token;
  std::vector<Span> pauses;
  std::vector<Span> downs;  // crashed until restarted
  std::vector<Mark> marks;
  std::vector<PartitionBand> partitions;
  std::vector<std::vector<ClockPoint>> clocks;  // by ProcessId
  // Indices of what is drawn, in time order.
  std::vector<std::size_t> holds;
  std::vector<std::size_t> keys;
  std::vector<std::size_t> events;  // story events other than faults
  std::vector<std::size_t> messages;
  std::vector<std::size_t> resource_ops;
  std::vector<std::size_t> steps;    // story events the step-through visits
  std::vector<std::string> omitted;  // sentences saying what the budget left out

  double chart_height() const { return axis_height + lane_height * lanes.size() + 8; }
  double lane_y(ProcessId id) const { return lanes[lane_of[id]].y; }
  double x_of(int64_t at_us) const;  // clamped a little outside the plot
  int colour_of(ProcessId id) const { return lanes[lane_of[id]].colour; }
  int64_t end_us(Instant end) const;  // Instant::max() (until the end) becomes the run's end
};

Model build_model(const ScenarioResult& result, const HtmlOptions& options);

std::string chart_svg(const Model& model);
std::string offset_svg(const Model& model);

// Shared formatting: milliseconds with the microseconds only when there are any ("2050",
// "2050.5"), and coordinates with one decimal.
std::string ms_text(int64_t us);
std::string coordinate(double value);
std::string escape(const std::string& text);  // for HTML text and attribute values
inline int64_t us_of(Instant t) {
  return t.ns() / 1'000;
}

// SVG attribute fragments, each with its leading space: a text attribute, a coordinate, and
// the true-time interval (microseconds) an element stands for.
inline std::string attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + escape(value) + "\"";
}
inline std::string num(const char* name, double value) {
  return std::string(" ") + name + "=\"" + coordinate(value) + "\"";
}
inline std::string times(int64_t a_us, int64_t b_us) {
  return " data-a=\"" + std::to_string(a_us) + "\" data-b=\"" + std::to_string(b_us) + "\"";
}
inline std::string time_at(int64_t a_us) {
  return " data-a=\"" + std::to_string(a_us) + "\"";
}
inline const std::string& name_of(const Model& model, ProcessId id) {
  return model.result->processes.at(id).name;
}

// The nice tick step (1, 2 or 5 times a power of ten, in microseconds) for a window; the
// script computes the same one when zooming.
int64_t tick_step_us(int64_t span_us);
std::string tick_label(int64_t at_us, int64_t step_us);

}  // namespace redlock_sim::html
