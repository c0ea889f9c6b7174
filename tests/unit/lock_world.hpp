// A small simulated world for the lock-client tests: N simulated Redis 7.0 nodes (sim/redis's
// RedisNode, port nodes 0..N-1), the external counter service (port node N), and client
// processes that run lock code.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lock_impls/lock.hpp"
#include "lock_impls/registry.hpp"
#include "sim/kernel/task_process.hpp"
#include "sim/redis/node.hpp"
#include "sim/resource/resource.hpp"

namespace redlock_sim::testing {

// A RedisNode that logs the commands it serves and answers WAIT with a scripted number of
// replica acknowledgements (replication is not part of these tests), plus test accessors.
class TestRedisNode : public RedisNode {
 public:
  TestRedisNode(Simulator& simulator, ProcessId id, std::string name)
      : RedisNode(simulator, id, std::move(name)) {}

  int64_t wait_acks = 0;
  uint64_t commands_seen = 0;
  std::vector<Command> log;

  bool has(const std::string& key) { return execute(make_command("EXISTS", key)).integer == 1; }
  std::string get(const std::string& key) { return execute(make_command("GET", key)).text; }
  int64_t pttl(const std::string& key) { return execute(make_command("PTTL", key)).integer; }
  void flush() {
    execute(make_command("FLUSHALL"));
    execute(make_command("SCRIPT", "FLUSH"));
  }
  void set_raw(const std::string& key, const std::string& value, int64_t ttl_ms) {
    if (ttl_ms < 0) {
      execute(make_command("SET", key, value));
    } else {
      execute(make_command("SET", key, value, "PX", std::to_string(ttl_ms)));
    }
  }

 protected:
  Reply handle(const Message& request) override {
    ++commands_seen;
    log.push_back(request.command());
    if (!request.command().empty() &&
        (request.command()[0] == "WAIT" || request.command()[0] == "wait")) {
      return Reply::integer_reply(wait_acks);
    }
    return RedisNode::handle(request);
  }
};
using FakeRedis = TestRedisNode;

struct LockWorld {
  Simulator simulator;
  std::vector<FakeRedis*> nodes;
  CounterService* counter = nullptr;
  std::vector<TaskProcess*> clients;
  std::vector<std::string> notes;  // "<true ms> <client>: <note>"

  explicit LockWorld(uint64_t seed, uint32_t node_count = 5, uint32_t client_count = 2)
      : simulator(seed) {
    std::vector<ProcessId> endpoints;
    for (uint32_t i = 0; i < node_count; ++i) {
      nodes.push_back(&simulator.add_process<FakeRedis>("n" + std::to_string(i)));
      endpoints.push_back(nodes.back()->id());
    }
    counter = &simulator.add_process<CounterService>("counter");
    endpoints.push_back(counter->id());
    for (uint32_t i = 0; i < client_count; ++i) {
      clients.push_back(&simulator.add_process<TaskProcess>("c" + std::to_string(i)));
      clients.back()->set_endpoints(endpoints);
    }
  }

  TaskProcess& client(std::size_t i = 0) { return *clients.at(i); }
  ProcessId node_id(std::size_t i) const { return nodes.at(i)->id(); }
  int64_t now_ms() const { return simulator.now().ms_floor(); }

  // Records the client's notes with the true time, for stories and assertions.
  void attach_notes(LockClient& lock, const std::string& who) {
    lock.set_note_sink([this, who](std::string text) {
      notes.push_back(std::to_string(now_ms()) + " " + who + ": " + text);
    });
  }

  // Cuts the client off from the listed nodes (both ways) from now on.
  void partition(std::size_t client_index, const std::vector<std::size_t>& node_indexes) {
    PartitionRule rule;
    rule.side_a = {clients.at(client_index)->id()};
    for (std::size_t i : node_indexes)
      rule.side_b.push_back(node_id(i));
    rule.start = simulator.now();
    simulator.network().add_partition(rule);
  }

  // Runs `body` as a root task of client `i`, then the simulation until idle or `until`.
  void run(std::size_t i, Task<void> body, Instant until = Instant::max()) {
    client(i).spawn(std::move(body));
    simulator.run(until);
  }

  // Runs client i's acquire of `key` until `until`: its grant, and the true time acquire
  // returned at (ms floor; -1 when it had not returned by then).
  struct Acquired {
    Grant grant;
    Instant at = Instant::max();
    int64_t at_ms = -1;
  };
  Acquired acquire(std::size_t i, LockClient& lock, const std::string& key, Instant until) {
    Acquired out;
    run(
        i,
        [&]() -> Task<void> {
          out.grant = co_await lock.acquire(key);
          out.at = simulator.now();
          out.at_ms = now_ms();
        }(),
        until);
    return out;
  }

  // Counts nodes holding `key` with `value` now.
  uint32_t nodes_holding(const std::string& key, const std::string& value) {
    uint32_t n = 0;
    for (FakeRedis* node : nodes)
      n += node->has(key) && node->get(key) == value ? 1 : 0;
    return n;
  }
};

inline Instant at_ms(int64_t ms) {
  return Instant::from_ms(ms);
}

// A registry lock on port nodes 0..node_count-1; a construction error fails the test that asked
// for it.
inline std::unique_ptr<LockClient> make(const std::string& name, Port& port, uint32_t node_count,
                                        const LockParams& params = {}) {
  MadeLock made = make_lock(name, port, node_count, params);
  // A test that cannot build its lock fails here with the registry's reason (gtest reports the
  // exception), instead of crashing later on a null lock.
  if (!made.client) throw std::runtime_error("cannot make lock " + name + ": " + made.error);
  return std::move(made.client);
}

// The same on five nodes, LockWorld's default.
inline std::unique_ptr<LockClient> make(const std::string& name, Port& port,
                                        const LockParams& params = {}) {
  return make(name, port, 5, params);
}

}  // namespace redlock_sim::testing
