#include "sim/stories/kernel_demo.hpp"

#include <cstdio>

#include "sim/kernel/server_process.hpp"
#include "sim/kernel/task_process.hpp"

namespace redlock_sim {

namespace {

std::string ms(Instant t) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(t.ms_floor()));
  return buffer;
}

struct Story {
  Simulator& simulator;
  std::vector<std::string>& lines;

  void say(const Process& who, const std::string& what) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, "%7s  %-7s %15s %9s  %s", ms(simulator.now()).c_str(),
                  who.name().c_str(), ms(who.wall_now()).c_str(), ms(who.monotonic_now()).c_str(),
                  what.c_str());
    lines.emplace_back(buffer);
  }
};

Task<void> client_loop(TaskProcess& self, Story& story) {
  for (int i = 1; i <= 6; ++i) {
    const Instant sent = self.monotonic_now();
    story.say(self, "sends PING #" + std::to_string(i));
    Outcome outcome =
        co_await self.send(0, make_command("PING", std::to_string(i)), Duration::from_ms(100));
    const Duration waited = self.monotonic_now() - sent;
    if (outcome.replied()) {
      story.say(self, "reads reply " + describe(outcome.reply) + " after " +
                          std::to_string(waited.ms_floor()) + " ms on its own clock");
    } else {
      story.say(self, "gives up on #" + std::to_string(i) + " (unknown) after " +
                          std::to_string(waited.ms_floor()) + " ms");
    }
    co_await self.sleep(Duration::from_ms(200));
  }
}

}  // namespace

KernelDemoResult run_kernel_demo(uint64_t seed) {
  KernelDemoResult result;
  Simulator simulator(seed);
  Story story{simulator, result.timeline};
  auto& server = simulator.add_process<ServerProcess>("server", [&story](ServerProcess& self,
                                                                         const Message& request) {
    story.say(self, "executes " + describe(request.command()) + ", replies with its wall clock");
    return Reply::bulk(std::to_string(self.wall_now().ms_floor()));
  });
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints({server.id()});
  simulator.network().set_default_delay(DelaySpec::fixed(Duration::from_ms(5)));

  simulator.schedule_action(Instant::from_ms(212), [&] {
    story.say(client, "** paused (stop-the-world GC) **");
    simulator.pause(client.id());
  });
  simulator.schedule_action(Instant::from_ms(700), [&] {
    simulator.resume(client.id());
    story.say(client, "** resumed: buffered replies and late timers run now **");
  });
  simulator.schedule_action(Instant::from_ms(900), [&] {
    simulator.step_wall_clock(server.id(), Duration::from_s(10));
    story.say(server, "** wall clock stepped +10000 ms (monotonic unchanged) **");
  });
  simulator.schedule_action(Instant::zero(), [&] { client.spawn(client_loop(client, story)); });

  const RunResult run = simulator.run();
  result.trace_digest = simulator.trace().digest_hex();
  result.events = run.events;
  return result;
}

}  // namespace redlock_sim
