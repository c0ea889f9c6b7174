#include "sim/runner/key_tracker.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace redlock_sim {

namespace {
// Command names and options in any case, compared in place (the tracker sees every write).
bool is(std::string_view word, std::string_view upper_case) {
  return word.size() == upper_case.size() &&
         std::equal(word.begin(), word.end(), upper_case.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}
std::optional<int64_t> integer(std::string_view s) {
  int64_t v = 0;
  auto [ptr, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (error != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

// A command's words, read where they lie: an argv's, or a compact `name key` pair's two.
struct KeyTracker::Words {
  const Command* argv = nullptr;
  std::string_view pair[2];
  std::size_t size() const { return argv != nullptr ? argv->size() : 2; }
  std::string_view operator[](std::size_t i) const {
    if (argv != nullptr) return (*argv)[i];
    return i < 2 ? pair[i] : std::string_view();  // i < size(): only ever 0 or 1 here
  }
};

void KeyTracker::close(ProcessId node, Keys& keys, std::string_view key, Instant now,
                       const char* reason) {
  auto it = keys.find(key);
  if (it == keys.end()) return;
  closed_.push_back({node, std::string(key), std::move(it->second), now, reason});
  keys.erase(it);
  --live_count_;
}

void KeyTracker::replace(ProcessId node, Keys& keys, Keys::iterator it, std::string_view key,
                         std::string value, Instant now, std::optional<int64_t> expire_at_ms,
                         const char* reason) {
  if (it == keys.end()) {
    keys.emplace(key, Live{std::move(value), now, expire_at_ms});
    ++live_count_;
    return;
  }
  closed_.push_back({node, std::string(key), std::move(it->second), now, reason});
  it->second = Live{std::move(value), now, expire_at_ms};
}

void KeyTracker::on_effects(ProcessId node, const std::vector<Command>& commands, Instant now) {
  Keys& keys = live_[node];
  for (const Command& argv : commands)
    apply(node, keys, Words{.argv = &argv}, now);
}

void KeyTracker::on_effects(ProcessId node, const std::vector<Propagated>& effects, Instant now) {
  Keys& keys = live_[node];
  for (const Propagated& effect : effects) {
    // The absolute form (what the AOF gets) says what the node itself now holds.
    if (effect.target == PropagationTarget::replicas) continue;
    const PropagatedCommand& command = effect.command;
    if (command.is_set_pxat()) {  // SET key value PXAT ms, read without writing it out
      const std::string_view key = command.compact_key();
      replace(node, keys, keys.find(key), key, std::string(command.set_value()), now,
              command.set_when_ms(), "overwritten");
    } else if (command.is_pair()) {
      apply(node, keys, Words{.pair = {command.pair_name(), command.compact_key()}}, now);
    } else {
      apply(node, keys, Words{.argv = &command.argv()}, now);
    }
  }
}

void KeyTracker::apply(ProcessId node, Keys& keys, const Words& argv, Instant now) {
  if (argv.size() < 2) {
    if (argv.size() == 1 && (is(argv[0], "FLUSHALL") || is(argv[0], "FLUSHDB"))) {
      on_crash(node, now);
    }
    return;
  }
  const std::string_view name = argv[0];
  const std::string_view key = argv[1];
  auto it = keys.find(key);
  if (is(name, "SET") && argv.size() >= 3) {
    std::optional<int64_t> when;
    bool keep_ttl = false;
    for (std::size_t i = 3; i < argv.size(); ++i) {
      if (is(argv[i], "PXAT") && i + 1 < argv.size()) when = integer(argv[i + 1]);
      if (is(argv[i], "KEEPTTL")) keep_ttl = true;
    }
    if (keep_ttl && it != keys.end()) when = it->second.expire_at_ms;
    replace(node, keys, it, key, std::string(argv[2]), now, when, "overwritten");
  } else if (is(name, "PEXPIREAT") && argv.size() >= 3 && it != keys.end()) {
    // A new deadline: the old lifetime piece ends here and a new one starts.
    std::string value = it->second.value;
    replace(node, keys, it, key, std::move(value), now, integer(argv[2]), "extended");
  } else if (is(name, "PERSIST") && it != keys.end()) {
    std::string value = it->second.value;
    replace(node, keys, it, key, std::move(value), now, std::nullopt, "persisted");
  } else if (is(name, "DEL") || is(name, "UNLINK")) {
    for (std::size_t i = 1; i < argv.size(); ++i)
      close(node, keys, argv[i], now, "deleted");
  } else if (it == keys.end() &&
             (is(name, "HSET") || is(name, "HINCRBY") || is(name, "INCR") || is(name, "INCRBY") ||
              is(name, "DECR") || is(name, "DECRBY") || is(name, "LPUSH") || is(name, "RPUSH"))) {
    replace(node, keys, it, key, "", now, std::nullopt, "overwritten");
  }
}

void KeyTracker::on_crash(ProcessId node, Instant now) {
  Keys& keys = live_[node];
  for (auto& [key, live] : keys)
    closed_.push_back({node, key, std::move(live), now, "crashed"});
  live_count_ -= keys.size();
  keys.clear();
}

void KeyTracker::on_loaded(ProcessId node, const std::string& key, const std::string& value,
                           std::optional<int64_t> expire_at_ms, Instant now) {
  Keys& keys = live_[node];
  replace(node, keys, keys.find(key), key, value, now, expire_at_ms, "overwritten");
}

// Sorted as small handles holding the key's rank among the keys in place of its text: each
// comparison answers as the lifetimes' own would, so std::sort (not stable) leaves ties in the
// order sorting the lifetimes themselves leaves them, without moving their strings about or
// comparing key texts (a 1000-second run has 100 000 pieces).
std::vector<KeyLifetime> sorted_by_node_key_start(std::vector<KeyLifetime> out) {
  std::map<std::string_view, uint32_t> key_ranks;  // a run has a few keys, many pieces each
  for (const KeyLifetime& lifetime : out)
    key_ranks.emplace(lifetime.key, 0);
  uint32_t rank = 0;
  for (auto& [key, key_rank] : key_ranks)
    key_rank = rank++;
  struct Handle {
    ProcessId node;
    uint32_t key_rank;
    int64_t start_ns;
    std::size_t index;
  };
  std::vector<Handle> handles;
  handles.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    handles.push_back(Handle{.node = out[i].node,
                             .key_rank = key_ranks.find(out[i].key)->second,
                             .start_ns = out[i].start.ns(),
                             .index = i});
  }
  std::sort(handles.begin(), handles.end(), [](const Handle& a, const Handle& b) {
    return std::tie(a.node, a.key_rank, a.start_ns) < std::tie(b.node, b.key_rank, b.start_ns);
  });
  std::vector<KeyLifetime> sorted;
  sorted.reserve(out.size());
  for (const Handle& handle : handles)
    sorted.push_back(std::move(out[handle.index]));
  return sorted;
}

std::vector<KeyLifetime> KeyTracker::lifetimes(const Simulator& simulator, Instant run_end) const {
  std::vector<KeyLifetime> out;
  auto add = [&](ProcessId node, const std::string& key, const Live& live, Instant end,
                 const std::string& reason) {
    KeyLifetime lifetime{.node = node,
                         .key = key,
                         .value = live.value,
                         .start = live.start,
                         .end = end,
                         .end_reason = reason,
                         .expire_at_ms = live.expire_at_ms};
    if (live.expire_at_ms) {
      // Logically expired once the node's wall clock reads past `when` (now > when).
      const Instant expired = simulator.process(node).clock().first_true_time_reaching(
          ClockKind::wall, Instant::from_ms(*live.expire_at_ms + 1), live.start);
      if (expired < lifetime.end) {
        lifetime.end = std::max(expired, live.start);
        lifetime.end_reason = "expired";
        lifetime.expires_from_ms = (lifetime.end.ns() + 999'999) / 1'000'000;  // true time >= 0
      }
    }
    out.push_back(std::move(lifetime));
  };
  for (const Closed& c : closed_)
    add(c.node, c.key, c.live, c.end, c.reason);
  for (const auto& [node, keys] : live_) {
    for (const auto& [key, live] : keys)
      add(node, key, live, run_end, "run_end");
  }
  return sorted_by_node_key_start(std::move(out));
}

}  // namespace redlock_sim
