// A world generated from a seed: servers, clients fanning out requests, and a random fault
// schedule touching every kernel feature (pauses, crashes and restarts, clock steps and rate
// changes, partitions, held messages, heavy-tailed delays, loss). Used by the determinism tests
// in one process and, through determinism_probe, across processes.
#pragma once

#include <string>

#include "sim/kernel/server_process.hpp"
#include "sim/kernel/task_process.hpp"

namespace redlock_sim::testing {

inline Task<void> generated_client(TaskProcess& self, uint64_t rounds, uint32_t servers) {
  for (uint64_t round = 0; round < rounds; ++round) {
    std::vector<NodeRequest> requests;
    for (uint32_t node = 0; node < servers; ++node) {
      requests.push_back(
          {.node = node,
           .command = make_command("SET", "k", std::to_string(self.random_u64() % 1000)),
           .timeout = Duration::from_ms(20 + static_cast<int64_t>(round % 30))});
    }
    const bool quorum = (self.random_u64() & 1) == 0;
    std::vector<Outcome> outcomes = co_await self.fan_out(
        std::move(requests),
        {.mode = quorum ? FanOutMode::return_at_quorum : FanOutMode::wait_for_all,
         .quorum = servers / 2 + 1});
    co_await self.sleep(Duration::from_ms(1 + static_cast<int64_t>(outcomes.size()) +
                                          static_cast<int64_t>(self.random_u64() % 40)));
  }
}

inline std::string run_generated_schedule(uint64_t seed) {
  Simulator simulator(seed);
  Rng plan = simulator.rng("test/plan");
  const auto servers = static_cast<uint32_t>(plan.between(1, 5));
  const auto clients = static_cast<uint32_t>(plan.between(1, 3));
  std::vector<ProcessId> server_ids;
  for (uint32_t i = 0; i < servers; ++i) {
    auto& server = simulator.add_process<ServerProcess>(
        "server" + std::to_string(i), [](ServerProcess& self, const Message& request) {
          return Reply::bulk(request.command().back() + "@" +
                             std::to_string(self.wall_now().ms_floor()));
        });
    server_ids.push_back(server.id());
  }
  std::vector<TaskProcess*> client_processes;
  for (uint32_t i = 0; i < clients; ++i) {
    auto& client = simulator.add_process<TaskProcess>("client" + std::to_string(i));
    client.set_endpoints(server_ids);
    client_processes.push_back(&client);
  }
  simulator.network().set_default_delay(
      DelaySpec::pareto(Duration::from_us(500), Duration::from_ms(80), 1, 3));
  const auto process_count = static_cast<int64_t>(simulator.process_count());
  const int64_t faults = plan.between(0, 12);
  for (int64_t f = 0; f < faults; ++f) {
    const Instant at = Instant::from_ms(plan.between(0, 1500));
    const auto target = static_cast<ProcessId>(plan.between(0, process_count - 1));
    switch (plan.below(6)) {
      case 0: {
        const Duration length = Duration::from_ms(plan.between(1, 400));
        simulator.schedule_action(at, [&simulator, target] { simulator.pause(target); });
        simulator.schedule_action(at + length, [&simulator, target] { simulator.resume(target); });
        break;
      }
      case 1: {
        if (target >= servers) break;  // crash servers only: clients would lose their loop
        const Duration down = Duration::from_ms(plan.between(1, 300));
        simulator.schedule_action(at, [&simulator, target] { simulator.crash(target); });
        simulator.schedule_action(at + down, [&simulator, target] { simulator.restart(target); });
        break;
      }
      case 2: {
        const Duration delta = Duration::from_ms(plan.between(-5000, 5000));
        simulator.schedule_action(
            at, [&simulator, target, delta] { simulator.step_wall_clock(target, delta); });
        break;
      }
      case 3: {
        const int64_t ppm = plan.between(-50'000, 50'000);
        simulator.schedule_action(
            at, [&simulator, target, ppm] { simulator.set_clock_rate(target, Rate::ppm(ppm)); });
        break;
      }
      case 4: {
        PartitionRule rule{.side_a = {target},
                           .side_b = {},
                           .one_way = plan.chance(1, 2),
                           .start = at,
                           .end = at + Duration::from_ms(plan.between(1, 500))};
        for (ProcessId p = 0; p < process_count; ++p) {
          if (p != target && plan.chance(1, 2)) rule.side_b.push_back(p);
        }
        simulator.network().add_partition(std::move(rule));
        break;
      }
      default: {
        simulator.network().add_hold(HoldRule{.from = target,
                                              .to = std::nullopt,
                                              .command = plan.chance(1, 2) ? "SET" : "",
                                              .active_from = at,
                                              .release_at = at + Duration::from_ms(900),
                                              .count = 1});
        break;
      }
    }
  }
  const auto rounds = static_cast<uint64_t>(plan.between(5, 40));
  for (TaskProcess* client : client_processes) {
    simulator.schedule_action(Instant::zero(), [client, rounds, servers] {
      client->spawn(generated_client(*client, rounds, servers));
    });
  }
  const RunResult result = simulator.run(Instant::from_ms(60'000));
  return simulator.trace().digest_hex() + " " + std::to_string(result.events);
}

}  // namespace redlock_sim::testing
