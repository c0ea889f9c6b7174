// A Redis engine driven directly by a test: commands at one wall-clock instant (a fixed date in
// 2026), what it propagates kept.
#pragma once

#include <string>
#include <vector>

#include "sim/redis/engine.hpp"

namespace redlock_sim::test_support {

struct EngineHarness {
  static constexpr int64_t now_ms = 1'767'225'600'000;
  RedisEngine engine;
  std::vector<Propagated> propagated;
  Reply run(const Command& command) {
    return engine.execute(command, ExecutionContext{Instant::from_ms(now_ms)}, propagated);
  }
  // EVAL of `script` with one key, "k".
  Reply eval(const std::string& script) { return run(make_command("EVAL", script, "1", "k")); }
};

}  // namespace redlock_sim::test_support
