// A process that runs coroutine code written against the port: the simulator's implementation
// of lock_impls/port.
//
// Requests go over the simulated network to server processes; each has a timeout on this
// process's monotonic clock. A timed-out request reports `unknown` but is not cancelled: the
// server may still execute it. While the process is paused nothing here runs; replies and timers
// wait and are handled in arrival order at resume. A crash destroys every coroutine frame.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "lock_impls/port/port.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim {

class TaskProcess : public Process, public Port {
 public:
  TaskProcess(Simulator& simulator, ProcessId id, std::string name);
  ~TaskProcess() override;

  // NodeId i of the port addresses process endpoints[i].
  void set_endpoints(std::vector<ProcessId> endpoints) { endpoints_ = std::move(endpoints); }
  const std::vector<ProcessId>& endpoints() const { return endpoints_; }

  // Starts a root coroutine now; the process owns it until it finishes or the process crashes.
  void spawn(Task<void> task);
  std::size_t live_task_count() const;

  Instant wall_now() override { return Process::wall_now(); }
  Instant monotonic_now() override { return Process::monotonic_now(); }
  void random_bytes(std::span<uint8_t> out) override;

 protected:
  void start_sleep(Duration duration, std::coroutine_handle<> waiter) override;
  void start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& options,
                     std::vector<Outcome>* results, std::coroutine_handle<> waiter) override;
  void start_broadcast(const Command& command, std::span<const NodeId> nodes, Duration timeout,
                       const FanOutOptions& options, std::vector<Outcome>* results,
                       std::coroutine_handle<> waiter) override;
  void start_shared_broadcast(const std::shared_ptr<const Command>& command,
                              std::span<const NodeId> nodes, Duration timeout,
                              const FanOutOptions& options, std::vector<Outcome>* results,
                              std::coroutine_handle<> waiter) override;
  void start_send(NodeRequest&& request, Outcome* result, std::coroutine_handle<> waiter) override;
  void on_message(Message& message) override;
  void on_timer(uint64_t tag) override;
  void on_crash() override;
  // A one-way message (no pending request matches it); subclasses may handle these.
  virtual void on_unsolicited(Message& /*message*/) {}

 private:
  struct PendingRequest {
    uint32_t generation = 0;
    uint32_t group = 0;
    uint32_t index = 0;
    TimerId timer = 0;
    bool active = false;
  };
  struct Group {
    uint32_t generation = 0;
    // The waiter's results (`total` of them, each `unknown` until its request completes),
    // written in place as requests complete; null once the waiter resumed: later outcomes are
    // read by no one.
    Outcome* results = nullptr;
    std::coroutine_handle<> waiter;
    FanOutOptions options;
    uint32_t total = 0;
    uint32_t outstanding = 0;
    uint32_t successes = 0;
    uint32_t failures = 0;
    bool resumed = false;
    bool active = false;
  };
  // A fan-out's group, for `count` requests whose outcomes go to `results[0..count)` (each
  // `unknown` already), and one request of it (its timer started, to end at `local_deadline` on
  // the monotonic clock, then its message sent: the order every kind of fan-out keeps).
  uint32_t open_group(std::size_t count, const FanOutOptions& options, Outcome* results,
                      std::coroutine_handle<> waiter);
  template <typename CommandRef>
  void start_request(uint32_t group_slot, uint32_t index, NodeId node, Instant local_deadline,
                     CommandRef&& command);
  // A request's end: its reply (moved from), or null for a timeout (the outcome stays
  // `unknown`).
  void complete(uint32_t request_slot, Reply* reply);
  // `command` copied into a kept argv no message holds any more (its buffers reused), else a new
  // one: the argv a broadcast's messages share. At most `share_looks_max` kept argvs are looked
  // at, from the one after the last looked at: argvs come free in about the order they were sent,
  // so that one usually is; when many are held (a paused node keeps every request it is sent), a
  // new one is added after a few looks instead of a look at every kept one.
  std::shared_ptr<const Command> share(const Command& command);
  static constexpr std::size_t share_looks_max = 4;
  bool satisfied(const Group& group) const;
  void sweep_finished_tasks();

  std::vector<ProcessId> endpoints_;
  std::vector<Task<void>> tasks_;
  uint32_t finished_tasks_ = 0;  // roots that finished since the last sweep
  std::vector<PendingRequest> requests_;
  std::vector<uint32_t> free_requests_;
  std::vector<Group> groups_;
  std::vector<uint32_t> free_groups_;
  // Broadcasts' argvs, each shared by the messages of one broadcast while they live (a message
  // held by a node keeps its argv), then reused.
  std::vector<std::shared_ptr<Command>> shared_commands_;
  std::size_t next_shared_ = 0;  // where share() looks first
  Rng random_;
};

}  // namespace redlock_sim
