// Random streams are named by stable names (process names, link endpoints), never by ids: a
// scenario reduced by one process is the same run for everyone else (issue 16).
#include <gtest/gtest.h>

#include <vector>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "sim/kernel/network.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

// What a network draws on one link: each message's delivery time, or minus one when lost.
std::vector<int64_t> draws(Network& network, ProcessId from, ProcessId to) {
  std::vector<int64_t> out;
  for (int i = 0; i < 200; ++i) {
    const Network::Route route = network.route(from, to, nullptr, Instant::from_ms(i * 100));
    out.push_back(route.dropped ? -1 : route.delivery.ns());
  }
  return out;
}

// Dropping B (which shifts the ids of C and the nodes) leaves C's and A's links drawing the same
// delays and losses.
TEST(NamedStreams, DroppingAProcessKeepsTheOtherLinksDraws) {
  const auto network_of = [](const std::vector<std::string>& names) {
    Network network(42);
    network.set_default_delay(DelaySpec::uniform(Duration::from_ms(1), Duration::from_ms(50)));
    for (std::size_t id = 0; id < names.size(); ++id)
      network.name_process(static_cast<ProcessId>(id), names[id]);
    return network;
  };
  Network full = network_of({"A", "B", "C", "N1", "N2"});
  Network reduced = network_of({"A", "C", "N1", "N2"});
  full.set_link_loss(2, 4, 1, 3);                      // C -> N2
  reduced.set_link_loss(1, 3, 1, 3);                   // C -> N2
  EXPECT_EQ(draws(full, 2, 3), draws(reduced, 1, 2));  // C -> N1
  EXPECT_EQ(draws(full, 2, 4), draws(reduced, 1, 3));  // C -> N2, lossy
  EXPECT_EQ(draws(full, 4, 2), draws(reduced, 3, 1));  // N2 -> C
  EXPECT_EQ(draws(full, 0, 3), draws(reduced, 0, 2));  // A -> N1
  EXPECT_NE(draws(full, 2, 3), draws(full, 0, 3));     // and the links do differ
}

constexpr const char* three_clients = R"({
  "name": "three-independent-clients", "seed": 7,
  "nodes": [{"name": "N1"}, {"name": "N2"}, {"name": "N3"}],
  "network": {"delay": {"kind": "uniform", "min_ms": 1, "max_ms": 40},
              "links": [{"from": "C", "to": "N2", "loss": [1, 4]}]},
  "clients": [
    {"name": "A", "profile": "redlock", "lock": "a", "nodes": ["N1", "N2", "N3"],
     "steps": [{"do": "acquire", "at_ms": 0}, {"do": "release", "at_ms": 300}]},
    {"name": "B", "profile": "redlock", "lock": "b", "nodes": ["N1", "N2", "N3"],
     "steps": [{"do": "acquire", "at_ms": 0}, {"do": "release", "at_ms": 300}]},
    {"name": "C", "profile": "redlock", "lock": "c", "nodes": ["N1", "N2", "N3"],
     "steps": [{"do": "acquire", "at_ms": 0}, {"do": "release", "at_ms": 300},
               {"do": "acquire", "at_ms": 600}, {"do": "release", "at_ms": 900}]}
  ],
  "limits": {"duration_ms": 5000}
})";

// C's grants: when, with which token.
std::vector<std::pair<int64_t, std::string>> grants_of(const ScenarioResult& result,
                                                       const std::string& client) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const GrantRecord& g : result.history.grants()) {
    if (result.processes.at(g.client).name == client) out.emplace_back(g.granted_at.ns(), g.token);
  }
  return out;
}

// The shrinker's reduction: the same scenario without client B. C, on its own lock, is granted
// at the same instants with the same tokens, over links with random delays and loss.
TEST(NamedStreams, ScenarioWithoutOneClientIsTheSameRunForTheOthers) {
  const Scenario full = parse_scenario_text(three_clients, "three.json");
  Scenario reduced = full;
  reduced.clients.erase(reduced.clients.begin() + 1);
  const ScenarioResult a = run_scenario(full, registry_lock_factory());
  const ScenarioResult b = run_scenario(reduced, registry_lock_factory());
  ASSERT_EQ(grants_of(a, "C").size(), 2U);
  EXPECT_EQ(grants_of(a, "C"), grants_of(b, "C"));
  EXPECT_EQ(grants_of(a, "A"), grants_of(b, "A"));
}

}  // namespace
}  // namespace redlock_sim
