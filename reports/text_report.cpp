#include "reports/text_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "reports/story.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim {

namespace {

std::string format(const char* pattern, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, pattern, args...);
  return buffer;
}

std::string upper_verdict(Verdict v) {
  switch (v) {
    case Verdict::holds:
      return "holds";
    case Verdict::violated:
      return "VIOLATED";
    case Verdict::not_checked:
      return "not checked";
  }
  return "?";
}

const std::string& name_of(const ScenarioResult& result, ProcessId id) {
  return result.processes.at(id).name;
}

std::size_t name_width(const ScenarioResult& result) {
  std::size_t width = 4;
  for (const ProcessInfo& p : result.processes)
    width = std::max(width, p.name.size());
  return width;
}

std::string story_line(const ScenarioResult& result, const StoryEvent& e, std::size_t width) {
  return format("  %9lld ms  %-*s  %s\n", static_cast<long long>(e.at.ms_floor()),
                static_cast<int>(width), name_of(result, e.process).c_str(), e.text.c_str());
}

// The story of the first violation: the grants involved, the faults before it, the outcome, and
// where the keys of the grants involved expired (the first millisecond a node reads each as
// missing, "expires from T"), up to the violation's end.
std::string violation_story(const ScenarioResult& result, const Violation& v) {
  const std::size_t width = name_width(result);
  std::map<std::string, ProcessId> owner_of_token;
  for (const GrantRecord& g : result.history.grants()) {
    if (std::find(v.grants.begin(), v.grants.end(), g.grant_id) != v.grants.end()) {
      owner_of_token[g.token] = g.client;
    }
  }
  std::vector<std::pair<int64_t, std::string>> lines;  // (true ms, line), stable by time
  for (const StoryEvent* e : violation_story_events(result, v))
    lines.emplace_back(e->at.ms_floor(), story_line(result, *e, width));
  for (const KeyLifetime& k : result.keys) {
    const auto owner = owner_of_token.find(k.value);
    if (!k.expires_from_ms || owner == owner_of_token.end() || k.end > v.end) continue;
    const std::string text = name_of(result, owner->second) + "'s key " + k.key + " expires from " +
                             std::to_string(*k.expires_from_ms) + " (its clock passed when = " +
                             std::to_string(*k.expire_at_ms - default_epoch_ms) + ")";
    lines.emplace_back(
        *k.expires_from_ms,
        format("  %9lld ms  %-*s  %s\n", static_cast<long long>(*k.expires_from_ms),
               static_cast<int>(width), name_of(result, k.node).c_str(), text.c_str()));
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [at_ms, line] : lines)
    out += line;
  return out;
}

// The grant's hold interval that meets the violation, else its first (a grant has one hold
// interval; this stays correct for a history that has several).
std::string hold_summary(const ScenarioResult& result, uint64_t grant_id, const Violation& v) {
  const HoldInterval* chosen = nullptr;
  for (const HoldInterval& h : result.holds) {
    if (h.grant_id != grant_id) continue;
    if (chosen == nullptr) chosen = &h;
    if (h.start < v.end && v.start < h.end) {
      chosen = &h;
      break;
    }
  }
  if (chosen != nullptr) {
    const HoldInterval& h = *chosen;
    const bool open = h.end == Instant::max();
    return format("%s held it from %lld ms to %s", name_of(result, h.client).c_str(),
                  static_cast<long long>(h.start.ms_floor()),
                  open ? "the end" : (std::to_string(h.end.ms_floor()) + " ms").c_str());
  }
  return "grant " + std::to_string(grant_id);
}

}  // namespace

std::string summary_text(const ScenarioResult& result, const std::string& description,
                         const std::string& command) {
  std::string out = format("seed %llu\n", static_cast<unsigned long long>(result.seed));
  out += "scenario " + result.scenario + "\n";
  if (!description.empty()) out += "  " + description + "\n";
  out +=
      format("  mutual exclusion  %s\n  resource safety   %s\n  liveness          %s\n",
             upper_verdict(result.mutual_exclusion).c_str(),
             upper_verdict(result.resource_safety).c_str(), upper_verdict(result.liveness).c_str());
  for (const Violation& v : result.violations) {
    out += "\nWhat happened (" + v.checker + ", " + v.kind + "):\n";
    out += violation_story(result, v);
    if (v.kind == "overlap" && v.grants.size() == 2) {
      out += "  => " + hold_summary(result, v.grants[0], v) + ";\n     " +
             hold_summary(result, v.grants[1], v) + ":\n     both believed they held it during [" +
             std::to_string(v.start.ms_floor()) + ", " + std::to_string(v.end.ms_floor()) +
             ") ms, " + std::to_string((v.end - v.start).ms_floor()) + " ms.\n";
    } else {
      out += "  => " + v.description + "\n";
    }
    break;  // the first violation tells the story; the JSON lists them all
  }
  if (result.resource_detail) {
    const ResourceSafetyResult& rs = *result.resource_detail;
    out += format(
        "\nResource: final value %lld, %llu increment(s) acknowledged, %llu stale "
        "operation(s) rejected\n",
        static_cast<long long>(rs.final_value),
        static_cast<unsigned long long>(rs.increments_acknowledged),
        static_cast<unsigned long long>(rs.stale_operations_rejected));
    for (const ResourceOp& op : result.resource_log) {
      if (op.accepted) continue;
      out += format("  %9lld ms  rejected %s from %s under grant %llu: %s\n",
                    static_cast<long long>(op.applied_at.ms_floor()),
                    resource_op_kind_name(op.kind), name_of(result, op.client).c_str(),
                    static_cast<unsigned long long>(op.grant_id), op.rejection.c_str());
    }
  }
  if (result.liveness_detail.longest_time_to_acquire) {
    out +=
        format("\nLongest time to acquire: %lld ms",
               static_cast<long long>(result.liveness_detail.longest_time_to_acquire->ms_floor()));
    if (!result.liveness_detail.longest_unavailability) out += "\n";
  }
  if (result.liveness_detail.longest_unavailability) {
    out +=
        format("\nLongest wait with the lock wanted and held by nobody: %lld ms\n",
               static_cast<long long>(result.liveness_detail.longest_unavailability->ms_floor()));
  }
  if (result.staged_for_real) {
    out += format("\n%llu client events, %lld ms staged for real, %llu grant(s) (%s)\n",
                  static_cast<unsigned long long>(result.stats.events),
                  static_cast<long long>(result.stats.simulated_ms),
                  static_cast<unsigned long long>(result.stats.grants), result.stats.stop.c_str());
  } else {
    out += format("\n%llu events, %lld ms simulated, %llu grant(s), trace digest %s (%s)\n",
                  static_cast<unsigned long long>(result.stats.events),
                  static_cast<long long>(result.stats.simulated_ms),
                  static_cast<unsigned long long>(result.stats.grants), result.trace_digest.c_str(),
                  result.stats.stop.c_str());
  }
  if (result.expectations_met) {
    out += "Expectations: met\n";
  } else {
    out += "Expectations: NOT met\n";
    for (const std::string& failure : result.expectation_failures)
      out += "  - " + failure + "\n";
  }
  out += "Reproduce: " + command + "\n";
  return out;
}

std::string timeline_text(const ScenarioResult& result) {
  const std::size_t width = name_width(result);
  std::string out = format("%11s  %-*s  %13s  %11s  %s\n", "true ms", static_cast<int>(width),
                           "proc", "its wall ms", "its mono ms", "event");
  for (const StoryEvent& e : result.story) {
    // The wall clock as an offset from the shared epoch, so clocks that disagree are visible.
    const long long wall = static_cast<long long>(e.wall.ms_floor() - default_epoch_ms);
    out +=
        format("%11lld  %-*s  %13lld  %11lld  [%s] %s\n", static_cast<long long>(e.at.ms_floor()),
               static_cast<int>(width), name_of(result, e.process).c_str(), wall,
               static_cast<long long>(e.monotonic.ms_floor()),
               std::string(story_kind_name(e.kind)).c_str(), e.text.c_str());
  }
  out += "\nHold intervals (true time):\n";
  for (const HoldInterval& h : result.holds) {
    const std::string end =
        h.end == Instant::max() ? "end of run" : std::to_string(h.end.ms_floor());
    out += format("  %-*s grant %llu  [%lld, %s) ms\n", static_cast<int>(width),
                  name_of(result, h.client).c_str(), static_cast<unsigned long long>(h.grant_id),
                  static_cast<long long>(h.start.ms_floor()), end.c_str());
  }
  out +=
      "\nKey lifetimes on the nodes (true time; each node expires keys on its own wall clock):\n";
  for (const KeyLifetime& k : result.keys) {
    // An expired key's end is the first millisecond it reads as missing (the catalogue's
    // "expires from T"), not the millisecond its drifting clock passed `when` in.
    const std::string end = k.end_reason == "run_end" ? "end of run"
                            : k.expires_from_ms       ? std::to_string(*k.expires_from_ms)
                                                      : std::to_string(k.end.ms_floor());
    const std::string value = k.value.size() > 8 ? k.value.substr(0, 8) + "..." : k.value;
    const std::string reason = k.expires_from_ms
                                   ? "expires from " + end + " (its clock passed when = " +
                                         std::to_string(*k.expire_at_ms - default_epoch_ms) + ")"
                                   : k.end_reason;
    out += format("  %-*s %-10s %-12s [%lld, %s) ms  %s\n", static_cast<int>(width),
                  name_of(result, k.node).c_str(), k.key.c_str(), value.c_str(),
                  static_cast<long long>(k.start.ms_floor()), end.c_str(), reason.c_str());
  }
  return out;
}

}  // namespace redlock_sim
