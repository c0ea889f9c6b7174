#include <algorithm>
#include <cstdio>
#include <functional>

#include "reports/html_model.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim::html {

std::string ms_text(int64_t us) {
  const bool negative = us < 0;
  const int64_t magnitude = negative ? -us : us;
  std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1'000);
  int64_t fraction = magnitude % 1'000;
  if (fraction == 0) return out;
  int digits = 3;
  while (fraction % 10 == 0) {
    fraction /= 10;
    --digits;
  }
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, ".%0*lld", digits, static_cast<long long>(fraction));
  return out + buffer;
}

std::string coordinate(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return std::string(buffer) == "-0.0" ? "0.0" : buffer;
}

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

int64_t tick_step_us(int64_t span_us) {
  const int64_t target = std::max<int64_t>(span_us / 8, 1);
  for (int64_t power = 1;; power *= 10) {
    for (int64_t factor : {1, 2, 5}) {
      if (factor * power >= target) return factor * power;
    }
  }
}

std::string tick_label(int64_t at_us, int64_t step_us) {
  if (step_us >= 1'000'000) return ms_text(at_us / 1'000) + " s";
  return ms_text(at_us) + " ms";
}

double Model::x_of(int64_t at_us) const {
  const double span = static_cast<double>(std::max<int64_t>(window_end_us - window_start_us, 1));
  const double x =
      plot_left + static_cast<double>(at_us - window_start_us) / span * (plot_right - plot_left);
  return std::clamp(x, plot_left - 4, plot_right + 4);
}

int64_t Model::end_us(Instant end) const {
  return end == Instant::max() ? run_end_us : std::min(us_of(end), run_end_us);
}

namespace {

int role_rank(const std::string& role) {
  if (role == "client") return 0;
  if (role == "node") return 1;
  if (role == "resource") return 2;
  if (role == "sentinel") return 3;
  return 4;
}

void plan_lanes(Model& model) {
  const ScenarioResult& result = *model.result;
  std::vector<ProcessId> order;
  for (ProcessId id = 0; id < result.processes.size(); ++id)
    order.push_back(id);
  std::stable_sort(order.begin(), order.end(), [&](ProcessId a, ProcessId b) {
    return role_rank(result.processes[a].role) < role_rank(result.processes[b].role);
  });
  model.lane_of.assign(result.processes.size(), 0);
  int clients = 0;
  for (ProcessId id : order) {
    const ProcessInfo& info = result.processes[id];
    Lane lane{.id = id,
              .name = info.name,
              .role = info.role,
              .y = axis_height + lane_height * static_cast<double>(model.lanes.size())};
    if (info.role == "client") lane.colour = clients++ % static_cast<int>(palette_size);
    model.lane_of[id] = static_cast<int>(model.lanes.size());
    model.lanes.push_back(lane);
  }
}

// Pauses and crashes as intervals, clock changes as marks, from the trace (structured) rather
// than from the story's sentences.
void collect_trace_faults(Model& model) {
  const ScenarioResult& result = *model.result;
  std::map<ProcessId, int64_t> paused_since;
  std::map<ProcessId, int64_t> down_since;
  for (const TraceRecord& r : result.trace) {
    const int64_t at = r.time_ns / 1'000;
    const ProcessId p = r.process;
    switch (r.kind) {
      case TraceKind::process_paused:
        paused_since.emplace(p, at);
        break;
      case TraceKind::process_resumed:
        if (paused_since.count(p)) model.pauses.push_back({p, paused_since[p], at});
        paused_since.erase(p);
        break;
      case TraceKind::process_crashed:
        down_since.emplace(p, at);
        model.marks.push_back({p, at, "crash", "crash", "crashed: its memory is gone"});
        break;
      case TraceKind::process_restarted:
        if (down_since.count(p)) model.downs.push_back({p, down_since[p], at});
        down_since.erase(p);
        model.marks.push_back({p, at, "restart", "restart", "restarted"});
        break;
      case TraceKind::clock_stepped: {
        const int64_t delta_us = static_cast<int64_t>(r.a) / 1'000;
        const std::string text = (delta_us >= 0 ? "+" : "") + ms_text(delta_us) + " ms";
        model.marks.push_back({p, at, "clock-step", "wall " + text, "wall clock stepped " + text});
        break;
      }
      case TraceKind::clock_rate_set: {
        const std::string rate = std::to_string(r.a) + "/" + std::to_string(r.b);
        model.marks.push_back({p, at, "clock-rate", "rate " + rate, "clock rate set to " + rate});
        break;
      }
      default:
        break;
    }
  }
  // A failover: the node's promotion is where the lock's reality moves.
  for (const RunEvent& e : result.events) {
    if (e.kind == RunEventKind::cluster && (e.cluster.kind == ClusterEventKind::promoted ||
                                            e.cluster.kind == ClusterEventKind::promoted_slave)) {
      model.marks.push_back(
          {e.process, us_of(e.at), "failover", "promoted", run_event_story(e)->text});
    }
  }
  for (const auto& [p, since] : paused_since)
    model.pauses.push_back({p, since, model.run_end_us});
  for (const auto& [p, since] : down_since)
    model.downs.push_back({p, since, model.run_end_us});
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + names[i];
  return out;
}

// The trace keeps its first records only (RunOptions::trace_records_max): faults after its end
// are drawn from the run's events instead.
void add_faults_past_the_trace(Model& model) {
  const ScenarioResult& result = *model.result;
  if (!result.trace_truncated || result.trace.empty()) return;
  const int64_t trace_end_us = result.trace.back().time_ns / 1'000;
  for (const RunEvent& e : result.events) {
    if (e.kind != RunEventKind::fault_applied) continue;
    const FaultSpec& fault = e.fault;
    const int64_t at = fault.at_ms * 1'000;
    if (at <= trace_end_us || fault.target.empty()) continue;
    const ProcessId p = e.process;
    const FaultKindDescriptor& kind = fault_kind(fault.kind);
    if (kind.drawing == nullptr) continue;
    const FaultDrawing drawing = kind.drawing(fault);
    if (drawing.past_trace) {
      model.marks.push_back(
          {p, at, drawing.past_trace->style, drawing.past_trace->label, drawing.past_trace->title});
    } else if (drawing.pause_band_ms) {
      model.pauses.push_back(
          {p, at, std::min(at + *drawing.pause_band_ms * 1'000, model.run_end_us)});
    }
  }
}

// Partitions and held messages, from the run's events.
void collect_network_faults(Model& model, const std::map<std::string, ProcessId>& id_of) {
  const std::vector<RunEvent>& events = model.result->events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const RunEvent& e = events[i];
    if (e.kind != RunEventKind::fault_applied) continue;
    const FaultSpec& fault = e.fault;
    // A cut that began before the run is drawn from time zero and says when it began.
    const int64_t start = std::max<int64_t>(fault.at_ms, 0) * 1'000;
    const std::string since =
        fault.at_ms < 0 ? " since " + std::to_string(fault.at_ms) + " ms" : std::string();
    const FaultKindDescriptor& kind = fault_kind(fault.kind);
    if (kind.drawing != nullptr && id_of.count(fault.from)) {
      if (const std::optional<FaultMark> mark = kind.drawing(fault).sender_mark)
        model.marks.push_back({id_of.at(fault.from), start, mark->style, mark->label, mark->title});
    }
    if (!kind.cuts_sides) continue;
    int64_t end = fault.until_ms ? *fault.until_ms * 1'000 : model.run_end_us;
    for (const RunEvent& heal : events) {
      if (heal.ends == i) end = std::min(end, heal.fault.at_ms * 1'000);
    }
    const auto band = [&](const std::vector<std::string>& side, const std::string& label) {
      for (const std::string& name : side) {
        if (id_of.count(name))
          model.partitions.push_back(
              {id_of.at(name), start, std::min(end, model.run_end_us), label});
      }
    };
    if (fault.one_way) {
      band(fault.side_a, "cannot reach " + joined_names(fault.side_b) + since);
      band(fault.side_b, "unreachable from " + joined_names(fault.side_a) + since);
    } else {
      band(fault.side_a, "cut off from " + joined_names(fault.side_b) + since);
      band(fault.side_b, "cut off from " + joined_names(fault.side_a) + since);
    }
  }
  add_faults_past_the_trace(model);
  std::stable_sort(model.marks.begin(), model.marks.end(),
                   [](const Mark& a, const Mark& b) { return a.at_us < b.at_us; });
}

ClockPoint clock_point(const ProcessClock& clock, int64_t at_us) {
  const Instant at = Instant::from_ns(at_us * 1'000);
  return {at_us, clock.wall_at(at).ns() / 1'000 - default_epoch_ms * 1'000,
          clock.monotonic_at(at).ns() / 1'000};
}

// Adds points until every segment is linear: a change the trace does not show (a slew's end)
// shows up as a reading off the line, just before `b` or halfway.
void refine(const ProcessClock& clock, const ClockPoint& a, const ClockPoint& b,
            std::vector<ClockPoint>& out, int depth) {
  const int64_t span = b.at_us - a.at_us;
  if (span <= 2 || depth >= 40) return;
  const ClockPoint mid = clock_point(clock, a.at_us + span / 2);
  const ClockPoint last = clock_point(clock, b.at_us - 1);
  const auto offset = [](const ClockPoint& p) { return p.wall_us - p.monotonic_us; };
  const double fraction =
      static_cast<double>(mid.at_us - a.at_us) / static_cast<double>(last.at_us - a.at_us);
  const double mono = static_cast<double>(a.monotonic_us) +
                      fraction * static_cast<double>(last.monotonic_us - a.monotonic_us);
  const bool linear = std::abs(offset(mid) - offset(a)) <= 1 &&
                      std::abs(offset(last) - offset(a)) <= 1 &&
                      std::abs(mono - static_cast<double>(mid.monotonic_us)) <= 1.5;
  if (linear) return;
  refine(clock, a, mid, out, depth + 1);
  out.push_back(mid);
  refine(clock, mid, b, out, depth + 1);
}

void collect_clocks(Model& model) {
  const ScenarioResult& result = *model.result;
  std::vector<std::set<int64_t>> changes(result.clocks.size());
  for (const TraceRecord& r : result.trace) {
    if ((r.kind == TraceKind::clock_stepped || r.kind == TraceKind::clock_rate_set) &&
        r.process < changes.size())
      changes[r.process].insert(r.time_ns / 1'000);
  }
  for (ProcessId id = 0; id < result.clocks.size(); ++id) {
    std::set<int64_t>& at = changes[id];
    at.insert(0);
    at.insert(model.run_end_us);
    std::vector<ClockPoint> points;
    for (int64_t t : at) {
      if (t > model.run_end_us) continue;
      const ClockPoint point = clock_point(result.clocks[id], t);
      if (!points.empty()) refine(result.clocks[id], points.back(), point, points, 0);
      points.push_back(point);
    }
    model.clocks.push_back(std::move(points));
  }
}

// The window the page opens on: the first violation and the holds and faults that made it, or
// the part of the run where something happened.
void plan_window(Model& model) {
  const ScenarioResult& result = *model.result;
  int64_t start = model.run_end_us;
  int64_t end = 0;
  if (!result.violations.empty()) {
    const Violation& v = result.violations.front();
    start = us_of(v.start);
    end = us_of(v.end);
    for (const HoldInterval& h : result.holds) {
      if (std::find(v.grants.begin(), v.grants.end(), h.grant_id) == v.grants.end()) continue;
      start = std::min(start, us_of(h.start));
      end = std::max(end, model.end_us(h.end));
    }
  } else {
    for (const StoryEvent& e : result.story) {
      start = std::min(start, us_of(e.at));
      end = std::max(end, us_of(e.at));
    }
    for (const HoldInterval& h : result.holds)
      end = std::max(end, model.end_us(h.end));
    for (const KeyLifetime& k : result.keys)
      end = std::max(end, model.end_us(k.end));
  }
  if (end <= start) {
    start = 0;
    end = model.run_end_us;
  }
  // More room on the right: labels of marks (a stale write's) extend rightwards.
  const int64_t margin = std::max<int64_t>((end - start) / 20, 1'000);
  model.window_start_us = std::max<int64_t>(start - margin, 0);
  model.window_end_us = std::min(end + 3 * margin, std::max(model.run_end_us, end));
}

// Up to `limit` indices out of `count`, those meeting the window first, in time order.
std::vector<std::size_t> select(const Model& model, std::size_t count, std::size_t limit,
                                const std::function<std::pair<int64_t, int64_t>(std::size_t)>& span,
                                const std::function<bool(std::size_t)>& wanted,
                                const std::string& what, std::vector<std::string>& omitted) {
  std::vector<std::size_t> inside;
  std::vector<std::size_t> outside;
  for (std::size_t i = 0; i < count; ++i) {
    if (!wanted(i)) continue;
    const auto [start, end] = span(i);
    const bool meets = start <= model.window_end_us && end >= model.window_start_us;
    (meets ? inside : outside).push_back(i);
  }
  const std::size_t total = inside.size() + outside.size();
  std::vector<std::size_t> chosen(inside.begin(), inside.begin() + std::min(limit, inside.size()));
  for (std::size_t i = 0; i < outside.size() && chosen.size() < limit; ++i)
    chosen.push_back(outside[i]);
  std::sort(chosen.begin(), chosen.end());
  if (chosen.size() < total) {
    omitted.push_back("drew " + std::to_string(chosen.size()) + " of " + std::to_string(total) +
                      " " + what + " (those in the opening window first)");
  }
  return chosen;
}

void select_items(Model& model, const HtmlOptions& options) {
  const ScenarioResult& r = *model.result;
  const auto all = [](std::size_t) { return true; };
  model.holds = select(
      model, r.holds.size(), options.holds_drawn_max,
      [&](std::size_t i) {
        return std::pair{us_of(r.holds[i].start), model.end_us(r.holds[i].end)};
      },
      all, "hold intervals", model.omitted);
  model.keys = select(
      model, r.keys.size(), options.keys_drawn_max,
      [&](std::size_t i) {
        return std::pair{us_of(r.keys[i].start), model.end_us(r.keys[i].end)};
      },
      [&](std::size_t i) { return r.locks.count(r.keys[i].key) != 0; }, "key lifetimes",
      model.omitted);
  const auto story_span = [&](std::size_t i) {
    return std::pair{us_of(r.story[i].at), us_of(r.story[i].at)};
  };
  model.events = select(
      model, r.story.size(), options.events_drawn_max, story_span,
      [&](std::size_t i) { return r.story[i].kind != StoryKind::fault; }, "story events",
      model.omitted);
  model.steps = select(model, r.story.size(), options.steps_max, story_span, all,
                       "steps of the step-through", model.omitted);
  model.messages = select(
      model, r.messages.size(), options.messages_drawn_max,
      [&](std::size_t i) {
        const MessageLogEntry& m = r.messages[i];
        return std::pair{us_of(m.sent_at),
                         m.delivered_at ? us_of(*m.delivered_at) : us_of(m.sent_at)};
      },
      all, "messages", model.omitted);
  model.resource_ops = select(
      model, r.resource_log.size(), options.resource_ops_drawn_max,
      [&](std::size_t i) {
        return std::pair{us_of(r.resource_log[i].applied_at), us_of(r.resource_log[i].applied_at)};
      },
      all, "resource operations", model.omitted);
  if (r.trace_truncated)
    model.omitted.push_back("the trace was cut at its record limit: later faults are not drawn");
}

}  // namespace

Model build_model(const ScenarioResult& result, const HtmlOptions& options) {
  Model model;
  model.result = &result;
  model.run_end_us = std::max<int64_t>(result.stats.simulated_ms * 1'000, 1'000);
  for (const GrantRecord& g : result.history.grants())
    model.owner_of_token.emplace(g.token, g.client);
  std::map<std::string, ProcessId> id_of;
  for (ProcessId id = 0; id < result.processes.size(); ++id)
    id_of.emplace(result.processes[id].name, id);
  plan_lanes(model);
  collect_trace_faults(model);
  collect_network_faults(model, id_of);
  collect_clocks(model);
  plan_window(model);
  select_items(model, options);
  return model;
}

}  // namespace redlock_sim::html
