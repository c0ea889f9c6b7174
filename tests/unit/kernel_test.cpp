// Unit tests for the kernel: ordering, timers on local clocks, pause, crash, fan-out.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/kernel/server_process.hpp"
#include "sim/kernel/task_process.hpp"

namespace redlock_sim {
namespace {

Task<void> ping_once(TaskProcess& self, Outcome& out, Duration timeout) {
  out = co_await self.send(0, make_command("PING"), timeout);
}

struct World {
  Simulator simulator{42};
  ServerProcess& server = simulator.add_process<ServerProcess>("server");
  TaskProcess& client = simulator.add_process<TaskProcess>("client");
  World() { client.set_endpoints({server.id()}); }
};

// A request and its reply each take the link's one-way delay.
TEST(Kernel, RequestReplyTakesTwoOneWayDelays) {
  World world;
  Outcome outcome;
  world.client.spawn(ping_once(world.client, outcome, Duration::from_ms(50)));
  world.simulator.run();
  EXPECT_EQ(outcome.kind, OutcomeKind::ok);
  EXPECT_TRUE(outcome.reply.is_ok());
  EXPECT_EQ(world.simulator.now(), Instant::from_ms(50));  // the cancelled timeout is skipped...
  EXPECT_EQ(world.server.requests_served(), 1u);
}

// A request to a partitioned server times out as unknown after the client's timeout.
TEST(Kernel, PartitionedRequestIsUnknownAfterTimeout) {
  World world;
  world.simulator.network().add_partition(
      {.side_a = {world.client.id()}, .side_b = {world.server.id()}});
  Outcome outcome{.kind = OutcomeKind::ok, .reply = {}};
  Instant finished;
  auto body = [&]() -> Task<void> {
    outcome = co_await world.client.send(0, make_command("PING"), Duration::from_ms(50));
    finished = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.run();
  EXPECT_EQ(outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(finished, Instant::from_ms(50));
  EXPECT_EQ(world.server.requests_served(), 0u);
}

// A timed-out request is not cancelled: a held message still executes on the server later.
TEST(Kernel, TimedOutRequestStillExecutesLater) {
  World world;
  world.simulator.network().add_hold({.from = world.client.id(),
                                      .to = std::nullopt,
                                      .command = "ping",
                                      .active_from = Instant::zero(),
                                      .release_at = Instant::from_ms(90'000)});
  Outcome outcome;
  world.client.spawn(ping_once(world.client, outcome, Duration::from_ms(50)));
  world.simulator.run(Instant::from_ms(1000));
  EXPECT_EQ(outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(world.server.requests_served(), 0u);
  world.simulator.run();
  EXPECT_EQ(world.server.requests_served(), 1u);
  EXPECT_EQ(world.simulator.now(), Instant::from_ms(90'001));  // the late reply arrives, ignored
}

// A paused client does not see its reply until it resumes; its clocks keep running.
TEST(Kernel, PausedClientReadsBufferedReplyAtResume) {
  World world;
  Instant resumed_at;
  Outcome outcome;
  auto body = [&]() -> Task<void> {
    outcome = co_await world.client.send(0, make_command("PING"), Duration::from_ms(50));
    resumed_at = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.schedule_action(Instant::from_ms(1),
                                  [&] { world.simulator.pause(world.client.id()); });
  world.simulator.schedule_action(Instant::from_ms(15'000),
                                  [&] { world.simulator.resume(world.client.id()); });
  world.simulator.run();
  // The reply was in the buffer before the timeout fired, so it wins, at resume time.
  EXPECT_EQ(outcome.kind, OutcomeKind::ok);
  EXPECT_EQ(resumed_at, Instant::from_ms(15'000));
  EXPECT_EQ(world.client.monotonic_now(), Instant::from_ms(15'000));
}

// A sleep is measured on the process's monotonic clock: a slow clock sleeps longer in true time.
TEST(Kernel, SleepFollowsLocalMonotonicRate) {
  World world;
  world.simulator.set_clock_rate(world.client.id(), Rate{1, 2});  // half speed
  Instant woke;
  auto body = [&]() -> Task<void> {
    co_await world.client.sleep(Duration::from_ms(100));
    woke = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.run();
  EXPECT_EQ(woke, Instant::from_ms(200));
}

// A rate change while a timer is pending re-aims it.
TEST(Kernel, RateChangeReaimsPendingTimer) {
  World world;
  Instant woke;
  auto body = [&]() -> Task<void> {
    co_await world.client.sleep(Duration::from_ms(100));
    woke = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.schedule_action(Instant::from_ms(50), [&] {
    world.simulator.set_clock_rate(world.client.id(), Rate{2, 1});  // double speed from 50 ms
  });
  world.simulator.run();
  EXPECT_EQ(woke, Instant::from_ms(75));  // 50 local ms by 50, the other 50 take 25 true ms
}

// A wall-clock step does not move a monotonic sleep.
TEST(Kernel, WallStepDoesNotMoveMonotonicSleep) {
  World world;
  Instant woke;
  auto body = [&]() -> Task<void> {
    co_await world.client.sleep(Duration::from_ms(100));
    woke = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.schedule_action(Instant::from_ms(10), [&] {
    world.simulator.step_wall_clock(world.client.id(), Duration::from_s(-3600));
  });
  world.simulator.run();
  EXPECT_EQ(woke, Instant::from_ms(100));
  EXPECT_EQ(world.client.wall_now(), Instant::from_ms(default_epoch_ms + 100 - 3'600'000));
}

// A slew absorbs exactly its amount and then stops: +10 ms at 500 ppm takes 20 s of true time.
TEST(Kernel, SlewAbsorbsItsAmountThenStops) {
  World world;
  world.simulator.schedule_action(Instant::from_ms(1000), [&] {
    world.simulator.slew_clock(world.client.id(), Duration::from_ms(10), 500);
  });
  world.simulator.run(Instant::from_ms(11'000));
  EXPECT_EQ(world.client.wall_now(), Instant::from_ms(default_epoch_ms + 11'005));
  world.simulator.run(Instant::from_ms(60'000));
  EXPECT_EQ(world.client.wall_now(), Instant::from_ms(default_epoch_ms + 60'010));
  EXPECT_EQ(world.client.monotonic_now(), Instant::from_ms(60'010));  // slewed, never stepped
}

// Setting a wall offset steps the wall clock to true time plus the offset.
TEST(Kernel, SetWallOffsetSteps) {
  World world;
  world.simulator.set_wall_clock_offset(world.server.id(), Duration::from_ms(-250));
  EXPECT_EQ(world.server.wall_now(), Instant::from_ms(-250));
}

// A crash destroys the process's coroutines: the code after the await never runs.
TEST(Kernel, CrashDestroysCoroutines) {
  World world;
  bool after_sleep = false;
  auto body = [&]() -> Task<void> {
    co_await world.client.sleep(Duration::from_ms(100));
    after_sleep = true;
  };
  world.client.spawn(body());
  EXPECT_EQ(world.client.live_task_count(), 1u);
  world.simulator.schedule_action(Instant::from_ms(50),
                                  [&] { world.simulator.crash(world.client.id()); });
  world.simulator.run();
  EXPECT_FALSE(after_sleep);
  EXPECT_EQ(world.client.live_task_count(), 0u);
  EXPECT_EQ(world.client.status(), ProcessStatus::crashed);
}

// Messages to a crashed server are dropped; after a restart, new ones go through.
TEST(Kernel, CrashedServerDropsThenServesAfterRestart) {
  World world;
  world.simulator.crash(world.server.id());
  Outcome first;
  Outcome second;
  auto body = [&]() -> Task<void> {
    first = co_await world.client.send(0, make_command("PING"), Duration::from_ms(50));
    world.simulator.restart(world.server.id());
    second = co_await world.client.send(0, make_command("PING"), Duration::from_ms(50));
  };
  world.client.spawn(body());
  world.simulator.run();
  EXPECT_EQ(first.kind, OutcomeKind::unknown);
  EXPECT_EQ(second.kind, OutcomeKind::ok);
}

// Five servers and a client whose requests take 1, 11, 21, 31 and 41 ms to reach them.
TaskProcess& staggered_servers(Simulator& simulator) {
  std::vector<ProcessId> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(simulator.add_process<ServerProcess>("n" + std::to_string(i)).id());
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints(ids);
  for (int i = 0; i < 5; ++i) {
    simulator.network().set_link_delay(client.id(), ids[i],
                                       DelaySpec::fixed(Duration::from_ms(1 + 10 * i)));
  }
  return client;
}

// Return-at-quorum resumes as soon as a majority replied; the slow ones read as unknown.
TEST(Kernel, FanOutReturnsAtQuorum) {
  Simulator simulator(7);
  TaskProcess& client = staggered_servers(simulator);
  std::vector<Outcome> outcomes;
  Instant done;
  auto body = [&]() -> Task<void> {
    std::vector<NodeRequest> requests;
    for (NodeId n = 0; n < 5; ++n)
      requests.push_back(
          {.node = n, .command = make_command("PING"), .timeout = Duration::from_ms(100)});
    outcomes = co_await client.fan_out(std::move(requests),
                                       {.mode = FanOutMode::return_at_quorum, .quorum = 3});
    done = simulator.now();
  };
  client.spawn(body());
  simulator.run();
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(done, Instant::from_ms(22));  // third-fastest: 21 ms there, 1 ms back
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::ok);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::unknown);
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::unknown);
}

// The results are written in place as replies arrive, until the caller resumes: the replies that
// come after it (here at 32 and 42 ms) leave the outcomes it holds alone, and the group's slot
// serves the next fan-out.
TEST(Kernel, RepliesAfterAQuorumResumedLeaveTheCallersResultsAlone) {
  Simulator simulator(7);
  TaskProcess& client = staggered_servers(simulator);
  std::vector<Outcome> first;
  std::vector<Outcome> second;
  auto body = [&]() -> Task<void> {
    const Command ping = make_command("PING");
    const std::vector<NodeId> nodes = {0, 1, 2, 3, 4};
    std::vector<Outcome> held = co_await client.broadcast(
        ping, nodes, Duration::from_ms(100), {.mode = FanOutMode::return_at_quorum, .quorum = 3});
    co_await client.sleep(Duration::from_ms(100));  // the slow replies arrive meanwhile
    first = std::move(held);
    second = co_await client.broadcast(ping, nodes, Duration::from_ms(100));
  };
  client.spawn(body());
  simulator.run();
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(first[2].kind, OutcomeKind::ok);
  EXPECT_EQ(first[3].kind, OutcomeKind::unknown);
  EXPECT_EQ(first[4].kind, OutcomeKind::unknown);
  EXPECT_EQ(first[4].reply, Reply{});
  ASSERT_EQ(second.size(), 5u);
  for (const Outcome& outcome : second)
    EXPECT_TRUE(outcome.reply.is_ok());
  EXPECT_EQ(client.live_task_count(), 0u);
}

// A send's outcome is the awaiter's own: a reply that comes after its timeout changes nothing,
// and the next send on the same request slot gets its own reply.
TEST(Kernel, ALateReplyToATimedOutSendChangesNothing) {
  World world;
  world.simulator.network().set_link_delay(world.client.id(), world.server.id(),
                                           DelaySpec::fixed(Duration::from_ms(30)));
  world.simulator.network().set_link_delay(world.server.id(), world.client.id(),
                                           DelaySpec::fixed(Duration::from_ms(30)));
  Outcome timed_out;
  Outcome after;
  Instant done;
  auto body = [&]() -> Task<void> {
    timed_out = co_await world.client.send(0, make_command("PING"), Duration::from_ms(20));
    co_await world.client.sleep(Duration::from_ms(100));  // the late reply comes at 60 ms
    after = co_await world.client.send(0, make_command("PING"), Duration::from_ms(100));
    done = world.simulator.now();
  };
  world.client.spawn(body());
  world.simulator.run();
  EXPECT_EQ(timed_out.kind, OutcomeKind::unknown);
  EXPECT_EQ(timed_out.reply, Reply{});
  EXPECT_EQ(after.kind, OutcomeKind::ok);
  EXPECT_TRUE(after.reply.is_ok());
  EXPECT_EQ(done, Instant::from_ms(180));
  EXPECT_EQ(world.server.requests_served(), 2u);
}

// Return-at-quorum-on-success waits for every reply once a quorum cannot succeed, where
// return-at-quorum resumes as soon as it cannot: three fast refusals out of five, one slow node.
TEST(Kernel, FanOutReturnsAtQuorumOnSuccessOnly) {
  for (const FanOutMode mode :
       {FanOutMode::return_at_quorum, FanOutMode::return_at_quorum_success}) {
    Simulator simulator(7);
    std::vector<ProcessId> ids;
    // Nodes 1-3 refuse with an error reply; 0 and 4 answer OK.
    const ServerProcess::Handler refuse = [](ServerProcess&, const Message&) {
      return Reply::error("ERR no");
    };
    for (int i = 0; i < 5; ++i) {
      const bool refuses = i >= 1 && i <= 3;
      ids.push_back(simulator
                        .add_process<ServerProcess>("n" + std::to_string(i),
                                                    refuses ? refuse : ServerProcess::Handler())
                        .id());
    }
    auto& client = simulator.add_process<TaskProcess>("client");
    client.set_endpoints(ids);
    simulator.network().set_link_delay(client.id(), ids[4],
                                       DelaySpec::fixed(Duration::from_ms(40)));
    Instant done;
    auto body = [&]() -> Task<void> {
      std::vector<NodeRequest> requests;
      for (NodeId n = 0; n < 5; ++n) {
        requests.push_back(
            {.node = n, .command = make_command("PING"), .timeout = Duration::from_ms(100)});
      }
      co_await client.fan_out(std::move(requests), {.mode = mode, .quorum = 3});
      done = simulator.now();
    };
    client.spawn(body());
    simulator.run();
    // Refusals are back at 2 ms; the slow node's OK at 41 ms.
    EXPECT_EQ(done, Instant::from_ms(mode == FanOutMode::return_at_quorum ? 2 : 41));
  }
}

// How many times count_success_asks was asked, and what it answered (OK replies succeed).
int success_asks = 0;
bool count_success_asks(const Outcome& outcome) {
  ++success_asks;
  return default_success(outcome);
}

// A wait-for-all group resumes on its last outcome whatever they are, so its success predicate is
// never asked (the caller asks it of the results); a group that returns at a quorum asks it once
// per outcome that comes before it resumes.
TEST(Kernel, OnlyAGroupThatCountsAsksItsSuccessPredicate) {
  Simulator simulator(7);
  TaskProcess& client = staggered_servers(simulator);
  const Command ping = make_command("PING");
  const std::vector<NodeId> nodes = {0, 1, 2, 3, 4};
  std::vector<Outcome> all;
  std::vector<Outcome> quorum;
  int asks_for_all = -1;
  auto body = [&]() -> Task<void> {
    success_asks = 0;
    all = co_await client.broadcast(ping, nodes, Duration::from_ms(100),
                                    {.success = &count_success_asks});
    asks_for_all = success_asks;
    success_asks = 0;
    quorum = co_await client.broadcast(
        ping, nodes, Duration::from_ms(100),
        {.mode = FanOutMode::return_at_quorum, .quorum = 3, .success = &count_success_asks});
  };
  client.spawn(body());
  simulator.run();
  EXPECT_EQ(asks_for_all, 0);
  ASSERT_EQ(all.size(), 5u);
  for (const Outcome& outcome : all)
    EXPECT_TRUE(outcome.reply.is_ok());
  EXPECT_EQ(success_asks, 3);  // the three fastest, then it resumed
  ASSERT_EQ(quorum.size(), 5u);
  EXPECT_TRUE(quorum[2].reply.is_ok());
  EXPECT_EQ(quorum[3].kind, OutcomeKind::unknown);
}

// A broadcast is a fan-out of one copy of the argv per listed node: the same requests in the
// same order (the message log and the trace digest agree), the results in the nodes' order.
TEST(Kernel, BroadcastSendsWhatAFanOutOfCopiesSends) {
  struct Run {
    std::vector<Outcome> outcomes;
    std::vector<MessageLogEntry> log;
    std::string digest;
  };
  const auto run = [](bool broadcast) {
    Simulator simulator(7);
    simulator.enable_message_log(100);
    std::vector<ProcessId> ids;
    // Each server answers with its own name and the request's argv.
    const ServerProcess::Handler echo = [](ServerProcess& self, const Message& request) {
      return Reply::bulk(self.name() + ": " + describe(request.command()));
    };
    for (int i = 0; i < 4; ++i)
      ids.push_back(simulator.add_process<ServerProcess>("n" + std::to_string(i), echo).id());
    auto& client = simulator.add_process<TaskProcess>("client");
    client.set_endpoints(ids);
    Run result;
    auto body = [&]() -> Task<void> {
      const Command command = make_command("SET", std::string(40, 'k'), std::string(40, 'v'));
      const std::vector<NodeId> nodes = {3, 0, 2};
      if (broadcast) {
        result.outcomes = co_await client.broadcast(command, nodes, Duration::from_ms(100));
      } else {
        std::vector<NodeRequest> requests;
        for (NodeId node : nodes)
          requests.push_back({.node = node, .command = command, .timeout = Duration::from_ms(100)});
        result.outcomes = co_await client.fan_out(std::move(requests));
      }
    };
    client.spawn(body());
    simulator.run();
    result.log = simulator.message_log();
    result.digest = simulator.trace().digest_hex();
    return result;
  };
  const Run copies = run(false);
  const Run broadcast = run(true);
  ASSERT_EQ(broadcast.outcomes.size(), 3u);
  EXPECT_EQ(broadcast.outcomes[0].reply.text,
            "n3: SET " + std::string(40, 'k') + " " + std::string(40, 'v'));
  EXPECT_EQ(broadcast.outcomes[1].reply.text.substr(0, 4), "n0: ");
  EXPECT_EQ(broadcast.outcomes, copies.outcomes);
  ASSERT_EQ(broadcast.log.size(), copies.log.size());
  for (std::size_t i = 0; i < copies.log.size(); ++i) {
    EXPECT_EQ(broadcast.log[i].to, copies.log[i].to);
    EXPECT_EQ(broadcast.log[i].text, copies.log[i].text);
  }
  EXPECT_EQ(broadcast.digest, copies.digest);
}

// A broadcast to no node resumes at once with no results, as an empty fan-out does.
TEST(Kernel, BroadcastToNoNodeHasNoResults) {
  World world;
  std::vector<Outcome> outcomes(1);
  auto body = [&]() -> Task<void> {
    const Command command = make_command("PING");
    outcomes = co_await world.client.broadcast(command, {}, Duration::from_ms(50));
  };
  world.client.spawn(body());
  world.simulator.run();
  EXPECT_TRUE(outcomes.empty());
  EXPECT_EQ(world.server.requests_served(), 0u);
}

// A port that does not override start_broadcast (the real backend) sends a broadcast as a
// fan-out of one copy of the argv per node, in the nodes' order.
TEST(Kernel, PortBroadcastDefaultsToAFanOutOfCopies) {
  struct RecordingPort : Port {
    std::vector<NodeRequest> started;
    FanOutOptions options;
    std::vector<Outcome>* results = nullptr;
    std::coroutine_handle<> waiter;
    Instant wall_now() override { return Instant::zero(); }
    Instant monotonic_now() override { return Instant::zero(); }
    void random_bytes(std::span<uint8_t>) override {}
    void start_sleep(Duration, std::coroutine_handle<>) override {}
    void start_send(NodeRequest&&, Outcome*, std::coroutine_handle<>) override {}
    void start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& fan,
                       std::vector<Outcome>* out, std::coroutine_handle<> resume) override {
      started = std::move(requests);
      options = fan;
      results = out;
      waiter = resume;
    }
  };
  RecordingPort port;
  std::vector<Outcome> outcomes;
  auto body = [&]() -> Task<void> {
    const Command command = make_command("GET", "k");
    const std::vector<NodeId> nodes = {2, 0};
    outcomes = co_await port.broadcast(command, nodes, Duration::from_ms(7),
                                       {.mode = FanOutMode::return_at_quorum, .quorum = 2});
  };
  // A shared argv is copied the same way.
  {
    RecordingPort shared_port;
    const auto argv = std::make_shared<const Command>(make_command("GET", "k"));
    const std::vector<NodeId> nodes = {2, 0};
    Task<void> shared_task = [&]() -> Task<void> {
      co_await shared_port.broadcast(argv, nodes, Duration::from_ms(7));
    }();
    shared_task.start();
    ASSERT_EQ(shared_port.started.size(), 2u);
    EXPECT_EQ(shared_port.started[0].node, 2u);
    EXPECT_EQ(shared_port.started[1].command, *argv);
    EXPECT_NE(&shared_port.started[1].command, argv.get());
  }
  Task<void> task = body();
  task.start();
  ASSERT_EQ(port.started.size(), 2u);
  EXPECT_EQ(port.started[0].node, 2u);
  EXPECT_EQ(port.started[1].node, 0u);
  for (const NodeRequest& request : port.started) {
    EXPECT_EQ(request.command, make_command("GET", "k"));
    EXPECT_EQ(request.timeout, Duration::from_ms(7));
  }
  EXPECT_EQ(port.options.mode, FanOutMode::return_at_quorum);
  EXPECT_EQ(port.options.quorum, 2u);
  port.results->assign(2, Outcome{.kind = OutcomeKind::refused, .reply = {}});
  port.waiter.resume();
  EXPECT_TRUE(task.done());
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::refused);
}

// The message log keeps each message's text and fate, in send order, only when enabled.
TEST(Kernel, MessageLogRecordsTextsAndFates) {
  World world;
  world.simulator.enable_message_log(100);
  world.simulator.network().add_partition({.side_a = {world.client.id()},
                                           .side_b = {world.server.id()},
                                           .start = Instant::from_ms(100)});
  Outcome first;
  Outcome second;
  auto body = [&]() -> Task<void> {
    first = co_await world.client.send(0, make_command("GET", "k"), Duration::from_ms(50));
    co_await world.client.sleep(Duration::from_ms(200));
    second = co_await world.client.send(0, make_command("GET", "k"), Duration::from_ms(50));
  };
  world.client.spawn(body());
  world.simulator.run();
  const auto& log = world.simulator.message_log();
  ASSERT_EQ(log.size(), 3u);  // request, reply, and the request the partition dropped
  EXPECT_EQ(log[0].text, "GET k");
  EXPECT_EQ(log[0].delivered_at, Instant::from_ms(1));
  EXPECT_TRUE(log[1].is_reply);
  EXPECT_EQ(log[1].text, "OK");
  EXPECT_EQ(log[2].dropped, DropReason::partition);
}

// Limits end a run with a reported reason instead of hanging.
TEST(Kernel, EventLimitIsAReportedOutcome) {
  Simulator simulator(1, SimulatorLimits{.events_max = 10});
  auto& client = simulator.add_process<TaskProcess>("client");
  auto forever = [&]() -> Task<void> {
    while (true)
      co_await client.sleep(Duration::from_ms(1));
  };
  client.spawn(forever());
  const RunResult result = simulator.run();
  EXPECT_EQ(result.stop, RunStop::event_limit);
  EXPECT_TRUE(result.limit_hit());
  EXPECT_EQ(result.events, 10u);
}

// run() looks at the event limit and the memory count only at the event counts where either can
// stop it (each multiple of memory_check_events, and events_max): a run cut into many run() calls
// stops at the same count as one checked at every event would.
TEST(Kernel, EventAndMemoryLimitsStopAtTheirCountsAcrossRuns) {
  const auto run_in_steps = [](Simulator& simulator) {
    RunResult result;
    for (int64_t ms = 7;; ms += 7) {
      result = simulator.run(Instant::from_ms(ms));
      if (result.stop != RunStop::reached_until) return result;
    }
  };
  const auto forever = [](TaskProcess& client) -> Task<void> {
    while (true)
      co_await client.sleep(Duration::from_ms(1));
  };
  {
    Simulator simulator(1, SimulatorLimits{.events_max = 2500});
    auto& client = simulator.add_process<TaskProcess>("client");
    client.spawn(forever(client));
    EXPECT_EQ(run_in_steps(simulator).stop, RunStop::event_limit);
    EXPECT_EQ(simulator.events_dispatched(), 2500u);
  }
  {
    Simulator simulator(1, SimulatorLimits{.memory_bytes_max = 1'000'000});
    simulator.set_memory_meter([&simulator]() -> std::size_t {
      return simulator.events_dispatched() >= 1500 ? 2'000'000 : 0;
    });
    auto& client = simulator.add_process<TaskProcess>("client");
    client.spawn(forever(client));
    EXPECT_EQ(run_in_steps(simulator).stop, RunStop::memory_limit);
    EXPECT_EQ(simulator.events_dispatched(), 2 * Simulator::memory_check_events);  // 2048
  }
}

// A process whose timers call back into the test (a timer may start timers while it fires).
class TimerProbe : public Process {
 public:
  using Process::Process;
  std::function<void(uint64_t tag)> fired;

 protected:
  void on_message(Message&) override {}
  void on_timer(uint64_t tag) override { fired(tag); }
};

// An event pushed while another is dispatched (it takes the dispatched event's place at the root
// of the queue) still runs in (time, sequence) order: after an earlier-scheduled same-time event.
TEST(Kernel, EventsPushedDuringADispatchKeepTimeSequenceOrder) {
  Simulator simulator(1);
  auto& probe = simulator.add_process<TimerProbe>("probe");
  std::string order;
  const Instant at = Instant::from_ms(10);
  probe.fired = [&](uint64_t tag) {
    order += static_cast<char>(tag);
    if (tag != 'A') return;
    probe.start_timer(ClockKind::monotonic, at, 'C');
    probe.start_timer(ClockKind::monotonic, at, 'D');
    probe.start_timer(ClockKind::monotonic, Instant::from_ms(5'000), 'F');
  };
  probe.start_timer(ClockKind::monotonic, at, 'A');
  probe.start_timer(ClockKind::monotonic, at, 'B');
  probe.start_timer(ClockKind::monotonic, Instant::from_ms(20), 'E');
  simulator.run();
  EXPECT_EQ(order, "ABCDEF");
}

// Timeouts (queued in their FIFO when in time order, on the heap otherwise) and other timers at
// the same instants fire in (time, start order), whichever place each was queued in.
TEST(Kernel, TimeoutsAndTimersFireInTimeThenStartOrder) {
  Simulator simulator(1);
  auto& probe = simulator.add_process<TimerProbe>("probe");
  std::string order;
  probe.fired = [&](uint64_t tag) {
    order += static_cast<char>(tag);
    if (tag != 'A') return;
    probe.start_timeout(ClockKind::monotonic, Instant::from_ms(10), 'D');
    probe.start_timer(ClockKind::monotonic, Instant::from_ms(10), 'E');
    probe.start_timeout(ClockKind::monotonic, Instant::from_ms(30), 'H');
  };
  probe.start_timeout(ClockKind::monotonic, Instant::from_ms(5), 'A');
  probe.start_timeout(ClockKind::monotonic, Instant::from_ms(10), 'B');
  probe.start_timer(ClockKind::monotonic, Instant::from_ms(10), 'C');
  probe.start_timeout(ClockKind::monotonic, Instant::from_ms(20), 'F');
  probe.start_timeout(ClockKind::monotonic, Instant::from_ms(15), 'G');  // earlier: on the heap
  const TimerId cancelled = probe.start_timeout(ClockKind::monotonic, Instant::from_ms(40), 'X');
  probe.cancel_timer(cancelled);
  simulator.run();
  EXPECT_EQ(order, "ABCDEGFH");
  EXPECT_EQ(simulator.events_dispatched(), 9u);  // the cancelled one's event still comes out
}

// start_timer_after(delay) and start_sleep_timer(delay) are start_timer(monotonic,
// monotonic_now() + delay): the same true instant, the same local deadline (a later clock change
// re-aims it alike) and the same TimerId, on a steady clock whose monotonic reading is not true
// time, with free timer slots (their shortcut), and on a clock at another rate and for a
// negative delay (the general path).
TEST(Kernel, ATimerADelayFromNowIsATimerAtTheMonotonicReadingPlusTheDelay) {
  Simulator simulator(1);
  auto& after = simulator.add_process<TimerProbe>("after");
  auto& reading = simulator.add_process<TimerProbe>("reading");
  auto& sleep = simulator.add_process<TimerProbe>("sleep");
  std::map<uint64_t, Instant> after_fired, reading_fired, sleep_fired;
  after.fired = [&](uint64_t tag) { after_fired[tag] = simulator.now(); };
  reading.fired = [&](uint64_t tag) { reading_fired[tag] = simulator.now(); };
  sleep.fired = [&](uint64_t tag) { sleep_fired[tag] = simulator.now(); };
  const auto each_probe = [&](Duration delay, uint64_t tag) {
    EXPECT_EQ(after.start_timer_after(delay, tag),
              reading.start_timer(ClockKind::monotonic, reading.monotonic_now() + delay, tag));
    sleep.start_sleep_timer(delay, tag);
  };
  const auto rate_at = [&](Instant at, Rate rate) {
    for (const ProcessId id : {after.id(), reading.id(), sleep.id()})
      simulator.schedule_action(at, [&simulator, id, rate] { simulator.set_clock_rate(id, rate); });
  };
  for (const ProcessId id : {after.id(), reading.id(), sleep.id()})
    simulator.set_clock_rate(id, Rate{2, 1});  // monotonic runs ahead of true time ...
  rate_at(Instant::from_ms(10), Rate::one());
  rate_at(Instant::from_ms(30), Rate{1, 3});
  rate_at(Instant::from_ms(50), Rate::one());
  rate_at(Instant::from_ms(61), Rate{1, 3});
  // Timers that fire before 20 ms, so that every probe has free timer slots from then on.
  for (uint64_t tag = 100; tag < 105; ++tag)
    each_probe(Duration::from_ms(1), tag);
  simulator.schedule_action(Instant::from_ms(20), [&] {
    EXPECT_NE(after.monotonic_now(), simulator.now());  // ... and reads 10 ms past it at rate one
    each_probe(Duration::from_ms(5), 1);                // steady: fires at 25 ms
    each_probe(Duration::from_ms(15), 2);               // re-aimed at 30 ms: fires at 45 ms
    each_probe(Duration::zero(), 3);
    each_probe(Duration::from_ms(-4), 4);
  });
  simulator.schedule_action(Instant::from_ms(40), [&] {
    each_probe(Duration::from_ms(2), 5);  // at a third of the rate: 6 ms of true time
  });
  simulator.schedule_action(Instant::from_ms(60), [&] {
    each_probe(Duration::from_ms(3), 6);  // steady again; re-aimed at 61 ms: 1 + 6 ms
  });
  simulator.run();
  EXPECT_EQ(after_fired, reading_fired);
  EXPECT_EQ(sleep_fired, reading_fired);
  EXPECT_EQ(after_fired.at(1), Instant::from_ms(25));
  EXPECT_EQ(after_fired.at(2), Instant::from_ms(45));
  EXPECT_EQ(after_fired.at(3), Instant::from_ms(20));
  EXPECT_EQ(after_fired.at(4), Instant::from_ms(20));
  EXPECT_EQ(after_fired.at(5), Instant::from_ns(45'999'999));  // 6 ms, the reading rounded down
  EXPECT_EQ(after_fired.at(6), Instant::from_ms(67));
}

// The run loop tells an empty queue (whose next time reads as Instant::max(), a sentinel's) from
// an event at Instant::max(): with no time limit the event runs, then the run ends idle.
TEST(Kernel, AnEventAtTheLastInstantRunsAndThenTheRunIsIdle) {
  Simulator simulator(1, SimulatorLimits{.duration_max = Duration::from_ns(INT64_MAX)});
  int runs = 0;
  simulator.schedule_action(Instant::from_ms(1), [&] { ++runs; });
  simulator.schedule_action(Instant::max(), [&] { ++runs; });
  const RunResult result = simulator.run();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(result.stop, RunStop::idle);
  EXPECT_EQ(result.events, 2u);
  EXPECT_EQ(simulator.now(), Instant::max());
  Simulator bounded(1);  // the default 24-hour limit: the event lies past it
  bounded.schedule_action(Instant::max(), [&] { ++runs; });
  EXPECT_EQ(bounded.run().stop, RunStop::duration_limit);
  EXPECT_EQ(runs, 2);
}

// The event being dispatched is no longer counted as queued by memory_bytes(), before and after
// the dispatch pushes one.
TEST(Kernel, MemoryCountDuringADispatchLeavesOutTheRunningEvent) {
  Simulator simulator(1);
  auto& probe = simulator.add_process<TimerProbe>("probe");
  std::vector<std::size_t> counts;
  probe.fired = [&](uint64_t tag) {
    if (tag != 1) return;
    counts.push_back(simulator.memory_bytes());  // one queued event, one trace record
    probe.start_timer(ClockKind::monotonic, Instant::from_ms(3), 3);
    counts.push_back(simulator.memory_bytes());  // two queued events
  };
  probe.start_timer(ClockKind::monotonic, Instant::from_ms(1), 1);
  probe.start_timer(ClockKind::monotonic, Instant::from_ms(2), 2);
  simulator.run();
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0], 48u + 32u);
  EXPECT_EQ(counts[1], 2 * 48u + 32u);
}

// An exception out of a dispatch leaves the queue whole: the next run() goes on with the next
// event and does not dispatch the failed one again.
TEST(Kernel, RunAfterAnExceptionGoesOnWithTheNextEvent) {
  Simulator simulator(1);
  int failures = 0;
  int later_runs = 0;
  simulator.schedule_action(Instant::from_ms(1), [&] {
    ++failures;
    throw std::runtime_error("model bug");
  });
  simulator.schedule_action(Instant::from_ms(2), [&] { ++later_runs; });
  EXPECT_THROW(simulator.run(), std::runtime_error);
  simulator.run();
  EXPECT_EQ(failures, 1);
  EXPECT_EQ(later_runs, 1);
  EXPECT_EQ(simulator.events_dispatched(), 2u);
}

// An action that schedules more actions keeps its own captures: the list of actions grows (and
// moves) under the running one. Before the action was taken out of the list, the first action's
// small captures lived in the list's freed storage when it wrote through them.
TEST(Kernel, AnActionThatSchedulesActionsKeepsItsCaptures) {
  struct Context {
    Simulator simulator{7};
    int fired = 0;
    int written = 0;
  } context;
  Context* c = &context;  // one pointer: the function keeps it inside itself, not on the heap
  c->simulator.schedule_action(Instant::from_ms(1), [c] {
    for (int i = 0; i < 64; ++i)
      c->simulator.schedule_action(Instant::from_ms(2), [c] { ++c->fired; });
    c->written = 42;
  });
  context.simulator.run();
  EXPECT_EQ(context.written, 42);
  EXPECT_EQ(context.fired, 64);
}

// A receiver reads its message where it lies in the kernel's message slots while it sends: a
// server that sends 300 messages (new slots, several chunks of them) before it reads the request
// still reads the request's own bytes. (Slots in a growing std::vector would move under it: a
// use-after-free that the sanitizer build reports.)
TEST(Kernel, AReceiverReadsItsMessageWhileItSendsMany) {
  Simulator simulator(3);
  const std::string payload(100, 'p');  // longer than a short string's inline buffer
  ProcessId client_id = 0;
  auto& server = simulator.add_process<ServerProcess>(
      "server", [&](ServerProcess& self, const Message& request) {
        for (int i = 0; i < 300; ++i)
          self.send_message(client_id, make_command("NOTE", std::to_string(i)), 0);
        return Reply::bulk(request.command().at(1));
      });
  auto& client = simulator.add_process<TaskProcess>("client");
  client_id = client.id();
  client.set_endpoints({server.id()});
  Outcome outcome;
  auto ask = [&]() -> Task<void> {
    outcome = co_await client.send(0, make_command("ECHO", payload), Duration::from_ms(50));
  };
  client.spawn(ask());
  simulator.run();
  ASSERT_EQ(outcome.kind, OutcomeKind::ok);
  EXPECT_EQ(outcome.reply, Reply::bulk(payload));
}

// A delivered message leaves the count of messages in flight before its receiver runs: with at
// most one message in flight, a server's reply to the one request is not dropped.
TEST(Kernel, ADeliveredMessageIsOutOfFlightWhileItsReceiverRuns) {
  Simulator simulator(5, SimulatorLimits{.messages_in_flight_max = 1});
  auto& server = simulator.add_process<ServerProcess>("server");
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints({server.id()});
  Outcome outcome;
  client.spawn(ping_once(client, outcome, Duration::from_ms(50)));
  const RunResult result = simulator.run();
  EXPECT_EQ(outcome.kind, OutcomeKind::ok);
  EXPECT_FALSE(result.limit_hit());
}

// A receiver that throws gives its message's slot back: the run goes on after the exception
// with nothing counted in flight, and the next request is served.
TEST(Kernel, AReceiverThatThrowsGivesItsMessageBack) {
  Simulator simulator(9);
  int calls = 0;
  auto& server =
      simulator.add_process<ServerProcess>("server", [&](ServerProcess&, const Message&) -> Reply {
        if (++calls == 1) throw std::runtime_error("model bug");
        return Reply::ok();
      });
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints({server.id()});
  Outcome first, second;
  auto ask = [&]() -> Task<void> {
    first = co_await client.send(0, make_command("PING"), Duration::from_ms(50));
    second = co_await client.send(0, make_command("PING"), Duration::from_ms(50));
  };
  client.spawn(ask());
  EXPECT_THROW(simulator.run(), std::runtime_error);
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
  simulator.run();
  EXPECT_EQ(first.kind, OutcomeKind::unknown);
  EXPECT_EQ(second.kind, OutcomeKind::ok);
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
}

// A process that keeps what it receives: each message's kind and argv, and each reply.
class Recorder : public Process {
 public:
  using Process::Process;
  std::vector<std::pair<bool, Command>> seen;  // (is_reply, argv)
  std::vector<Reply> replies;

 protected:
  void on_message(Message& message) override {
    seen.emplace_back(message.is_reply, message.command());
    if (message.is_reply) replies.push_back(message.reply);
  }
  void on_timer(uint64_t /*tag*/) override {}
};

// A request's slot keeps its argv strings for the next request (their buffers reused): each
// request still arrives with exactly its own argv, whether it is longer or shorter than the last
// one in that slot, copied or moved in, and every reply arrives with an empty argv.
TEST(Kernel, ReusedRequestSlotsCarryExactlyTheirOwnArgv) {
  Simulator simulator(11);
  auto& server = simulator.add_process<Recorder>("server");
  auto& client = simulator.add_process<Recorder>("client");
  const std::string body(120, 'b');  // longer than a short string's inline buffer
  const std::vector<Command> commands = {
      make_command("EVAL", body, "1", "lock:a", std::string(40, 't'), "30000"),
      make_command("GET", "k"),
      make_command("EVAL", std::string(60, 'c'), "1", "lock:b"),
      make_command("PING"),
      make_command("SET", "lock:c", std::string(30, 'v'), "NX", "PX", "100", "extra"),
      Command{},
  };
  uint64_t request_id = 0;
  for (const Command& command : commands) {
    if (request_id % 2 == 0) {
      client.send_message(server.id(), command, ++request_id);  // copied into the slot
    } else {
      Command moved = command;
      client.send_message(server.id(), std::move(moved), ++request_id);
    }
    simulator.run();
    ASSERT_EQ(server.seen.size(), request_id);
    EXPECT_FALSE(server.seen.back().first);
    EXPECT_EQ(server.seen.back().second, command);
    // The server answers from its own slot: a reply, with no argv.
    Message request;
    request.from = client.id();
    request.request_id = request_id;
    server.reply_to(request, Reply::bulk(std::to_string(request_id)));
    simulator.run();
    ASSERT_EQ(client.seen.size(), request_id);
    EXPECT_TRUE(client.seen.back().first);
    EXPECT_TRUE(client.seen.back().second.empty());
    EXPECT_EQ(client.replies.back(), Reply::bulk(std::to_string(request_id)));
  }
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
}

// The free slot lists grow with the slots (by whole chunks, copying what they hold): reply slots
// given back, then requests that make new chunks, then replies again that take the old slots
// back. Every message still arrives with exactly its own contents (a list that lost its entries
// when it grew would hand out one slot many times).
TEST(Kernel, FreeSlotsKeptAcrossNewChunksCarryTheirOwnMessages) {
  Simulator simulator(13);
  auto& server = simulator.add_process<Recorder>("server");
  auto& client = simulator.add_process<Recorder>("client");
  constexpr int count = 150;  // more than two chunks of slots
  const auto replies_from_server = [&](int round) {
    for (int i = 0; i < count; ++i) {
      Message request;
      request.from = client.id();
      request.request_id = static_cast<uint64_t>(i + 1);
      server.reply_to(request, Reply::bulk(std::to_string(round) + "/" + std::to_string(i)));
    }
    simulator.run();
  };
  replies_from_server(1);  // reply slots 0..149, then all given back
  for (int i = 0; i < count; ++i)
    client.send_message(server.id(), make_command("NOTE", std::to_string(i)), 0);
  simulator.run();  // request slots 150..299: new chunks, the reply list grown while it holds 150
  replies_from_server(2);  // the reply slots taken back from the grown list
  ASSERT_EQ(client.replies.size(), std::size_t{2 * count});
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(client.replies[static_cast<std::size_t>(i)], Reply::bulk("1/" + std::to_string(i)));
    EXPECT_EQ(client.replies[static_cast<std::size_t>(count + i)],
              Reply::bulk("2/" + std::to_string(i)));
  }
  ASSERT_EQ(server.seen.size(), std::size_t{count});
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(server.seen[static_cast<std::size_t>(i)].second,
              make_command("NOTE", std::to_string(i)));
  }
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
}

// A process that keeps every message it receives, moved out of its slot (as a node keeps
// requests that wait behind a blocked connection or a busy script).
class Keeper : public Process {
 public:
  using Process::Process;
  std::vector<Message> kept;

 protected:
  void on_message(Message& message) override { kept.push_back(std::move(message)); }
  void on_timer(uint64_t /*tag*/) override {}
};

// Three keepers (ids 0, 1, 2) and then a client whose endpoints 0, 1, 2 are they.
struct KeeperWorld {
  Simulator simulator{5};
  std::vector<Keeper*> keepers;
  TaskProcess& client = add_keepers_then_client();

 private:
  TaskProcess& add_keepers_then_client() {
    std::vector<ProcessId> ids;
    for (int i = 0; i < 3; ++i) {
      keepers.push_back(&simulator.add_process<Keeper>("n" + std::to_string(i)));
      ids.push_back(keepers.back()->id());
    }
    auto& added = simulator.add_process<TaskProcess>("client");
    added.set_endpoints(ids);
    return added;
  }
};

// A broadcast's messages share one copy of its argv (no copy per node), which lives as long as
// any of them does: messages kept by their receivers still read their own argv after later
// broadcasts, and the copy is reused only once no message holds it.
TEST(Kernel, ABroadcastsMessagesShareOneArgvThatLivesWhileAnyHoldsIt) {
  KeeperWorld world;
  Simulator& simulator = world.simulator;
  std::vector<Keeper*>& keepers = world.keepers;
  TaskProcess& client = world.client;
  const Command first = make_command("EVAL", std::string(120, 'a'), "1", "lock:a", "t1");
  const Command second = make_command("EVAL", std::string(90, 'b'), "1", "lock:b", "t2", "x");
  const std::vector<NodeId> nodes = {2, 0, 1};
  auto broadcast = [&](Command command) -> Task<void> {
    co_await client.broadcast(command, nodes, Duration::from_ms(10));  // no reply: timeouts
  };
  client.spawn(broadcast(first));
  simulator.run();
  client.spawn(broadcast(second));
  simulator.run();
  const Command* shared_first = nullptr;
  for (Keeper* keeper : keepers) {
    ASSERT_EQ(keeper->kept.size(), 2u);
    EXPECT_EQ(keeper->kept[0].command(), first);
    EXPECT_EQ(keeper->kept[1].command(), second);
    if (shared_first == nullptr) shared_first = &keeper->kept[0].command();
    EXPECT_EQ(&keeper->kept[0].command(), shared_first);  // one argv for the three messages
    EXPECT_NE(&keeper->kept[1].command(), shared_first);  // still held: not reused
  }
  // Once no message holds the first broadcast's argv, the next broadcast reuses it.
  for (Keeper* keeper : keepers)
    keeper->kept.erase(keeper->kept.begin());
  const Command third = make_command("GET", "k");
  client.spawn(broadcast(third));
  simulator.run();
  for (Keeper* keeper : keepers) {
    ASSERT_EQ(keeper->kept.size(), 2u);
    EXPECT_EQ(keeper->kept[0].command(), second);
    EXPECT_EQ(keeper->kept[1].command(), third);
    EXPECT_EQ(&keeper->kept[1].command(), shared_first);
  }
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
}

// A broadcast of an argv the caller shares sends that argv itself: every message holds it (no
// copy, not even one kept by the process), and it lives while any of them does.
TEST(Kernel, ASharedArgvsBroadcastSendsTheArgvItself) {
  KeeperWorld world;
  Simulator& simulator = world.simulator;
  std::vector<Keeper*>& keepers = world.keepers;
  TaskProcess& client = world.client;
  auto argv = std::make_shared<const Command>(make_command("SET", "k", "t1", "NX", "PX", "9"));
  const Command* sent = argv.get();
  const std::vector<NodeId> nodes = {1, 2, 0};
  auto body = [&]() -> Task<void> {
    co_await client.broadcast(argv, nodes, Duration::from_ms(10));  // no reply: timeouts
    co_await client.broadcast(argv, nodes, Duration::from_ms(10));  // sent again
  };
  client.spawn(body());
  simulator.run();
  argv.reset();
  for (Keeper* keeper : keepers) {
    ASSERT_EQ(keeper->kept.size(), 2u);
    for (const Message& message : keeper->kept) {
      EXPECT_EQ(&message.command(), sent);
      EXPECT_EQ(message.command(), make_command("SET", "k", "t1", "NX", "PX", "9"));
    }
  }
}

// While receivers hold many broadcasts' argvs (as a paused node holds every request), a broadcast
// never takes one that a message holds, and the argvs that come free, wherever they lie among
// the kept ones, are taken by the broadcasts after (the edges of `share`'s window of looks; the
// full scan before it passed this too).
TEST(Kernel, ABroadcastNeverTakesAnArgvAMessageHolds) {
  KeeperWorld world;
  Simulator& simulator = world.simulator;
  std::vector<Keeper*>& keepers = world.keepers;
  TaskProcess& client = world.client;
  const std::vector<NodeId> nodes = {0, 1, 2};
  const auto command = [](int i) {
    return make_command("EVAL", std::string(60 + i, 'a'), "1", "lock:" + std::to_string(i));
  };
  auto broadcast = [&](int i) -> Task<void> {
    co_await client.broadcast(command(i), nodes, Duration::from_ms(10));  // no reply: timeouts
  };
  for (int i = 0; i < 10; ++i) {
    client.spawn(broadcast(i));
    simulator.run();
  }
  // Every other broadcast's argv comes free.
  std::vector<const Command*> freed;
  for (Keeper* keeper : keepers) {
    ASSERT_EQ(keeper->kept.size(), 10u);
    std::vector<Message> held;
    for (std::size_t i = 0; i < keeper->kept.size(); ++i) {
      if (i % 2 == 0) {
        held.push_back(std::move(keeper->kept[i]));
      } else if (keeper == keepers[0]) {
        freed.push_back(&keeper->kept[i].command());
      }
    }
    keeper->kept = std::move(held);
  }
  for (int i = 10; i < 20; ++i) {
    client.spawn(broadcast(i));
    simulator.run();
  }
  std::vector<int> sent;
  for (int i = 0; i < 10; i += 2)
    sent.push_back(i);
  for (int i = 10; i < 20; ++i)
    sent.push_back(i);
  std::vector<const Command*> taken;
  for (Keeper* keeper : keepers) {
    ASSERT_EQ(keeper->kept.size(), sent.size());
    for (std::size_t k = 0; k < sent.size(); ++k) {
      EXPECT_EQ(keeper->kept[k].command(), command(sent[k]));  // its own argv, never overwritten
      EXPECT_EQ(&keeper->kept[k].command(), &keepers[0]->kept[k].command());  // one per broadcast
      if (keeper == keepers[0] && sent[k] >= 10) taken.push_back(&keeper->kept[k].command());
    }
  }
  for (const Command* argv : freed)
    EXPECT_NE(std::find(taken.begin(), taken.end(), argv), taken.end());  // taken again
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
}

// memory_bytes() counts each message in flight as a fixed cost plus its texts (each argument or
// reply element a fixed cost plus its length): a request's own argv, a broadcast's shared argv
// once per message, a reply's elements; a delivered message no longer.
TEST(Kernel, MemoryCountsTheTextsOfTheMessagesInFlight) {
  Simulator simulator(3, SimulatorLimits{.trace_records_max = 0});
  auto& server = simulator.add_process<Recorder>("server");
  auto& other = simulator.add_process<Recorder>("other");
  auto& client = simulator.add_process<Recorder>("client");
  auto& broadcaster = simulator.add_process<TaskProcess>("broadcaster");
  broadcaster.set_endpoints({server.id(), other.id()});
  constexpr std::size_t event = 48, message = 160, string = 32;
  const std::size_t idle = simulator.memory_bytes();
  client.send_message(server.id(), make_command("SET", "key", std::string(40, 'v')), 1);
  const std::size_t request = event + message + 3 * string + 3 + 3 + 40;
  EXPECT_EQ(simulator.memory_bytes(), idle + request);
  Message asked;
  asked.from = client.id();
  asked.request_id = 1;
  server.reply_to(asked, Reply::array({Reply::bulk("abc"), Reply::integer_reply(5)}));
  const std::size_t reply = event + message + (string + 3) + (string + 0);
  EXPECT_EQ(simulator.memory_bytes(), idle + request + reply);
  const Command shared = make_command("EVAL", std::string(100, 'b'), "1", "lock");
  auto body = [&]() -> Task<void> {
    const std::vector<NodeId> nodes = {0, 1};
    co_await broadcaster.broadcast(shared, nodes, Duration::from_ms(50));
  };
  broadcaster.spawn(body());  // two requests and their two timeout timers
  const std::size_t broadcast = 2 * event + 2 * (event + message + 4 * string + 4 + 100 + 1 + 4);
  EXPECT_EQ(simulator.memory_bytes(), idle + request + reply + broadcast);
  simulator.run();
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
  EXPECT_EQ(simulator.memory_bytes(), idle);
}

// A message's text leaves the memory count however its flight ends: its receiver crashed after
// it was sent, a partition cut its link before it arrived, its receiver paused (it waits, still
// counted, until the receiver resumes and takes it). Both kinds of request: a broadcast's, sharing
// one argv, and one with its own.
TEST(Kernel, MemoryForgetsMessagesHoweverTheirFlightEnds) {
  Simulator simulator(5, SimulatorLimits{.trace_records_max = 0});
  auto& crashed = simulator.add_process<Recorder>("crashed");
  auto& cut = simulator.add_process<Recorder>("cut");
  auto& paused = simulator.add_process<Recorder>("paused");
  auto& broadcaster = simulator.add_process<TaskProcess>("broadcaster");
  broadcaster.set_endpoints({crashed.id(), cut.id(), paused.id()});
  const std::size_t idle = simulator.memory_bytes();
  auto body = [&]() -> Task<void> {
    const std::vector<NodeId> nodes = {0, 1, 2};
    co_await broadcaster.broadcast(make_command("SET", "lock", std::string(64, 't')), nodes,
                                   Duration::from_ms(50));
  };
  broadcaster.spawn(body());
  // And one request of its own argv to each (a request slot keeps its argv's buffers when given
  // back, so a slot left marked in flight would still count them).
  auto& sender = simulator.add_process<Recorder>("sender");
  for (const ProcessId to : {crashed.id(), cut.id(), paused.id()})
    sender.send_message(to, make_command("SET", "key", std::string(40, 'v')), 1);
  EXPECT_GT(simulator.memory_bytes(), idle);
  simulator.crash(crashed.id());
  simulator.network().add_partition(
      {.side_a = {broadcaster.id(), sender.id()}, .side_b = {cut.id()}});
  simulator.pause(paused.id());
  simulator.schedule_action(Instant::from_ms(20), [&] {
    // Four dropped, two waiting at their paused receiver: still counted.
    EXPECT_EQ(simulator.messages_in_flight(), 2u);
    EXPECT_GT(simulator.memory_bytes(), idle);
  });
  simulator.schedule_action(Instant::from_ms(30), [&] { simulator.resume(paused.id()); });
  simulator.run();
  EXPECT_EQ(paused.seen.size(), 2u);
  EXPECT_TRUE(crashed.seen.empty());
  EXPECT_TRUE(cut.seen.empty());
  EXPECT_EQ(simulator.messages_in_flight(), 0u);
  EXPECT_EQ(simulator.memory_bytes(), idle);
}

// Partition rules cut the same pairs whether their sides' ids all lie below 64 (read as bit sets)
// or not (searched), for senders and receivers on both sides of 64, one-way and two-way, inside
// and at the edges of each rule's window: against a plain search of the sides.
TEST(Kernel, PartitionRulesCutTheSamePairsWithIdsBelowAndPast64) {
  Network network(1);
  for (ProcessId id = 0; id < 130; ++id)
    network.name_process(id, "P" + std::to_string(id));
  const std::vector<PartitionRule> rules = {
      {.side_a = {63, 3},
       .side_b = {0, 5},
       .start = Instant::from_ns(10),
       .end = Instant::from_ns(20)},
      {.side_a = {2, 64},
       .side_b = {100},
       .one_way = true,
       .start = Instant::from_ns(15),
       .end = Instant::from_ns(30)},
      {.side_a = {7},
       .side_b = {62, 63},
       .one_way = true,
       .start = Instant::from_ns(0),
       .end = Instant::from_ns(25)},
  };
  for (const PartitionRule& rule : rules)
    network.add_partition(rule);
  const auto on = [](const std::vector<ProcessId>& side, ProcessId id) {
    return std::find(side.begin(), side.end(), id) != side.end();
  };
  const auto expected_cut = [&](ProcessId from, ProcessId to, Instant at) {
    for (const PartitionRule& rule : rules) {
      if (at < rule.start || at >= rule.end) continue;
      if (on(rule.side_a, from) && on(rule.side_b, to)) return true;
      if (!rule.one_way && on(rule.side_b, from) && on(rule.side_a, to)) return true;
    }
    return false;
  };
  int cuts = 0;
  for (const int64_t at_ns : {5, 9, 10, 14, 15, 19, 20, 24, 25, 29, 30}) {
    const Instant at = Instant::from_ns(at_ns);
    for (ProcessId from = 0; from < 130; ++from) {
      for (ProcessId to = 0; to < 130; ++to) {
        const bool expected = expected_cut(from, to, at);
        ASSERT_EQ(network.is_cut(from, to, at), expected)
            << from << " -> " << to << " at " << at_ns;
        cuts += expected ? 1 : 0;
      }
    }
  }
  EXPECT_GT(cuts, 20);
}

}  // namespace
}  // namespace redlock_sim
