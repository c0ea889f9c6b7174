#include "reports/story.hpp"

#include <set>

namespace redlock_sim {

std::vector<const StoryEvent*> violation_story_events(const ScenarioResult& result,
                                                      const Violation& violation,
                                                      bool grant_owners) {
  const std::set<ProcessId> clients(violation.clients.begin(), violation.clients.end());
  std::set<ProcessId> granted = clients;
  for (uint64_t grant : violation.grants) {
    if (grant_owners && grant >= 1 && grant <= result.history.grants().size())
      granted.insert(result.history.grants()[grant - 1].client);
  }
  const std::set<uint64_t> grants(violation.grants.begin(), violation.grants.end());
  // A line tagged with its grant is about that grant only: in a looping workload this keeps
  // the other iterations out of the story. Untagged lines fall back to who wrote them.
  auto about = [&](const StoryEvent& e, const std::set<ProcessId>& processes) {
    if (e.grant_id != 0 && !grants.empty()) return grants.count(e.grant_id) != 0;
    return processes.count(e.process) != 0;
  };
  std::vector<const StoryEvent*> events;
  for (const StoryEvent& e : result.story) {
    if (e.at > violation.end) break;
    // Every fault stays: one may come long before the grants it explains (S05's pause).
    const bool fault = e.kind == StoryKind::fault;
    const bool grant_line = e.kind == StoryKind::grant && about(e, granted);
    const bool involved_write =
        (e.kind == StoryKind::write || e.kind == StoryKind::lost) && about(e, clients);
    if (fault || grant_line || involved_write) events.push_back(&e);
  }
  return events;
}

}  // namespace redlock_sim
