// The chart's violations, resource operations and messages, and the clock-offset plot.
#include <algorithm>
#include <cmath>

#include "reports/html_model.hpp"

namespace redlock_sim::html {
namespace {

constexpr std::size_t violations_drawn_max = 50;

// The overlap (or any interval violation) as a band across the whole chart, outlined on the
// lanes of the clients involved, labelled in words so it does not rely on colour.
std::string interval_violation(const Model& model, const Violation& v) {
  const int64_t a = us_of(v.start);
  const int64_t b = std::max(us_of(v.end), a + 1);
  const double x0 = model.x_of(a);
  const double x1 = model.x_of(b);
  std::string names;
  for (ProcessId c : v.clients)
    names += (names.empty() ? "" : " ") + name_of(model, c);
  std::string out = "<g class=\"violation violation-" + v.kind + "\"" + attr("data-kind", v.kind) +
                    attr("data-clients", names) + times(a, b) +
                    attr("data-info", v.checker + ": " + v.description) + ">";
  out += "<rect class=\"violation-band\"" + times(a, b) + num("x", x0) +
         num("y", axis_height - 18) + num("width", std::max(x1 - x0, 2.0)) +
         num("height", model.chart_height() - axis_height + 10) + "/>";
  for (ProcessId c : v.clients) {
    out += "<rect class=\"violation-outline\"" + times(a, b) + num("x", x0) +
           num("y", model.lane_y(c) + 7) + num("width", std::max(x1 - x0, 2.0)) +
           num("height", 26) + "/>";
  }
  std::string both;
  for (std::size_t i = 0; i < v.clients.size(); ++i)
    both += (i ? " and " : "") + name_of(model, v.clients[i]);
  const std::string label =
      v.kind == "overlap" ? "OVERLAP " + ms_text(a) + "–" + ms_text(b) + " ms (" + ms_text(b - a) +
                                " ms): " + both + " both believe they hold the lock"
                          : v.kind + " " + ms_text(a) + "–" + ms_text(b) + " ms";
  out += "<text class=\"violation-label\"" + times(a, b) + num("x", std::max(x0, plot_left) + 4) +
         num("y", axis_height - 5) + ">" + escape(label) + "</text></g>";
  return out;
}

const ResourceOp* stale_op(const Model& model, const Violation& v) {
  for (const ResourceOp& op : model.result->resource_log) {
    if (op.applied_at == v.start && !v.grants.empty() && op.grant_id == v.grants.front())
      return &op;
  }
  return nullptr;
}

// A stale write: a vertical line from the writer's lane to the resource's, labelled.
std::string point_highlight(const Model& model, const ResourceOp& op, bool accepted,
                            const std::string& css_class, const std::string& info) {
  const int64_t a = us_of(op.applied_at);
  const auto resource = std::find_if(model.lanes.begin(), model.lanes.end(),
                                     [](const Lane& l) { return l.role == "resource"; });
  const double y_resource = resource == model.lanes.end() ? model.lane_y(op.client) : resource->y;
  const double y0 = std::min(model.lane_y(op.client), y_resource);
  const double y1 = std::max(model.lane_y(op.client), y_resource) + lane_height;
  const std::string label = accepted ? "STALE WRITE ACCEPTED" : "stale write rejected";
  return "<g class=\"" + css_class + "\"" + attr("data-accepted", accepted ? "true" : "false") +
         attr("data-client", name_of(model, op.client)) +
         attr("data-grant", std::to_string(op.grant_id)) + attr("data-info", info) + " data-a=\"" +
         std::to_string(a) + "\" transform=\"translate(" + coordinate(model.x_of(a)) +
         ",0)\"><line class=\"highlight-line\" x1=\"0\" x2=\"0\"" + num("y1", y0 + 2) +
         num("y2", y1 - 2) + "/><rect class=\"highlight-box\" x=\"-1\"" + num("y", y_resource + 1) +
         " width=\"" + coordinate(static_cast<double>(label.size()) * 7 + 10) +
         "\" height=\"16\"/><text class=\"highlight-label\" x=\"4\"" + num("y", y_resource + 13) +
         ">" + (accepted ? "✗ " : "✓ ") + label + "</text></g>";
}

std::string violations(const Model& model) {
  std::string out = "<g id=\"violations\">";
  std::size_t drawn = 0;
  for (const Violation& v : model.result->violations) {
    if (drawn == violations_drawn_max) break;
    if (v.kind == "stale_write") {
      const ResourceOp* op = stale_op(model, v);
      if (op == nullptr) continue;
      out += point_highlight(model, *op, true, "violation violation-stale_write",
                             v.checker + ": " + v.description);
    } else if (v.kind != "lost_update") {
      out += interval_violation(model, v);
    } else {
      continue;
    }
    ++drawn;
  }
  // What fencing stopped is the other half of the story: highlighted as well, in green.
  for (const ResourceOp& op : model.result->resource_log) {
    if (op.accepted || drawn++ >= violations_drawn_max) continue;
    out += point_highlight(model, op, false, "rejected-stale",
                           "the resource rejected " + std::string(resource_op_kind_name(op.kind)) +
                               " under grant " + std::to_string(op.grant_id) + ": " + op.rejection);
  }
  return out + "</g>";
}

std::string resource_ops(const Model& model) {
  std::string out = "<g id=\"resource-ops\">";
  for (std::size_t index : model.resource_ops) {
    const ResourceOp& op = model.result->resource_log[index];
    const bool write =
        op.kind == ResourceOpKind::write || op.kind == ResourceOpKind::write_if_owner;
    const double y = model.lane_y(op.client);
    const auto resource = std::find_if(model.lanes.begin(), model.lanes.end(),
                                       [](const Lane& l) { return l.role == "resource"; });
    const double lane_y = resource == model.lanes.end() ? y : resource->y;
    std::string label = std::string(write ? "w " : "r ") + std::to_string(op.value);
    if (op.token) label += " t" + std::to_string(*op.token);
    std::string info = name_of(model, op.client) + " " + resource_op_kind_name(op.kind) + " " +
                       std::to_string(op.value) + " under grant " + std::to_string(op.grant_id) +
                       (op.token ? ", token " + std::to_string(*op.token) : "") +
                       (op.accepted ? ": accepted" : ": rejected, " + op.rejection);
    const int64_t a = us_of(op.applied_at);
    out += "<g class=\"op op-" + std::string(write ? "write" : "read") +
           (op.accepted ? " accepted" : " rejected") + "\"" +
           attr("data-client", name_of(model, op.client)) + attr("data-info", info) + " data-a=\"" +
           std::to_string(a) + "\" transform=\"translate(" + coordinate(model.x_of(a)) + ",0)\">" +
           (op.accepted ? "<circle cx=\"0\"" + num("cy", lane_y + 28) + " r=\"4\"" +
                              attr("fill", write ? "#000000" : "#ffffff") + " stroke=\"#000000\"/>"
                        : "<path class=\"rejected-x\" d=\"M-4 " + coordinate(lane_y + 24) +
                              "l8 8m0 -8l-8 8\"/>") +
           "<text class=\"op-label\" x=\"6\"" + num("y", lane_y + 41) + ">" + escape(label) +
           "</text></g>";
  }
  return out + "</g>";
}

std::string messages(const Model& model) {
  std::string out = "<g id=\"messages\">";
  for (std::size_t index : model.messages) {
    const MessageLogEntry& m = model.result->messages[index];
    const double y0 = model.lane_y(m.from) + lane_height / 2;
    const double y_to = model.lane_y(m.to) + lane_height / 2;
    const int64_t a = us_of(m.sent_at);
    const bool lost = !m.delivered_at;
    const int64_t b = lost ? a : us_of(*m.delivered_at);
    // A lost message stops halfway, ending in a cross.
    const double y1 = lost ? (y0 + y_to) / 2 : y_to;
    const std::string fate = m.dropped
                                 ? std::string("dropped (") + drop_reason_name(*m.dropped) + ")"
                             : lost ? std::string("never delivered")
                                    : "delivered at " + ms_text(b) + " ms";
    out += "<line class=\"msg" + std::string(m.is_reply ? " reply" : "") + (lost ? " lost" : "") +
           "\"" + attr("data-from", name_of(model, m.from)) +
           attr("data-to", name_of(model, m.to)) +
           attr("data-info", name_of(model, m.from) + " → " + name_of(model, m.to) + ": " + m.text +
                                 "; sent at " + ms_text(a) + " ms, " + fate) +
           times(a, b) + num("x1", model.x_of(a)) + num("y1", y0) + num("x2", model.x_of(b)) +
           num("y2", y1) + (lost ? "" : " marker-end=\"url(#arrow)\"") + "/>";
  }
  return out + "</g>";
}

// Wall clock minus true time, in milliseconds, over one segment of a clock.
double offset_ms(const ClockPoint& p, int64_t at_us, double slope) {
  return (static_cast<double>(p.wall_us) + slope * static_cast<double>(at_us - p.at_us) -
          static_cast<double>(at_us)) /
         1'000.0;
}

struct OffsetLine {
  ProcessId process;
  std::vector<std::pair<int64_t, double>> points;  // true µs, offset ms
};

std::vector<OffsetLine> offset_lines(const Model& model, std::vector<std::string>& at_zero) {
  std::vector<OffsetLine> lines;
  for (const Lane& lane : model.lanes) {
    const std::vector<ClockPoint>& clock = model.clocks[lane.id];
    OffsetLine line{lane.id, {}};
    bool moved = false;
    for (std::size_t i = 0; i + 1 < clock.size(); ++i) {
      const ClockPoint& p = clock[i];
      const ClockPoint& q = clock[i + 1];
      const double slope = static_cast<double>(q.monotonic_us - p.monotonic_us) /
                           static_cast<double>(std::max<int64_t>(q.at_us - p.at_us, 1));
      line.points.emplace_back(p.at_us, offset_ms(p, p.at_us, slope));
      line.points.emplace_back(q.at_us, offset_ms(p, q.at_us, slope));
    }
    for (const auto& [at, value] : line.points)
      moved = moved || std::abs(value) >= 0.001;
    if (moved) {
      lines.push_back(std::move(line));
    } else {
      at_zero.push_back(lane.name);
    }
  }
  return lines;
}

}  // namespace

std::string chart_body(const Model& model) {
  return violations(model) + resource_ops(model) + messages(model);
}

std::string offset_svg(const Model& model) {
  std::vector<std::string> at_zero;
  const std::vector<OffsetLine> lines = offset_lines(model, at_zero);
  double extent = 1;
  for (const OffsetLine& line : lines) {
    for (const auto& [at, value] : line.points)
      extent = std::max(extent, std::abs(value));
  }
  const double middle = offset_plot_height / 2;
  const double scale = (middle - 14) / extent;
  const double span = static_cast<double>(model.window_end_us - model.window_start_us);
  const auto x_of = [&](int64_t at) {
    return plot_left +
           static_cast<double>(at - model.window_start_us) / span * (plot_right - plot_left);
  };
  std::string out = "<svg id=\"offsets\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
                    coordinate(svg_width) + " " + coordinate(offset_plot_height) + "\"" +
                    num("width", svg_width) + num("height", offset_plot_height) +
                    attr("data-extent-ms", coordinate(extent)) +
                    " role=\"img\" aria-label=\"Each process's wall clock minus true time\">";
  out += "<defs><clipPath id=\"offset-clip\"><rect" + num("x", plot_left) + " y=\"0\"" +
         num("width", plot_right - plot_left) + num("height", offset_plot_height) +
         "/></clipPath></defs>";
  for (double value : {extent, 0.0, -extent}) {
    const double y = middle - value * scale;
    out += "<line class=\"offset-grid\"" + num("x1", plot_left) + num("x2", plot_right) +
           num("y1", y) + num("y2", y) + "/><text class=\"tick offset-tick\"" +
           num("x", plot_left - 6) + num("y", y + 4) + ">" + (value > 0 ? "+" : "") +
           ms_text(static_cast<int64_t>(std::llround(value * 1'000))) + " ms</text>";
  }
  out += "<g clip-path=\"url(#offset-clip)\">";
  int node_lines = 0;
  for (const OffsetLine& line : lines) {
    const int c = model.colour_of(line.process);
    std::string points;
    for (const auto& [at, value] : line.points)
      points += (points.empty() ? "" : " ") + coordinate(x_of(at)) + "," +
                coordinate(middle - value * scale);
    // Lines differ by dash as well as colour; nodes are black with their own dash.
    const std::string dash =
        c >= 0 ? "none" : (node_lines++ == 0 ? "none" : std::to_string(2 + 3 * node_lines) + " 3");
    out += "<polyline class=\"offset-line\"" + attr("data-process", name_of(model, line.process)) +
           attr("points", points) + attr("stroke", c >= 0 ? palette[c] : "#000000") +
           attr("stroke-dasharray", dash) + "/>";
  }
  out += "</g>";
  for (const OffsetLine& line : lines) {
    out += "<text class=\"offset-label\"" + attr("data-process", name_of(model, line.process)) +
           num("x", 8) + num("y", middle - line.points.back().second * scale + 4) + ">" +
           escape(name_of(model, line.process)) + "</text>";
  }
  if (!at_zero.empty()) {
    std::string names;
    for (const std::string& n : at_zero)
      names += (names.empty() ? "" : ", ") + n;
    out += "<text class=\"offset-zero-label\"" + num("x", plot_left + 4) + num("y", middle - 4) +
           ">0 offset: " + escape(names) + "</text>";
  }
  return out + "</svg>";
}

}  // namespace redlock_sim::html
