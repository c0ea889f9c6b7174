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
  std::vector<const StoryEvent*> events;
  for (const StoryEvent& e : result.story) {
    if (e.at > violation.end) break;
    const bool fault = e.kind == "fault";
    const bool grant_line = e.kind == "grant" && granted.count(e.process) != 0;
    const bool involved_write =
        (e.kind == "write" || e.kind == "lost") && clients.count(e.process) != 0;
    if (fault || grant_line || involved_write) events.push_back(&e);
  }
  return events;
}

}  // namespace redlock_sim
