// Kernel benchmarks: bare event dispatch through coroutines, and request/reply ping-pong through
// the network model. Targets (issue 2): >= 10 million events/s/core, >= 3 million messages/s.
#include <benchmark/benchmark.h>

#include "sim/kernel/server_process.hpp"
#include "sim/kernel/task_process.hpp"

namespace redlock_sim {
namespace {

Task<void> sleeper(TaskProcess& self, int64_t rounds, int64_t step_ns) {
  for (int64_t i = 0; i < rounds; ++i)
    co_await self.sleep(Duration::from_ns(step_ns));
}

// Each iteration of a sleeper is one timer event: schedule, pop, dispatch, resume a coroutine.
void BM_EventDispatchThroughCoroutines(benchmark::State& state) {
  const int64_t coroutines = state.range(0);
  const int64_t rounds = 200'000 / coroutines;
  uint64_t events = 0;
  for (auto _ : state) {
    Simulator simulator(1);
    auto& process = simulator.add_process<TaskProcess>("p");
    for (int64_t c = 0; c < coroutines; ++c)
      process.spawn(sleeper(process, rounds, 1000 + c));
    simulator.run();
    events += simulator.events_dispatched();
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventDispatchThroughCoroutines)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);

Task<void> pinger(TaskProcess& self, int64_t rounds) {
  for (int64_t i = 0; i < rounds; ++i) {
    Outcome outcome = co_await self.send(0, make_command("PING"), Duration::from_ms(50));
    benchmark::DoNotOptimize(outcome);
  }
}

// Each round trip is two simulated messages through the network model (delay draw, FIFO, trace)
// plus a timeout timer that is armed and cancelled.
void BM_RequestReplyPingPong(benchmark::State& state) {
  const int64_t clients = state.range(0);
  const int64_t rounds = 100'000 / clients;
  uint64_t messages = 0;
  uint64_t events = 0;
  for (auto _ : state) {
    Simulator simulator(1);
    auto& server = simulator.add_process<ServerProcess>("server");
    simulator.network().set_default_delay(
        DelaySpec::uniform(Duration::from_us(100), Duration::from_ms(2)));
    for (int64_t c = 0; c < clients; ++c) {
      auto& client = simulator.add_process<TaskProcess>("client" + std::to_string(c));
      client.set_endpoints({server.id()});
      client.spawn(pinger(client, rounds));
    }
    simulator.run();
    messages += 2 * server.requests_served();
    events += simulator.events_dispatched();
  }
  state.counters["messages_per_s"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RequestReplyPingPong)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace redlock_sim

BENCHMARK_MAIN();
