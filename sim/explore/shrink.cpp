#include "sim/explore/shrink.hpp"

#include <algorithm>

#include "sim/faults/before_run.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/faults/pairing.hpp"

namespace redlock_sim {

Verdict verdict_of(const ScenarioResult& result, const std::string& checker) {
  if (checker == "mutual_exclusion") return result.mutual_exclusion;
  if (checker == "resource_safety") return result.resource_safety;
  return result.liveness;
}

namespace {

// Removes a process from a scenario: faults that name it alone go, partition sides lose it,
// per-link network settings that name it go.
void forget_process(Scenario& s, const std::string& name) {
  std::erase_if(s.network.links,
                [&](const LinkSpec& link) { return link.from == name || link.to == name; });
  std::vector<FaultSpec> kept;
  for (FaultSpec f : s.faults) {
    std::erase(f.side_a, name);
    std::erase(f.side_b, name);
    const bool empty_partition =
        fault_kind(f.kind).cuts_sides && (f.side_a.empty() || f.side_b.empty());
    if (empty_partition || f.target == name || f.from == name || f.to == name) continue;
    kept.push_back(std::move(f));
  }
  // A heal whose partition is gone goes too.
  drop_orphan_heals(kept);
  s.faults = std::move(kept);
  // Expectations about a client that is gone go too (the final file's are replaced anyway).
  std::erase_if(s.expect.grants, [&](const ExpectedGrant& g) { return g.client == name; });
  std::erase_if(s.expect.replies, [&](const ExpectedReply& r) { return r.client == name; });
}

void add_fault_reductions(const Scenario& s, std::vector<Scenario>& out) {
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    Scenario r = s;
    remove_fault(r.faults, i);  // a partition takes its heals along
    out.push_back(std::move(r));
  }
}

void add_client_and_node_reductions(const Scenario& s, std::vector<Scenario>& out) {
  for (std::size_t i = 0; s.clients.size() > 1 && i < s.clients.size(); ++i) {
    Scenario r = s;
    const std::string name = r.clients[i].name;
    r.clients.erase(r.clients.begin() + static_cast<std::ptrdiff_t>(i));
    forget_process(r, name);
    out.push_back(std::move(r));
  }
  for (std::size_t i = 0; s.nodes.size() > 1 && i < s.nodes.size(); ++i) {
    const std::string name = s.nodes[i].name;
    const bool needed = std::any_of(s.nodes.begin(), s.nodes.end(),
                                    [&](const NodeSpec& n) { return n.replica_of == name; }) ||
                        (s.failover.enabled && s.failover.master == name);
    if (needed) continue;
    Scenario r = s;
    r.nodes.erase(r.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    bool usable = true;
    for (ClientSpec& c : r.clients) {
      // Command steps on the node go with it (a client left without steps cannot).
      if (!c.steps.empty()) {
        std::erase_if(c.steps, [&](const StepSpec& step) {
          return step.kind == StepKind::command && step.node == name;
        });
        usable = usable && !c.steps.empty();
      }
      const auto at = std::find(c.nodes.begin(), c.nodes.end(), name);
      if (at == c.nodes.end()) continue;
      const auto index = static_cast<std::size_t>(at - c.nodes.begin());
      // A token service listed last (the counter, or the node `token_node` names) is not one
      // of a fenced lock's nodes: a client left with it alone has no lock node.
      const std::optional<std::size_t> token_node = node_param(c, "token_node");
      const bool token_last =
          c.nodes.back() == "counter" || (token_node && *token_node == c.nodes.size() - 1);
      c.nodes.erase(at);
      usable = usable && !c.nodes.empty() && !(token_last && c.nodes.size() == 1);
      // The lock's node count follows the list; the token node cannot go, and its index moves
      // down past a node gone before it.
      if (c.params.count("token_node") != 0) {
        if (!token_node || index == *token_node) {
          usable = false;
        } else if (index < *token_node) {
          c.params["token_node"] = static_cast<int64_t>(*token_node - 1);
        }
      }
    }
    if (!usable) continue;
    forget_process(r, name);
    out.push_back(std::move(r));
  }
}

void add_step_reductions(const Scenario& s, std::vector<Scenario>& out) {
  for (std::size_t c = 0; c < s.clients.size(); ++c) {
    const ClientSpec& client = s.clients[c];
    for (std::size_t i = 0; client.steps.size() > 1 && i < client.steps.size(); ++i) {
      // Acquisitions stay: without them the "counterexample" is a client writing without a
      // lock, which says nothing about the lock.
      if (client.steps[i].kind == StepKind::acquire) continue;
      Scenario r = s;
      r.clients[c].steps.erase(r.clients[c].steps.begin() + static_cast<std::ptrdiff_t>(i));
      out.push_back(std::move(r));
    }
    if (client.workload) {
      const uint32_t iterations = client.workload->iterations_max;
      if (iterations == 0 || iterations > 1) {
        Scenario r = s;
        r.clients[c].workload->iterations_max = iterations == 0 ? 16 : iterations / 2;
        out.push_back(std::move(r));
      }
    }
  }
}

// Smaller numbers: halve toward zero (keeping durations at least 1 ms where zero means "none").
void add_shortening_reductions(const Scenario& s, std::vector<Scenario>& out) {
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    auto with = [&](auto&& change) {
      Scenario r = s;
      change(r.faults[i]);
      out.push_back(std::move(r));
    };
    for (FaultSpec& shorter : fault_kind(f.kind).shorter(f)) {
      Scenario r = s;
      r.faults[i] = std::move(shorter);
      out.push_back(std::move(r));
    }
    // A heal of a cut that began before the run stays after zero (the parser's rule).
    if (f.at_ms > 0 && !heals_cut_before_run_by_zero(s.faults, i, f.at_ms / 2)) {
      with([](FaultSpec& g) {
        const int64_t earlier = g.at_ms / 2;
        if (g.until_ms) g.until_ms = *g.until_ms - (g.at_ms - earlier);
        g.at_ms = earlier;
      });
    }
  }
  for (std::size_t c = 0; c < s.clients.size(); ++c) {
    for (std::size_t i = 0; i < s.clients[c].steps.size(); ++i) {
      const StepSpec& step = s.clients[c].steps[i];
      if (step.at_ms && *step.at_ms > 0) {
        Scenario r = s;
        r.clients[c].steps[i].at_ms = *step.at_ms / 2;
        out.push_back(std::move(r));
      }
      if (step.kind == StepKind::sleep && step.duration_ms > 1) {
        Scenario r = s;
        r.clients[c].steps[i].duration_ms = step.duration_ms / 2;
        out.push_back(std::move(r));
      }
    }
  }
}

}  // namespace

std::vector<Scenario> reductions_of(const Scenario& scenario) {
  std::vector<Scenario> out;
  add_fault_reductions(scenario, out);
  add_client_and_node_reductions(scenario, out);
  add_step_reductions(scenario, out);
  add_shortening_reductions(scenario, out);
  return out;
}

ShrinkResult shrink_scenario(const Scenario& failing, const std::string& checker,
                             const LockFactory& factory, const ShrinkOptions& options) {
  ShrinkResult best;
  best.scenario = failing;
  best.scenario.expect = Expectations{};
  best.result = run_scenario(best.scenario, factory);
  best.runs = 1;
  if (verdict_of(best.result, checker) != Verdict::violated) return best;  // nothing to shrink
  bool progressed = true;
  // One run of the budget is kept for the final run of the file, expectations included.
  while (progressed && best.runs + 1 < options.runs_max) {
    progressed = false;
    for (Scenario& candidate : reductions_of(best.scenario)) {
      if (best.runs + 1 >= options.runs_max) break;
      ScenarioResult result = run_scenario(candidate, factory);
      ++best.runs;
      if (verdict_of(result, checker) != Verdict::violated || result.stats.limit_hit) continue;
      best.scenario = std::move(candidate);
      best.result = std::move(result);
      ++best.reductions;
      progressed = true;
      break;
    }
  }
  best.minimal = !progressed;
  // The shrunk file expects exactly what it shows, so `redlock-sim run` on it exits 0.
  Expectations& expect = best.scenario.expect;
  if (checker == "mutual_exclusion") expect.mutual_exclusion = "violated";
  if (checker == "resource_safety") expect.resource_safety = "violated";
  if (checker == "liveness") expect.liveness = "violated";
  // Its result is the run of that file, expectations included (the same verdicts and digest).
  best.result = run_scenario(best.scenario, factory);
  ++best.runs;
  return best;
}

}  // namespace redlock_sim
