// Command execution speed of the Redis engine: plain SET NX PX, and a cached EVALSHA of the
// compare-and-delete release script (issue 3 targets: 2 M/s and 300 k/s on one core).
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <unordered_map>

#include "sim/redis/engine.hpp"
#include "sim/redis/sha1.hpp"

namespace {

using redlock_sim::Command;
using redlock_sim::ExecutionContext;
using redlock_sim::Instant;
using redlock_sim::make_command;
using redlock_sim::Propagated;
using redlock_sim::RedisEngine;

constexpr int64_t base_ms = 1'767'225'600'000;
const char* release_script =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 "
    "end";

// SET lock token NX PX 30000 on a held lock: the NX check refuses (the contended path).
void set_nx_px_contended(benchmark::State& state) {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  const Command command = make_command("SET", "lock", "token", "NX", "PX", "30000");
  const ExecutionContext context{Instant::from_ms(base_ms)};
  engine.execute(command, context, propagated);
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.execute(command, context, propagated));
    propagated.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(set_nx_px_contended);

// SET lock token NX PX 30000 where each call finds the previous grant expired: passive expiry,
// a grant, and the DEL + SET PXAT propagation (the worst case).
void set_nx_px_granted(benchmark::State& state) {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  const Command command = make_command("SET", "lock", "token", "NX", "PX", "30000");
  int64_t now_ms = base_ms;
  for (auto _ : state) {
    now_ms += 30001;
    benchmark::DoNotOptimize(
        engine.execute(command, ExecutionContext{Instant::from_ms(now_ms)}, propagated));
    propagated.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(set_nx_px_granted);

// EVALSHA of the cached release script on a lock held by someone else (returns 0).
void evalsha_release_cached(benchmark::State& state) {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  const ExecutionContext context{Instant::from_ms(base_ms)};
  engine.execute(make_command("SCRIPT", "LOAD", release_script), context, propagated);
  engine.execute(make_command("SET", "lock", "other"), context, propagated);
  const Command command =
      make_command("EVALSHA", redlock_sim::sha1_hex(release_script), "1", "lock", "token");
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.execute(command, context, propagated));
    propagated.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(evalsha_release_cached);

// EVALSHA of the cached release script that deletes the caller's own lock (SET + EVALSHA).
void evalsha_release_owned(benchmark::State& state) {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  const ExecutionContext context{Instant::from_ms(base_ms)};
  engine.execute(make_command("SCRIPT", "LOAD", release_script), context, propagated);
  const Command set = make_command("SET", "lock", "token");
  const Command release =
      make_command("EVALSHA", redlock_sim::sha1_hex(release_script), "1", "lock", "token");
  for (auto _ : state) {
    engine.execute(set, context, propagated);
    benchmark::DoNotOptimize(engine.execute(release, context, propagated));
    propagated.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(evalsha_release_owned);

// ---- The baseline: SET NX PX on a bare std::unordered_map (string key -> value and expiry) ----
// The engine's cost is read as a ratio to this: what a lock server must at least do per grant.
struct BareEntry {
  std::string value;
  int64_t expire_at_ms = 0;
};

bool bare_set_nx_px(std::unordered_map<std::string, BareEntry>& map, const Command& command,
                    int64_t now_ms) {
  const std::string& key = command[1];
  auto it = map.find(key);
  if (it != map.end() && it->second.expire_at_ms > now_ms) return false;
  map[key] = BareEntry{command[2], now_ms + std::stoll(command[5])};
  return true;
}

void bare_map_set_nx_px_granted(benchmark::State& state) {
  std::unordered_map<std::string, BareEntry> map;
  const Command command = make_command("SET", "lock", "token", "NX", "PX", "30000");
  int64_t now_ms = base_ms;
  for (auto _ : state) {
    now_ms += 30001;
    benchmark::DoNotOptimize(bare_set_nx_px(map, command, now_ms));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bare_map_set_nx_px_granted);

// The engine's granted SET NX PX over the bare map's, interleaved per batch of 1000 commands.
void engine_over_bare_map_set_nx_px(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  RedisEngine engine;
  std::vector<Propagated> propagated;
  std::unordered_map<std::string, BareEntry> map;
  const Command command = make_command("SET", "lock", "token", "NX", "PX", "30000");
  int64_t now_ms = base_ms;
  Clock::duration engine_time{}, bare_time{};
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 1000; ++i) {
      now_ms += 30001;
      benchmark::DoNotOptimize(
          engine.execute(command, ExecutionContext{Instant::from_ms(now_ms)}, propagated));
      propagated.clear();
    }
    const auto t1 = Clock::now();
    for (int i = 0; i < 1000; ++i) {
      now_ms += 30001;
      benchmark::DoNotOptimize(bare_set_nx_px(map, command, now_ms));
    }
    const auto t2 = Clock::now();
    engine_time += t1 - t0;
    bare_time += t2 - t1;
  }
  state.counters["engine_over_bare"] = static_cast<double>(engine_time.count()) /
                                       static_cast<double>(std::max<int64_t>(1, bare_time.count()));
}
BENCHMARK(engine_over_bare_map_set_nx_px);

}  // namespace

BENCHMARK_MAIN();
