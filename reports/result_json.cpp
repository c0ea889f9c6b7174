#include "reports/result_json.hpp"

#include "reports/tool_version.hpp"

namespace redlock_sim {

namespace {
// A duration in whole ms, or null when there was none.
nlohmann::json optional_ms(const std::optional<Duration>& d) {
  return d ? nlohmann::json(d->ms_floor()) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json result_json(const ScenarioResult& result) {
  using nlohmann::json;
  json violations = json::array();
  for (const Violation& v : result.violations) {
    json clients = json::array();
    for (ProcessId id : v.clients)
      clients.push_back(result.processes.at(id).name);
    json entry = {{"checker", v.checker},
                  {"kind", v.kind},
                  {"clients", clients},
                  {"grants", v.grants},
                  {"description", v.description}};
    // Every violation has its true-time interval (a lost update's: between the first and the
    // last acknowledged increment, where the loss happened).
    entry["start_ms"] = v.start.ms_floor();
    entry["end_ms"] = v.end.ms_floor();
    entry["length_ms"] = (v.end - v.start).ms_floor();
    violations.push_back(std::move(entry));
  }
  json out = json{
      {"scenario", result.scenario},
      {"seed", result.seed},
      {"verdicts",
       {{"mutual_exclusion", verdict_name(result.mutual_exclusion)},
        {"resource_safety", verdict_name(result.resource_safety)},
        {"liveness", verdict_name(result.liveness)}}},
      {"violations", violations},
      {"expectations_met", result.expectations_met},
      {"trace_digest", result.trace_digest},
      {"tool", tool_json()},
      {"stats",
       {{"events", result.stats.events},
        {"simulated_ms", result.stats.simulated_ms},
        {"grants", result.stats.grants},
        {"stop_reason", result.stats.stop},
        {"longest_time_to_acquire_ms", optional_ms(result.liveness_detail.longest_time_to_acquire)},
        {"longest_unavailability_ms",
         optional_ms(result.liveness_detail.longest_unavailability)}}}};
  // Only a file with command steps has replies, so other results keep their documented fields.
  if (!result.replies.empty()) {
    json replies = json::array();
    for (const CommandReplyRecord& r : result.replies) {
      replies.push_back({{"client", result.processes.at(r.client).name},
                         {"node", r.node},
                         {"command", r.command},
                         {"at_ms", r.sent_at.ms_floor()},
                         {"reply", r.reply}});
    }
    out["replies"] = std::move(replies);
  }
  return out;
}

std::string result_json_text(const ScenarioResult& result) {
  return result_json(result).dump(2) + "\n";
}

}  // namespace redlock_sim
