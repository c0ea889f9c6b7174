// The port: everything lock code may ask of the world, and nothing else.
//
// Lock code (lock_impls/) is written against this interface only. The simulator implements it
// with simulated clocks, network and nodes (sim/), the real backend with real clocks, sockets and
// redis-server processes. Following TigerBeetle's `Time` and FoundationDB's `INetwork`, the code
// under test never reads a clock, sleeps or does I/O by any other route.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "lock_impls/port/reply.hpp"
#include "lock_impls/port/task.hpp"
#include "lock_impls/port/time.hpp"

namespace redlock_sim {

// Which Redis endpoint a request goes to, as numbered in the lock client's configuration.
using NodeId = uint32_t;

struct NodeRequest {
  NodeId node = 0;
  Command command;
  Duration timeout = Duration::from_ms(50);  // measured on the caller's monotonic clock
};

enum class FanOutMode : uint8_t {
  wait_for_all,      // resume once every request has a reply or has timed out
  return_at_quorum,  // resume as soon as `quorum` succeeded, or `quorum` can no longer succeed
  // Resume as soon as `quorum` succeeded; when it cannot, wait for every reply or timeout
  // (pottery's as_completed loops, which return early only on success).
  return_at_quorum_success,
};

// Which outcomes count toward a quorum. The default counts any non-error, non-nil reply.
using SuccessPredicate = bool (*)(const Outcome&);
bool default_success(const Outcome& outcome);

struct FanOutOptions {
  FanOutMode mode = FanOutMode::wait_for_all;
  uint32_t quorum = 0;
  SuccessPredicate success = &default_success;
};

// Whether a fan-out of `total` requests may resume, given how many are still out and how many
// succeeded or failed so far. Both ports (simulated and real) decide with this.
inline bool fan_out_satisfied(const FanOutOptions& options, uint32_t total, uint32_t outstanding,
                              uint32_t successes, uint32_t failures) {
  if (outstanding == 0) return true;
  if (options.mode == FanOutMode::wait_for_all) return false;
  if (successes >= options.quorum) return true;
  if (options.mode == FanOutMode::return_at_quorum_success) return false;
  return failures > total - std::min(total, options.quorum);
}

class Port {
 public:
  virtual ~Port() = default;

  // The process's own clocks. Wall: nanoseconds since the Unix epoch, may step. Monotonic:
  // nanoseconds since boot, never steps.
  virtual Instant wall_now() = 0;
  virtual Instant monotonic_now() = 0;
  virtual void random_bytes(std::span<uint8_t> out) = 0;

  uint64_t random_u64() {
    uint8_t bytes[8];
    random_bytes(bytes);
    uint64_t value = 0;
    for (uint8_t b : bytes)
      value = (value << 8) | b;
    return value;
  }

  class SleepAwaitable;
  class FanOutAwaitable;
  class BroadcastAwaitable;
  class SendAwaitable;

  // Sleeps for `duration` on the monotonic clock.
  SleepAwaitable sleep(Duration duration);
  // Sends every request at once; results come back in request order. A request whose timeout
  // passed is `unknown`: the server may still execute it later.
  FanOutAwaitable fan_out(std::vector<NodeRequest> requests, FanOutOptions options = {});
  // The same command to each of `nodes`, each request with `timeout`: a fan-out of one request
  // per node (results in `nodes` order), without a copy of the argv per node. `command` and
  // `nodes` are read when the requests start, so they must outlive the co_await.
  BroadcastAwaitable broadcast(const Command& command, std::span<const NodeId> nodes,
                               Duration timeout, FanOutOptions options = {});
  // The same with an argv the caller keeps, which the requests share without copying it (a
  // request sent again, as every attempt with one token is, is built once). It is const: it must
  // not change while any request holds it. `command` (the pointer) and `nodes` are read when the
  // requests start. (The simulator's requests hold it; a port whose requests cannot, such as the
  // real backend's, copies it per node as the other overload does.)
  BroadcastAwaitable broadcast(const std::shared_ptr<const Command>& command,
                               std::span<const NodeId> nodes, Duration timeout,
                               FanOutOptions options = {});
  // One request: a fan-out of one.
  SendAwaitable send(NodeId node, Command command, Duration timeout);

 protected:
  // Implementations start the operation and later resume `waiter` exactly once (never from inside
  // the start call). Results are in `*results` when it resumes (an implementation may write each
  // as it arrives, or all just before resuming).
  virtual void start_sleep(Duration duration, std::coroutine_handle<> waiter) = 0;
  virtual void start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& options,
                             std::vector<Outcome>* results, std::coroutine_handle<> waiter) = 0;
  // By default a fan-out of copies; an implementation that can send one argv to many nodes
  // overrides it.
  virtual void start_broadcast(const Command& command, std::span<const NodeId> nodes,
                               Duration timeout, const FanOutOptions& options,
                               std::vector<Outcome>* results, std::coroutine_handle<> waiter);
  // By default `start_broadcast` of `*command` (a copy per node); an implementation whose
  // requests can hold the shared argv itself overrides it.
  virtual void start_shared_broadcast(const std::shared_ptr<const Command>& command,
                                      std::span<const NodeId> nodes, Duration timeout,
                                      const FanOutOptions& options, std::vector<Outcome>* results,
                                      std::coroutine_handle<> waiter) {
    start_broadcast(*command, nodes, timeout, options, results, waiter);
  }
  // One request, its outcome written to `*result` (which starts `unknown`) by the time `waiter`
  // resumes: a fan-out of one without the vectors.
  virtual void start_send(NodeRequest&& request, Outcome* result,
                          std::coroutine_handle<> waiter) = 0;
};

class Port::SleepAwaitable {
 public:
  SleepAwaitable(Port* port, Duration duration) : port_(port), duration_(duration) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiter) { port_->start_sleep(duration_, waiter); }
  void await_resume() const noexcept {}

 private:
  Port* port_;
  Duration duration_;
};

class Port::FanOutAwaitable {
 public:
  FanOutAwaitable(Port* port, std::vector<NodeRequest> requests, FanOutOptions options)
      : port_(port), requests_(std::move(requests)), options_(options) {}
  bool await_ready() const noexcept { return requests_.empty(); }
  void await_suspend(std::coroutine_handle<> waiter) {
    port_->start_fan_out(std::move(requests_), options_, &results_, waiter);
  }
  std::vector<Outcome> await_resume() { return std::move(results_); }

 private:
  Port* port_;
  std::vector<NodeRequest> requests_;
  FanOutOptions options_;
  std::vector<Outcome> results_;
};

class Port::BroadcastAwaitable {
 public:
  BroadcastAwaitable(Port* port, const Command& command, std::span<const NodeId> nodes,
                     Duration timeout, FanOutOptions options)
      : port_(port), command_(&command), nodes_(nodes), timeout_(timeout), options_(options) {}
  BroadcastAwaitable(Port* port, const std::shared_ptr<const Command>& command,
                     std::span<const NodeId> nodes, Duration timeout, FanOutOptions options)
      : port_(port), shared_(&command), nodes_(nodes), timeout_(timeout), options_(options) {}
  bool await_ready() const noexcept { return nodes_.empty(); }
  void await_suspend(std::coroutine_handle<> waiter) {
    if (shared_ != nullptr) {
      port_->start_shared_broadcast(*shared_, nodes_, timeout_, options_, &results_, waiter);
    } else {
      port_->start_broadcast(*command_, nodes_, timeout_, options_, &results_, waiter);
    }
  }
  std::vector<Outcome> await_resume() { return std::move(results_); }

 private:
  Port* port_;
  const Command* command_ = nullptr;
  const std::shared_ptr<const Command>* shared_ = nullptr;  // set for a shared argv
  std::span<const NodeId> nodes_;
  Duration timeout_;
  FanOutOptions options_;
  std::vector<Outcome> results_;
};

class Port::SendAwaitable {
 public:
  SendAwaitable(Port* port, NodeRequest request) : port_(port), request_(std::move(request)) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiter) {
    port_->start_send(std::move(request_), &result_, waiter);
  }
  Outcome await_resume() { return std::move(result_); }

 private:
  Port* port_;
  NodeRequest request_;
  Outcome result_;
};

inline Port::SleepAwaitable Port::sleep(Duration duration) {
  return {this, duration};
}
inline Port::FanOutAwaitable Port::fan_out(std::vector<NodeRequest> requests,
                                           FanOutOptions options) {
  return {this, std::move(requests), options};
}
inline Port::BroadcastAwaitable Port::broadcast(const Command& command,
                                                std::span<const NodeId> nodes, Duration timeout,
                                                FanOutOptions options) {
  return {this, command, nodes, timeout, options};
}
inline Port::BroadcastAwaitable Port::broadcast(const std::shared_ptr<const Command>& command,
                                                std::span<const NodeId> nodes, Duration timeout,
                                                FanOutOptions options) {
  return {this, command, nodes, timeout, options};
}
inline Port::SendAwaitable Port::send(NodeId node, Command command, Duration timeout) {
  return {this, NodeRequest{.node = node, .command = std::move(command), .timeout = timeout}};
}

}  // namespace redlock_sim
