// The real backend of the port: the same lock coroutines, run against real redis-server
// processes over hiredis, with real clocks and sleeps.
//
// Shape: one connection per node, each owned by its own thread that executes requests in order
// (like one TCP connection per node in the simulator, FIFO); the coroutines themselves run on
// the thread that calls run(), which is the only thread that resumes them. A fan-out hands every
// request to its node's thread at once, so requests to different nodes really run in parallel.
// A request's timeout is kept by the driver on the monotonic clock: when it passes, the request
// reads `unknown` and the node thread still sends (or finishes) it, as a real client's late
// request would still execute. A node that cannot be connected to gives `refused`.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "lock_impls/port/port.hpp"

namespace redlock_sim::real {

struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
};

struct RealPortOptions {
  Duration connect_timeout = Duration::from_ms(500);
  // The socket timeout of a node thread's connection; a request outliving it breaks the
  // connection (reconnected for the next request). Per-request timeouts are separate and shorter.
  Duration socket_timeout = Duration::from_s(30);
  // Where random bytes come from (retry jitter, lock values); unset: a random_device-seeded
  // generator. Real-process mode passes the simulator's own stream for the client, so a real
  // client draws the same jitter as its simulated twin.
  std::function<void(std::span<uint8_t>)> random_source;
};

class RealPort : public Port {
 public:
  explicit RealPort(std::vector<Endpoint> endpoints, RealPortOptions options = {});
  ~RealPort() override;
  RealPort(const RealPort&) = delete;
  RealPort& operator=(const RealPort&) = delete;

  Instant wall_now() override;
  Instant monotonic_now() override;
  void random_bytes(std::span<uint8_t> out) override;

  // Sends the node's later requests to `endpoint` (a failover moved the master); requests
  // already handed to its connection go first, in order. Callable from any thread.
  void redirect(std::size_t node, Endpoint endpoint);

  // Adds a root coroutine (a watchdog, a second client) that runs alongside the next run().
  void spawn(Task<void> task);

  // Runs `task` (and the spawned ones) on this thread until `task` finishes; returns its value.
  // Spawned tasks still suspended then are kept for the next run() (or destroyed with the port).
  template <typename T>
  T run(Task<T> task) {
    std::optional<T> result;
    auto wrapper = [](Task<T> inner, std::optional<T>& out) -> Task<void> {
      out.emplace(co_await std::move(inner));
    };
    Task<void> root = wrapper(std::move(task), result);
    drive(root);
    return std::move(*result);
  }
  void run(Task<void> task) { drive(task); }

  // Lines from outside the coroutines (a reader thread of standard input, say): post_input may
  // be called from any thread; nullopt means the input ended. A coroutine awaits the next one
  // with `co_await port.next_input()`; only one coroutine may wait at a time.
  void post_input(std::optional<std::string> line);
  class InputAwaitable {
   public:
    explicit InputAwaitable(RealPort* port) : port_(port) {}
    bool await_ready() const noexcept { return !port_->ready_inputs_.empty(); }
    void await_suspend(std::coroutine_handle<> waiter) { port_->input_waiter_ = waiter; }
    std::optional<std::string> await_resume() {
      std::optional<std::string> line = std::move(port_->ready_inputs_.front());
      port_->ready_inputs_.pop_front();
      return line;
    }

   private:
    RealPort* port_;
  };
  InputAwaitable next_input() { return InputAwaitable(this); }

 protected:
  void start_sleep(Duration duration, std::coroutine_handle<> waiter) override;
  void start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& options,
                     std::vector<Outcome>* results, std::coroutine_handle<> waiter) override;
  void start_send(NodeRequest&& request, Outcome* result, std::coroutine_handle<> waiter) override;

 private:
  class NodeThread;
  struct Completion {
    uint64_t request = 0;
    Outcome outcome;
  };
  struct Pending {
    uint64_t group = 0;
    uint32_t index = 0;
  };
  struct Group {
    std::vector<Outcome> results;
    std::vector<Outcome>* destination = nullptr;
    Outcome* single = nullptr;  // a send's one result, instead of `destination`
    std::coroutine_handle<> waiter;
    FanOutOptions options;
    uint32_t outstanding = 0;
    uint32_t successes = 0;
    uint32_t failures = 0;
    bool resumed = false;
  };
  struct Timer {
    std::coroutine_handle<> sleeper;  // a sleep, or
    uint64_t request = 0;             // a request timeout
  };

  void drive(Task<void>& root);
  void deliver_inputs(std::deque<std::optional<std::string>>& arrived);
  void collect_completions();
  // Opens a group for `requests` (results written to `destination`, or to `single` for a send)
  // and submits them.
  void start_group(std::span<NodeRequest> requests, const FanOutOptions& options,
                   std::vector<Outcome>* destination, Outcome* single,
                   std::coroutine_handle<> waiter);
  void post(Completion completion);  // from node threads
  void complete(uint64_t request, Outcome outcome);
  bool satisfied(const Group& group) const;
  void fire_due_timers();
  void sweep_spawned();

  std::vector<Endpoint> endpoints_;
  RealPortOptions options_;
  std::vector<std::unique_ptr<NodeThread>> nodes_;
  std::mt19937_64 random_;

  // Driver-thread state.
  std::multimap<int64_t, Timer> timers_;  // monotonic ns -> timer
  std::map<uint64_t, Pending> pending_;
  std::map<uint64_t, Group> groups_;
  uint64_t next_request_ = 1;
  uint64_t next_group_ = 1;
  std::vector<Task<void>> spawned_;
  std::deque<std::optional<std::string>> ready_inputs_;
  std::coroutine_handle<> input_waiter_;

  // Completions posted by node threads.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Completion> completions_;
  std::deque<std::optional<std::string>> inputs_;
};

}  // namespace redlock_sim::real
