#include "sim/runner/key_tracker.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace redlock_sim {

namespace {
std::string upper(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
std::optional<int64_t> integer(const std::string& s) {
  int64_t v = 0;
  auto [ptr, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (error != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

void KeyTracker::close(ProcessId node, const std::string& key, Instant now, const char* reason) {
  auto it = live_.find({node, key});
  if (it == live_.end()) return;
  closed_.push_back({node, key, std::move(it->second), now, reason});
  live_.erase(it);
}

void KeyTracker::open(ProcessId node, const std::string& key, std::string value, Instant now,
                      std::optional<int64_t> expire_at_ms) {
  close(node, key, now, "overwritten");
  live_[{node, key}] = Live{std::move(value), now, expire_at_ms};
}

void KeyTracker::on_effects(ProcessId node, const std::vector<Command>& commands, Instant now) {
  for (const Command& argv : commands) {
    if (argv.size() < 2) {
      if (!argv.empty() && (upper(argv[0]) == "FLUSHALL" || upper(argv[0]) == "FLUSHDB")) {
        on_crash(node, now);
      }
      continue;
    }
    const std::string name = upper(argv[0]);
    const std::string& key = argv[1];
    auto it = live_.find({node, key});
    if (name == "SET" && argv.size() >= 3) {
      std::optional<int64_t> when;
      bool keep_ttl = false;
      for (std::size_t i = 3; i < argv.size(); ++i) {
        const std::string option = upper(argv[i]);
        if (option == "PXAT" && i + 1 < argv.size()) when = integer(argv[i + 1]);
        if (option == "KEEPTTL") keep_ttl = true;
      }
      if (keep_ttl && it != live_.end()) when = it->second.expire_at_ms;
      open(node, key, argv[2], now, when);
    } else if (name == "PEXPIREAT" && argv.size() >= 3 && it != live_.end()) {
      // A new deadline: the old lifetime piece ends here and a new one starts.
      Live copy = it->second;
      close(node, key, now, "extended");
      open(node, key, copy.value, now, integer(argv[2]));
    } else if (name == "PERSIST" && it != live_.end()) {
      Live copy = it->second;
      close(node, key, now, "persisted");
      open(node, key, copy.value, now, std::nullopt);
    } else if (name == "DEL" || name == "UNLINK") {
      for (std::size_t i = 1; i < argv.size(); ++i)
        close(node, argv[i], now, "deleted");
    } else if (it == live_.end() &&
               (name == "HSET" || name == "HINCRBY" || name == "INCR" || name == "INCRBY" ||
                name == "DECR" || name == "DECRBY" || name == "LPUSH" || name == "RPUSH")) {
      open(node, key, "", now, std::nullopt);
    }
  }
}

void KeyTracker::on_crash(ProcessId node, Instant now) {
  std::vector<std::string> keys;
  for (const auto& [id, live] : live_) {
    if (id.first == node) keys.push_back(id.second);
  }
  for (const std::string& key : keys)
    close(node, key, now, "crashed");
}

void KeyTracker::on_loaded(ProcessId node, const std::string& key, const std::string& value,
                           std::optional<int64_t> expire_at_ms, Instant now) {
  open(node, key, value, now, expire_at_ms);
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
  for (const auto& [id, live] : live_)
    add(id.first, id.second, live, run_end, "run_end");
  std::sort(out.begin(), out.end(), [](const KeyLifetime& a, const KeyLifetime& b) {
    return std::tie(a.node, a.key, a.start) < std::tie(b.node, b.key, b.start);
  });
  return out;
}

}  // namespace redlock_sim
