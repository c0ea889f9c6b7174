// Laws of the key tracker's output (RapidCheck, 150 cases in the suite).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "sim/runner/key_tracker.hpp"

namespace redlock_sim {
namespace {

// The lifetimes sorted through rank handles come out exactly as std::sort over (node, key, start)
// of the lifetimes themselves leaves them, ties (same node, key and start) included: the order a
// run's JSON lists its keys in. Few nodes, keys and starts, so that ties are common; each
// piece's value says where it came from.
RC_GTEST_PROP(KeyTrackerProperties, SortedAsTheLifetimesThemselvesSort, ()) {
  const auto raw = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(
      rc::gen::tuple(rc::gen::inRange(0, 3), rc::gen::inRange(0, 4), rc::gen::inRange(0, 5)));
  std::vector<KeyLifetime> lifetimes;
  for (const auto& [node, key, start] : raw) {
    lifetimes.push_back(KeyLifetime{.node = static_cast<ProcessId>(node),
                                    .key = std::string(static_cast<std::size_t>(key), 'k') + "ey",
                                    .value = std::to_string(lifetimes.size()),
                                    .start = Instant::from_ms(start)});
  }
  std::vector<KeyLifetime> expected = lifetimes;
  std::sort(expected.begin(), expected.end(), [](const KeyLifetime& a, const KeyLifetime& b) {
    return std::tie(a.node, a.key, a.start) < std::tie(b.node, b.key, b.start);
  });
  const std::vector<KeyLifetime> got = sorted_by_node_key_start(lifetimes);
  RC_ASSERT(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    RC_ASSERT(got[i].value == expected[i].value);
}

}  // namespace
}  // namespace redlock_sim
