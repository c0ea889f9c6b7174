// Laws of the kernel over generated schedules (RapidCheck, 100+ cases each; shrinks on failure).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/kernel/server_process.hpp"
#include "sim/kernel/task_process.hpp"

namespace redlock_sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Events dispatch in (time, sequence) order for any schedule, including actions that schedule
// further actions at the current instant.

struct Recorder {
  Simulator& simulator;
  std::vector<std::pair<int64_t, uint64_t>> dispatched;  // (time, scheduling index)
  uint64_t scheduled = 0;

  void schedule(int64_t at_ns, std::vector<int64_t> children_offsets_ns) {
    const uint64_t index = scheduled++;
    simulator.schedule_action(Instant::from_ns(at_ns), [this, index, children_offsets_ns] {
      dispatched.emplace_back(simulator.now().ns(), index);
      for (int64_t offset : children_offsets_ns)
        schedule(simulator.now().ns() + offset, {});
    });
  }
};

RC_GTEST_PROP(KernelProperties, EventsDispatchInTimeThenSequenceOrder, ()) {
  Simulator simulator(*rc::gen::arbitrary<uint64_t>());
  Recorder recorder{simulator, {}, 0};
  const auto roots = *rc::gen::container<std::vector<std::pair<int64_t, std::vector<int64_t>>>>(
      rc::gen::pair(rc::gen::inRange<int64_t>(0, 50),
                    rc::gen::container<std::vector<int64_t>>(rc::gen::inRange<int64_t>(0, 5))));
  for (const auto& [at, children] : roots)
    recorder.schedule(at, children);
  simulator.run();
  RC_ASSERT(recorder.dispatched.size() == recorder.scheduled);
  RC_ASSERT(std::is_sorted(recorder.dispatched.begin(), recorder.dispatched.end()));
}

// ---------------------------------------------------------------------------------------------
// The event queue with its streams' FIFOs: whatever goes on the heap and whatever is pushed in
// order (or out of order) into either FIFO, events come out in (time, push order).

struct QueuePush {
  int place;          // 0 the heap, 1 deliveries, 2 timeouts
  int64_t offset_ns;  // from the time of the event being dispatched
};

RC_GTEST_PROP(KernelProperties, QueueWithFifosTakesInTimeThenPushOrder, ()) {
  const auto push_gen =
      rc::gen::construct<QueuePush>(rc::gen::inRange(0, 3), rc::gen::inRange<int64_t>(0, 8));
  const auto rounds = *rc::gen::container<std::vector<std::vector<QueuePush>>>(
      rc::gen::container<std::vector<QueuePush>>(push_gen));
  EventQueue queue;
  std::vector<std::pair<int64_t, uint64_t>> pushed;  // (time, push number), by push number
  std::vector<std::pair<int64_t, uint64_t>> taken;
  const auto push = [&](const QueuePush& p, int64_t now) {
    const Instant at = Instant::from_ns(now + p.offset_ns);
    const Event event{.payload = pushed.size(), .kind = EventKind::action};
    if (p.place == 0) {
      queue.push(at, event);
    } else {
      queue.push_in_order(p.place == 1 ? EventStream::deliveries : EventStream::timeouts, at,
                          event);
    }
    pushed.emplace_back(at.ns(), pushed.size());
  };
  push(QueuePush{0, 0}, 0);
  std::size_t round = 0;
  while (!queue.empty()) {
    const Instant now = queue.next_time();
    const Event event = queue.take();
    taken.push_back(pushed.at(event.payload));
    RC_ASSERT(taken.back().first == now.ns());
    if (round < rounds.size()) {
      for (const QueuePush& p : rounds[round])
        push(p, now.ns());
    }
    ++round;
    queue.finish_take();
  }
  RC_ASSERT(taken.size() == pushed.size());
  RC_ASSERT(std::is_sorted(taken.begin(), taken.end()));
}

// ---------------------------------------------------------------------------------------------
// Clocks: the monotonic clock never goes backwards, equals an independently computed
// piecewise-linear reference, the wall clock equals monotonic + initial offset + the steps so far
// exactly, and first_true_time_reaching is the exact inverse.

struct ClockFault {
  int64_t gap_ns;  // after the previous fault
  int kind;        // 0 rate, 1 step, 2 slew
  int64_t value;   // ppm for rate and slew, ns for step
};

struct ReferenceClock {
  int64_t start_offset_ns;
  std::vector<std::tuple<int64_t, int64_t, int64_t>> rate_changes;  // (true ns, num, den)
  std::vector<std::pair<int64_t, int64_t>> steps;                   // (true ns, delta ns)

  static int64_t floor_scaled(int64_t elapsed, int64_t num, int64_t den) {
    const __int128 scaled = static_cast<__int128>(elapsed) * num;
    __int128 q = scaled / den;
    if (scaled % den != 0 && scaled < 0) --q;
    return static_cast<int64_t>(q);
  }
  int64_t monotonic(int64_t t) const {
    int64_t value = 0;
    int64_t since = 0;
    int64_t num = std::get<1>(rate_changes.front());
    int64_t den = std::get<2>(rate_changes.front());
    for (std::size_t i = 1; i < rate_changes.size(); ++i) {
      const auto& [at, n, d] = rate_changes[i];
      if (at > t) break;
      value += floor_scaled(at - since, num, den);
      since = at;
      num = n;
      den = d;
    }
    return value + floor_scaled(t - since, num, den);
  }
  int64_t wall(int64_t t) const {
    int64_t offset = start_offset_ns;
    for (const auto& [at, delta] : steps) {
      if (at <= t) offset += delta;
    }
    return monotonic(t) + offset;
  }
};

RC_GTEST_PROP(KernelProperties, ClocksFollowRatesAndStepsExactly, ()) {
  const int64_t start_offset = *rc::gen::inRange<int64_t>(-1'000'000'000, 1'000'000'000);
  const int64_t start_ppm = *rc::gen::inRange<int64_t>(-200'000, 200'000);
  const auto faults = *rc::gen::container<std::vector<ClockFault>>(rc::gen::build<ClockFault>(
      rc::gen::set(&ClockFault::gap_ns, rc::gen::inRange<int64_t>(0, 3'000'000'000)),
      rc::gen::set(&ClockFault::kind, rc::gen::inRange(0, 3)),
      rc::gen::set(&ClockFault::value, rc::gen::inRange<int64_t>(-200'000, 200'000))));

  ProcessClock clock(ProcessClock::Options{.wall_at_start = Instant::from_ns(start_offset),
                                           .rate = Rate::ppm(start_ppm)});
  const Rate start_rate = Rate::ppm(start_ppm);
  ReferenceClock reference{start_offset, {{0, start_rate.numerator, start_rate.denominator}}, {}};
  Rate oscillator = start_rate;
  Rate slew = Rate::one();
  int64_t now = 0;
  for (const ClockFault& fault : faults) {
    now += fault.gap_ns;
    const Instant at = Instant::from_ns(now);
    if (fault.kind == 1) {
      clock.step_wall(at, Duration::from_ns(fault.value * 1000));
      reference.steps.emplace_back(now, fault.value * 1000);
      continue;
    }
    if (fault.kind == 0) {
      oscillator = Rate::ppm(fault.value);
      clock.set_rate(at, oscillator);
    } else {
      slew = Rate::ppm(fault.value / 100);
      clock.set_slew(at, slew);
    }
    const Rate effective = oscillator.times(slew);
    reference.rate_changes.emplace_back(now, effective.numerator, effective.denominator);
  }
  const auto queries =
      *rc::gen::container<std::vector<int64_t>>(rc::gen::inRange<int64_t>(0, now + 5'000'000'000));
  std::vector<int64_t> sorted = queries;
  std::sort(sorted.begin(), sorted.end());
  Instant previous = Instant::from_ns(INT64_MIN);
  for (int64_t t : sorted) {
    const Instant monotonic = clock.monotonic_at(Instant::from_ns(t));
    RC_ASSERT(monotonic >= previous);
    previous = monotonic;
    RC_ASSERT(monotonic.ns() == reference.monotonic(t));
    RC_ASSERT(clock.wall_at(Instant::from_ns(t)).ns() == reference.wall(t));
  }
  for (int64_t t : queries) {
    const ClockKind kind = (t & 1) ? ClockKind::wall : ClockKind::monotonic;
    const Instant from = Instant::from_ns(t / 2);
    const Instant target = clock.read(kind, Instant::from_ns(t));
    const Instant reached = clock.first_true_time_reaching(kind, target, from);
    RC_ASSERT(clock.read(kind, reached) >= target);
    RC_ASSERT(reached == from || clock.read(kind, reached - Duration::from_ns(1)) < target);
  }
}

// ---------------------------------------------------------------------------------------------
// FIFO per link: under any delay distribution, partitions and held messages, what one process
// sends to another is delivered in the order it was sent (some may be dropped, none reordered).

class Sink : public Process {
 public:
  Sink(Simulator& simulator, ProcessId id, std::string name) : Process(simulator, id, name) {}
  std::map<ProcessId, std::vector<int64_t>> received;  // per sender, in delivery order

 protected:
  void on_message(Message& message) override {
    received[message.from].push_back(std::stoll(message.command().at(1)));
  }
  void on_timer(uint64_t) override {}
};

RC_GTEST_PROP(KernelProperties, DeliveryIsFifoPerLink, ()) {
  Simulator simulator(*rc::gen::arbitrary<uint64_t>());
  const int senders = *rc::gen::inRange(1, 4);
  const int sinks = *rc::gen::inRange(1, 3);
  std::vector<Sink*> sink_processes;
  for (int i = 0; i < sinks; ++i) {
    sink_processes.push_back(&simulator.add_process<Sink>("sink" + std::to_string(i)));
  }
  std::vector<ProcessId> sender_ids;
  for (int i = 0; i < senders; ++i) {
    sender_ids.push_back(simulator.add_process<Sink>("sender" + std::to_string(i)).id());
  }
  const int delay_kind = *rc::gen::inRange(0, 3);
  const int64_t low = *rc::gen::inRange<int64_t>(0, 5'000'000);
  const int64_t high = low + *rc::gen::inRange<int64_t>(0, 50'000'000);
  simulator.network().set_default_delay(
      delay_kind == 0   ? DelaySpec::fixed(Duration::from_ns(low))
      : delay_kind == 1 ? DelaySpec::uniform(Duration::from_ns(low), Duration::from_ns(high))
                        : DelaySpec::pareto(Duration::from_ns(low), Duration::from_ns(high), 1, 2));
  const int partitions = *rc::gen::inRange(0, 4);
  for (int i = 0; i < partitions; ++i) {
    const int64_t start = *rc::gen::inRange<int64_t>(0, 100'000'000);
    simulator.network().add_partition(
        {.side_a = {sender_ids[*rc::gen::inRange<std::size_t>(0, sender_ids.size())]},
         .side_b = {sink_processes[*rc::gen::inRange<std::size_t>(0, sink_processes.size())]->id()},
         .one_way = *rc::gen::arbitrary<bool>(),
         .start = Instant::from_ns(start),
         .end = Instant::from_ns(start + *rc::gen::inRange<int64_t>(0, 50'000'000))});
  }
  if (*rc::gen::arbitrary<bool>()) {
    const int64_t from = *rc::gen::inRange<int64_t>(0, 100'000'000);
    simulator.network().add_hold({.from = sender_ids.front(),
                                  .to = std::nullopt,
                                  .command = "",
                                  .active_from = Instant::from_ns(from),
                                  .release_at = Instant::from_ns(from + 90'000'000)});
  }
  const auto sends = *rc::gen::container<std::vector<std::tuple<int64_t, int, int>>>(
      rc::gen::tuple(rc::gen::inRange<int64_t>(0, 150'000'000), rc::gen::inRange(0, senders),
                     rc::gen::inRange(0, sinks)));
  int64_t counter = 0;
  for (const auto& [at, sender, sink] : sends) {
    const ProcessId from = sender_ids[sender];
    const ProcessId to = sink_processes[sink]->id();
    simulator.schedule_action(Instant::from_ns(at), [&simulator, &counter, from, to] {
      simulator.process(from).send_message(to, make_command("M", std::to_string(counter++)), 0);
    });
  }
  simulator.run();
  for (Sink* sink : sink_processes) {
    for (const auto& [from, values] : sink->received) {
      RC_ASSERT(std::is_sorted(values.begin(), values.end()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A paused process runs no code while paused: neither coroutine code (sleeps, replies) nor
// message handlers. Whatever arrived meanwhile runs at resume.

class WatchfulServer : public ServerProcess {
 public:
  using ServerProcess::ServerProcess;
  int ran_while_paused = 0;

 protected:
  Reply handle(const Message&) override {
    if (status() != ProcessStatus::running) ++ran_while_paused;
    return Reply::ok();
  }
};

Task<void> watchful_client(TaskProcess& self, int rounds, int& ran_while_paused, int& steps) {
  for (int i = 0; i < rounds; ++i) {
    co_await self.sleep(Duration::from_ms(1 + i % 7));
    if (self.status() != ProcessStatus::running) ++ran_while_paused;
    Outcome outcome = co_await self.send(0, make_command("PING"), Duration::from_ms(5 + i % 11));
    if (self.status() != ProcessStatus::running) ++ran_while_paused;
    steps += outcome.replied() ? 1 : 0;
  }
}

RC_GTEST_PROP(KernelProperties, PausedProcessRunsNoCode, ()) {
  Simulator simulator(*rc::gen::arbitrary<uint64_t>());
  auto& server = simulator.add_process<WatchfulServer>("server");
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints({server.id()});
  simulator.network().set_default_delay(
      DelaySpec::uniform(Duration::from_us(100), Duration::from_ms(4)));
  const auto pauses = *rc::gen::container<std::vector<std::tuple<int64_t, int64_t, bool>>>(
      rc::gen::tuple(rc::gen::inRange<int64_t>(0, 300), rc::gen::inRange<int64_t>(0, 100),
                     rc::gen::arbitrary<bool>()));
  for (const auto& [start_ms, length_ms, pause_server] : pauses) {
    const ProcessId target = pause_server ? server.id() : client.id();
    simulator.schedule_action(Instant::from_ms(start_ms),
                              [&simulator, target] { simulator.pause(target); });
    simulator.schedule_action(Instant::from_ms(start_ms + length_ms),
                              [&simulator, target] { simulator.resume(target); });
  }
  int client_ran_while_paused = 0;
  int steps = 0;
  const int rounds = *rc::gen::inRange(1, 60);
  client.spawn(watchful_client(client, rounds, client_ran_while_paused, steps));
  simulator.run();
  RC_ASSERT(client_ran_while_paused == 0);
  RC_ASSERT(server.ran_while_paused == 0);
  RC_ASSERT(client.live_task_count() == 0u);  // and it did finish: nothing was lost
}

}  // namespace
}  // namespace redlock_sim
