// A small world for the cluster unit tests: a Simulator, a Cluster built from node specs, and a
// client process that sends commands at given true times and records every outcome and every
// one-way message (+switch-master) it receives.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/kernel/task_process.hpp"
#include "sim/replication/cluster.hpp"

namespace redlock_sim::cluster_test {

constexpr int64_t epoch_ms = default_epoch_ms;

class RecordingClient : public TaskProcess {
 public:
  using TaskProcess::TaskProcess;
  std::vector<Command> unsolicited;

 protected:
  void on_unsolicited(Message& message) override { unsolicited.push_back(message.command()); }
};

struct Answer {
  Outcome outcome;
  Instant at;  // true time the outcome arrived
};

inline NodeSpec master_spec(std::string name, PersistenceSpec persistence = {}) {
  NodeSpec spec;
  spec.name = std::move(name);
  spec.persistence = persistence;
  return spec;
}

inline NodeSpec replica_spec(std::string name, std::string of, int64_t priority = 100) {
  NodeSpec spec;
  spec.name = std::move(name);
  spec.role = "replica";
  spec.replica_of = std::move(of);
  spec.replica_priority = priority;
  return spec;
}

inline PersistenceSpec aof(AppendFsync fsync) {
  return PersistenceSpec{.mode = PersistenceMode::aof, .appendfsync = fsync};
}

// A cluster event as the runner receives it, with when and whom.
struct StoryLine {
  Instant at;
  ProcessId process = 0;
  ClusterEvent event;
};

struct ClusterWorld {
  Simulator simulator;
  Cluster cluster;
  std::vector<std::string> names;
  std::vector<StoryLine> story;
  std::vector<RecordingClient*> clients;

  explicit ClusterWorld(const std::vector<NodeSpec>& nodes, const FailoverSpec& failover = {},
                        std::vector<std::string> client_names = {"client"})
      : simulator(7), cluster(simulator, nodes, failover) {
    for (const NodeSpec& node : nodes)
      names.push_back(node.name);
    for (const std::string& name : failover.sentinels)
      names.push_back(name);
    std::vector<ProcessId> endpoints;
    for (const std::string& name : names)
      endpoints.push_back(cluster.id_of(name));
    for (const std::string& name : client_names) {
      auto& client = simulator.add_process<RecordingClient>(name);
      client.set_endpoints(endpoints);
      cluster.subscribe_client(client.id());
      clients.push_back(&client);
    }
    cluster.set_observer([this](ProcessId process, const ClusterEvent& event) {
      story.push_back({simulator.now(), process, event});
    });
  }

  ProcessId id(const std::string& name) const { return cluster.id_of(name); }
  ClusterNode& node(const std::string& name) { return cluster.node(id(name)); }
  SentinelProcess& sentinel(const std::string& name) { return cluster.sentinel(id(name)); }
  RecordingClient& client(std::size_t index = 0) { return *clients.at(index); }

  NodeId endpoint(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return static_cast<NodeId>(i);
    }
    ADD_FAILURE() << "no endpoint " << name;
    return 0;
  }

  void at(int64_t at_ms, std::function<void()> action) {
    simulator.schedule_action(Instant::from_ms(at_ms), std::move(action));
  }

  // Sends `commands` one after the other from client `client_index`, starting at `at_ms`.
  std::shared_ptr<std::vector<Answer>> send_at(int64_t at_ms, const std::string& node,
                                               std::vector<Command> commands,
                                               std::size_t client_index = 0,
                                               int64_t timeout_ms = 1000) {
    auto answers = std::make_shared<std::vector<Answer>>();
    RecordingClient& sender = client(client_index);
    const NodeId target = endpoint(node);
    at(at_ms, [this, &sender, target, commands, answers, timeout_ms] {
      sender.spawn(run_commands(sender, target, commands, answers, timeout_ms));
    });
    return answers;
  }
  std::shared_ptr<std::vector<Answer>> send_at(int64_t at_ms, const std::string& node,
                                               Command command) {
    return send_at(at_ms, node, std::vector<Command>{std::move(command)});
  }

  Task<void> run_commands(TaskProcess& sender, NodeId target, std::vector<Command> commands,
                          std::shared_ptr<std::vector<Answer>> answers, int64_t timeout_ms) {
    for (Command& command : commands) {
      Outcome outcome =
          co_await sender.send(target, std::move(command), Duration::from_ms(timeout_ms));
      answers->push_back(Answer{std::move(outcome), simulator.now()});
    }
  }

  void crash_at(int64_t at_ms, const std::string& name, StopKind how) {
    at(at_ms, [this, name, how] { cluster.crash(id(name), how); });
  }
  void restart_at(int64_t at_ms, const std::string& name) {
    at(at_ms, [this, name] { simulator.restart(id(name)); });
  }
  void run_until(int64_t ms) { simulator.run(Instant::from_ms(ms)); }

  // When `kind` was first told by `process` (any process when empty), if ever.
  std::optional<Instant> first(ClusterEventKind kind, const std::string& process = "") const {
    for (const StoryLine& line : story) {
      if (line.event.kind == kind && (process.empty() || line.process == id(process)))
        return line.at;
    }
    return std::nullopt;
  }
  const StoryLine* first_line(ClusterEventKind kind, const std::string& process = "") const {
    for (const StoryLine& line : story) {
      if (line.event.kind == kind && (process.empty() || line.process == id(process))) return &line;
    }
    return nullptr;
  }
};

inline Reply reply_of(const std::shared_ptr<std::vector<Answer>>& answers, std::size_t i = 0) {
  if (answers->size() <= i || !answers->at(i).outcome.replied()) return Reply::error("(no reply)");
  return answers->at(i).outcome.reply;
}

}  // namespace redlock_sim::cluster_test
