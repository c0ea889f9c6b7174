// The two SVG pictures of the HTML report: the lanes chart and the clock-offset plot. Every
// element placed in time carries its true time in microseconds (data-a, data-b), from which the
// page's script re-lays it out when zooming; the coordinates written here are for the window the
// page opens on.
#include <algorithm>
#include <cmath>

#include "reports/html_model.hpp"

namespace redlock_sim::html {
namespace {

std::string colour(const Model& model, ProcessId client) {
  const int index = model.lane_of.size() > client ? model.colour_of(client) : -1;
  return index < 0 ? "#777777" : palette[index];
}

// A bar from a to b on a lane, with a label inside when it fits (the script re-decides when
// zooming: about 6.2 px per character at the labels' size).
std::string bar(const Model& model, int64_t a_us, int64_t b_us, double y, double height,
                const std::string& css_class, const std::string& fill, const std::string& label) {
  const double x0 = model.x_of(a_us);
  const double x1 = model.x_of(b_us);
  std::string out = "<rect" + attr("class", css_class) + times(a_us, b_us) + num("x", x0) +
                    num("y", y) + num("width", std::max(x1 - x0, 3.0)) + num("height", height) +
                    attr("fill", fill) + "/>";
  if (!label.empty()) {
    const double width = static_cast<double>(label.size()) * 6.2;
    const double left = std::max(x0, plot_left) + 4;
    const bool fits = std::min(x1, plot_right) - left >= width;
    out += "<text class=\"bar-label\"" + times(a_us, b_us) + num("x", left) +
           num("y", y + height / 2 + 4) + (fits ? "" : " visibility=\"hidden\"") + ">" +
           escape(label) + "</text>";
  }
  return out;
}

std::string defs() {
  std::string out = "<defs>";
  out += "<clipPath id=\"plot-clip\"><rect" + num("x", plot_left) + num("y", 0) +
         num("width", plot_right - plot_left) + num("height", 100000) + "/></clipPath>";
  // Key lifetimes are striped in their owner's colour, so they differ from holds without colour.
  for (std::size_t i = 0; i < palette_size; ++i) {
    out += "<pattern id=\"key-" + std::to_string(i) +
           "\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#ffffff\"/>"
           "<rect width=\"4\" height=\"8\"" +
           attr("fill", palette[i]) + "/></pattern>";
  }
  out +=
      "<pattern id=\"key-none\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#ffffff\"/>"
      "<rect width=\"4\" height=\"8\" fill=\"#777777\"/></pattern>"
      "<pattern id=\"pat-pause\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
      "<rect width=\"1.5\" height=\"6\" fill=\"#888888\"/></pattern>"
      "<pattern id=\"pat-down\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
      "<rect width=\"6\" height=\"6\" fill=\"#dddddd\"/><path d=\"M0 0L6 6M6 0L0 6\" "
      "stroke=\"#333333\" stroke-width=\"1\"/></pattern>"
      "<pattern id=\"pat-overlap\" width=\"10\" height=\"10\" patternUnits=\"userSpaceOnUse\">"
      "<path d=\"M0 0L10 10M10 0L0 10\" stroke=\"#D55E00\" stroke-width=\"1.2\" "
      "stroke-opacity=\"0.55\"/></pattern>"
      "<pattern id=\"pat-partition\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
      "<rect width=\"6\" height=\"6\" fill=\"#ffffff\"/><circle cx=\"3\" cy=\"3\" r=\"1.3\" "
      "fill=\"#555555\"/></pattern>"
      "<marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"7\" "
      "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L8 4L0 8z\" "
      "fill=\"#555555\"/></marker>"
      "</defs>";
  return out;
}

std::string axis(const Model& model) {
  const int64_t step = tick_step_us(model.window_end_us - model.window_start_us);
  std::string out = "<g id=\"axis\">";
  const int64_t first = (model.window_start_us + step - 1) / step * step;
  for (int64_t t = first; t <= model.window_end_us; t += step) {
    const double x = model.x_of(t);
    out += "<line class=\"grid\"" + num("x1", x) + num("x2", x) + num("y1", 20) +
           num("y2", model.chart_height()) + "/><text class=\"tick\"" + num("x", x) + num("y", 14) +
           ">" + tick_label(t, step) + "</text>";
  }
  return out + "<text class=\"axis-title\"" + num("x", 8) + num("y", 14) + ">true time</text></g>";
}

std::string lanes(const Model& model) {
  std::string out = "<g id=\"lanes\">";
  for (std::size_t i = 0; i < model.lanes.size(); ++i) {
    const Lane& lane = model.lanes[i];
    out += "<g class=\"lane\"" + attr("data-process", lane.name) + attr("data-role", lane.role) +
           "><rect class=\"lane-bg" + std::string(i % 2 ? " odd" : "") + "\"" + num("x", 0) +
           num("y", lane.y) + num("width", svg_width) + num("height", lane_height) + "/>";
    if (lane.colour >= 0) {
      out += "<rect class=\"lane-swatch\"" + num("x", 4) + num("y", lane.y + 8) + num("width", 6) +
             num("height", lane_height - 16) + attr("fill", palette[lane.colour]) + "/>";
    }
    out += "<text class=\"lane-label\"" + num("x", 16) + num("y", lane.y + 20) + ">" +
           escape(lane.name) + "</text><text class=\"lane-role\"" + num("x", 16) +
           num("y", lane.y + 35) + ">" + escape(lane.role) + "</text></g>";
  }
  return out + "</g>";
}

std::string backgrounds(const Model& model) {
  std::string out = "<g id=\"partitions\">";
  for (const PartitionBand& p : model.partitions) {
    const double y = model.lane_y(p.process) + 34;
    out += "<g class=\"fault partition\"" + attr("data-process", name_of(model, p.process)) +
           attr("data-info", "partition: " + p.label) + ">" +
           bar(model, p.start_us, p.end_us, y, 10, "partition-band", "url(#pat-partition)", "") +
           "<text class=\"partition-label\"" + times(p.start_us, p.end_us) +
           num("x", std::max(model.x_of(p.start_us), plot_left) + 4) + num("y", y + 8) + ">" +
           escape(p.label) + "</text></g>";
  }
  out += "</g><g id=\"downs\">";
  for (const Span& s : model.downs) {
    out += "<g class=\"fault down\"" + attr("data-process", name_of(model, s.process)) +
           attr("data-info", "down (crashed) until restarted") + ">" +
           bar(model, s.start_us, s.end_us, model.lane_y(s.process) + 2, lane_height - 4,
               "down-band", "url(#pat-down)", "down") +
           "</g>";
  }
  out += "</g><g id=\"pauses\">";
  for (const Span& s : model.pauses) {
    out += "<g class=\"fault pause\"" + attr("data-process", name_of(model, s.process)) +
           attr("data-info", "paused (stop-the-world) for " + ms_text(s.end_us - s.start_us) +
                                 " ms: its clocks keep running") +
           ">" +
           bar(model, s.start_us, s.end_us, model.lane_y(s.process) + 2, lane_height - 4,
               "pause-band", "url(#pat-pause)", "") +
           "<text class=\"bar-label pause-label\"" + times(s.start_us, s.end_us) +
           num("x", std::max(model.x_of(s.start_us), plot_left) + 4) +
           num("y", model.lane_y(s.process) + 43) + ">paused " + ms_text(s.end_us - s.start_us) +
           " ms</text></g>";
  }
  return out + "</g>";
}

std::string key_label(const Model& model, const KeyLifetime& k) {
  const auto owner = model.owner_of_token.find(k.value);
  std::string label = owner == model.owner_of_token.end()
                          ? "key " + k.key
                          : name_of(model, owner->second) + "'s key";
  if (k.end_reason != "run_end") label += " · " + k.end_reason;
  return label;
}

std::string keys(const Model& model) {
  std::string out = "<g id=\"keys\">";
  for (std::size_t index : model.keys) {
    const KeyLifetime& k = model.result->keys[index];
    const auto owner = model.owner_of_token.find(k.value);
    const bool known = owner != model.owner_of_token.end();
    const int c = known ? model.colour_of(owner->second) : -1;
    std::string info = "node " + name_of(model, k.node) + " held '" + k.key +
                       "' = " + (known ? name_of(model, owner->second) + "'s token" : k.value) +
                       " from " + ms_text(us_of(k.start)) + " ms true time";
    // An expired key: the first millisecond the node reads it as missing (now > when).
    if (k.expires_from_ms) {
      info += ", expires from " + std::to_string(*k.expires_from_ms) +
              " ms (its wall clock passed when = " +
              std::to_string(*k.expire_at_ms - default_epoch_ms) + ")";
    } else {
      info += " to " + ms_text(model.end_us(k.end)) + " ms (" + k.end_reason + ")";
    }
    if (k.expire_at_ms && !k.expires_from_ms) {
      const int64_t when = *k.expire_at_ms - default_epoch_ms;
      info += "; when = " + std::to_string(when) +
              " ms on the node's own wall clock (it reads as missing from " +
              std::to_string(when + 1) + ")";
    }
    out +=
        "<g class=\"key\"" + attr("data-node", name_of(model, k.node)) +
        attr("data-owner", known ? name_of(model, owner->second) : "") +
        attr("data-end", k.end_reason) + attr("data-info", info) + ">" +
        bar(model, us_of(k.start), model.end_us(k.end), model.lane_y(k.node) + 9, 22, "key-bar",
            c < 0 ? "url(#key-none)" : "url(#key-" + std::to_string(c) + ")", key_label(model, k)) +
        "</g>";
  }
  return out + "</g>";
}

std::string holds(const Model& model) {
  std::string out = "<g id=\"holds\">";
  for (std::size_t index : model.holds) {
    const HoldInterval& h = model.result->holds[index];
    const bool open = h.end == Instant::max();
    const std::string name = name_of(model, h.client);
    const std::string info =
        name + " believed it held '" + h.lock + "' (grant " + std::to_string(h.grant_id) +
        ") from " + ms_text(us_of(h.start)) + " to " +
        (open ? "the end of the run" : ms_text(us_of(h.end)) + " ms") + " true time";
    out += "<g class=\"hold\"" + attr("data-client", name) +
           attr("data-grant", std::to_string(h.grant_id)) + attr("data-info", info) + ">" +
           bar(model, us_of(h.start), model.end_us(h.end), model.lane_y(h.client) + 9, 22,
               "hold-bar", colour(model, h.client),
               name + " holds · grant " + std::to_string(h.grant_id) + (open ? " →" : "")) +
           "</g>";
  }
  return out + "</g>";
}

// A clock step that makes a node drop a key at once says so: that is the whole story of a jump.
std::string mark_label(const Model& model, const Mark& m) {
  if (m.kind != "clock-step") return m.label;
  for (const KeyLifetime& k : model.result->keys) {
    if (k.node != m.process || k.end_reason != "expired" || us_of(k.end) != m.at_us) continue;
    const auto owner = model.owner_of_token.find(k.value);
    const std::string from = " from " + std::to_string(k.expires_from_ms.value_or(0));
    if (owner == model.owner_of_token.end()) return m.label + ": its key expires" + from;
    return m.label + ": " + name_of(model, owner->second) + "'s key expires" + from;
  }
  return m.label;
}

std::string mark(const Model& model, const Mark& m) {
  const double y = model.lane_y(m.process);
  const double x = model.x_of(m.at_us);
  std::string shape;
  if (m.kind == "clock-step") {
    shape = "<line class=\"mark-line\" x1=\"0\" x2=\"0\"" + num("y1", y + 1) +
            num("y2", y + lane_height - 1) + "/><path class=\"mark-icon\" d=\"M-5 " +
            coordinate(y + 2) + "h10l-5 8z\"/>";
  } else if (m.kind == "clock-rate") {
    shape = "<line class=\"mark-line dashed\" x1=\"0\" x2=\"0\"" + num("y1", y + 1) +
            num("y2", y + lane_height - 1) + "/><circle class=\"mark-icon\" cx=\"0\"" +
            num("cy", y + 6) + " r=\"4\"/>";
  } else if (m.kind == "failover") {
    shape = "<line class=\"mark-line\" x1=\"0\" x2=\"0\"" + num("y1", y + 1) +
            num("y2", y + lane_height - 1) + "/><path class=\"mark-icon\" d=\"M0 " +
            coordinate(y + 1) + "l5 5l-5 5l-5 -5z\"/>";
  } else if (m.kind == "crash") {
    shape =
        "<path class=\"mark-icon crash\" d=\"M-5 " + coordinate(y + 2) + "l10 10m0 -10l-10 10\"/>";
  } else {
    shape = "<path class=\"mark-icon\" d=\"M-5 " + coordinate(y + 2) + "l5 8l5 -8z\"/>";
  }
  return "<g class=\"fault mark mark-" + m.kind + "\"" +
         attr("data-process", name_of(model, m.process)) + attr("data-info", m.info) +
         time_at(m.at_us) + " transform=\"translate(" + coordinate(x) + ",0)\">" + shape +
         "<text class=\"mark-label\" x=\"6\"" + num("y", y + 10) + ">" +
         escape(mark_label(model, m)) + "</text></g>";
}

std::string events(const Model& model) {
  std::string out = "<g id=\"events\">";
  for (std::size_t index : model.events) {
    const StoryEvent& e = model.result->story[index];
    const std::string kind(story_kind_name(e.kind));
    out += "<circle class=\"ev ev-" + kind + "\"" + attr("data-i", std::to_string(index)) +
           attr("data-info", kind + ": " + e.text) + time_at(us_of(e.at)) +
           num("cx", model.x_of(us_of(e.at))) + num("cy", model.lane_y(e.process) + 5) +
           " r=\"2.5\"/>";
  }
  out += "</g><g id=\"marks\">";
  for (const Mark& m : model.marks)
    out += mark(model, m);
  return out + "</g>";
}

}  // namespace

std::string chart_body(const Model& model);

std::string chart_svg(const Model& model) {
  const double height = model.chart_height();
  return "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\"" +
         attr("viewBox", "0 0 " + coordinate(svg_width) + " " + coordinate(height)) +
         num("width", svg_width) + num("height", height) +
         " role=\"img\" aria-label=\"Lanes per process on a true-time axis\">" + defs() +
         axis(model) + lanes(model) + "<g id=\"plot\" clip-path=\"url(#plot-clip)\">" +
         backgrounds(model) + keys(model) + holds(model) + chart_body(model) + events(model) +
         "<line id=\"cursor\" class=\"cursor\"" + num("x1", plot_left) + num("x2", plot_left) +
         num("y1", 20) + num("y2", height) + " visibility=\"hidden\"/></g></svg>";
}

}  // namespace redlock_sim::html
