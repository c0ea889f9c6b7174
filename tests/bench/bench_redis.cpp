// Command execution speed of the Redis engine: plain SET NX PX, and a cached EVALSHA of the
// compare-and-delete release script (issue 3 targets: 2 M/s and 300 k/s on one core).
#include <benchmark/benchmark.h>

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

}  // namespace

BENCHMARK_MAIN();
