#include "scenarios/lint.hpp"

#include <algorithm>
#include <set>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The processes that exchange messages with `name` in this scenario: a client's nodes and
// resource, a replica's master, the sentinels' nodes.
std::set<std::pair<std::string, std::string>> talking_pairs(const Scenario& s) {
  std::set<std::pair<std::string, std::string>> pairs;
  const auto add = [&](const std::string& a, const std::string& b) {
    pairs.insert({a, b});
    pairs.insert({b, a});
  };
  for (const ClientSpec& c : s.clients) {
    for (const std::string& node : c.nodes) {
      if (s.failover.enabled && node == s.failover.master_name) {
        for (const NodeSpec& n : s.nodes)
          add(c.name, n.name);  // it may follow any of them
        for (const std::string& sentinel : s.failover.sentinels)
          add(c.name, sentinel);
      } else {
        add(c.name, node);
      }
    }
    if (s.resource.enabled) add(c.name, s.resource.name);
  }
  for (const NodeSpec& n : s.nodes) {
    if (!n.replica_of.empty()) add(n.name, n.replica_of);
    for (const std::string& sentinel : s.failover.sentinels)
      add(sentinel, n.name);
  }
  for (const std::string& a : s.failover.sentinels)
    for (const std::string& b : s.failover.sentinels)
      if (a != b) add(a, b);
  return pairs;
}

}  // namespace

std::vector<std::string> scenario_warnings(const Scenario& s) {
  std::vector<std::string> warnings;
  // A client that names a failover group's node directly never follows Sentinel.
  if (s.failover.enabled) {
    for (const ClientSpec& c : s.clients) {
      for (const std::string& node : c.nodes) {
        const bool in_group = node == s.failover.master ||
                              std::any_of(s.nodes.begin(), s.nodes.end(), [&](const NodeSpec& n) {
                                return n.name == node && n.replica_of == s.failover.master;
                              });
        if (in_group) {
          warnings.push_back("clients." + c.name + ".nodes names " + node +
                             " directly: it stays on that node and never follows the failover "
                             "(name the group '" +
                             s.failover.master_name + "' to follow it)");
        }
      }
    }
  }
  // Faults on a node no client's lock uses (and no replica or sentinel depends on).
  std::set<std::string> used;
  for (const ClientSpec& c : s.clients)
    for (const std::string& node : c.nodes)
      used.insert(node);
  if (s.failover.enabled) {
    for (const NodeSpec& n : s.nodes)
      used.insert(n.name);
  }
  for (const NodeSpec& n : s.nodes)
    if (!n.replica_of.empty()) used.insert(n.replica_of);
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    const bool is_node = std::any_of(s.nodes.begin(), s.nodes.end(),
                                     [&](const NodeSpec& n) { return n.name == f.target; });
    if (is_node && used.count(f.target) == 0) {
      warnings.push_back("faults[" + std::to_string(i) + "] (" + f.kind + ") targets node " +
                         f.target + ", which no client's lock uses");
    }
  }
  // A resource nobody reads or writes: resource safety then "holds" without being tried.
  if (s.resource.enabled) {
    const bool touched = std::any_of(s.clients.begin(), s.clients.end(), [](const ClientSpec& c) {
      if (c.workload && c.workload->touch_resource) return true;
      return std::any_of(c.steps.begin(), c.steps.end(), [](const StepSpec& step) {
        return step.kind == StepKind::read || step.kind == StepKind::write ||
               step.kind == StepKind::increment;
      });
    });
    if (!touched) {
      warnings.push_back("resource '" + s.resource.name +
                         "' is never read or written by any client: resource safety is not "
                         "exercised");
    }
  }
  // A partition that cuts no pair of processes that talk to each other.
  const auto pairs = talking_pairs(s);
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    if (!fault_kind(f.kind).cuts_sides) continue;
    bool cuts = false;
    for (const std::string& a : f.side_a)
      for (const std::string& b : f.side_b)
        cuts = cuts || pairs.count({a, b}) != 0;
    if (!cuts) {
      warnings.push_back("faults[" + std::to_string(i) +
                         "] (partition) cuts no pair of processes that talk to each other");
    }
  }
  // Clients on the same nodes under different lock names never contend.
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    for (std::size_t j = i + 1; j < s.clients.size(); ++j) {
      const ClientSpec& a = s.clients[i];
      const ClientSpec& b = s.clients[j];
      if (a.lock == b.lock) continue;
      const bool share = std::any_of(a.nodes.begin(), a.nodes.end(),
                                     [&](const std::string& n) { return contains(b.nodes, n); });
      if (share) {
        warnings.push_back("clients " + a.name + " and " + b.name + " lock different names ('" +
                           a.lock + "' and '" + b.lock +
                           "') on the same nodes: they never contend");
      }
    }
  }
  return warnings;
}

}  // namespace redlock_sim
