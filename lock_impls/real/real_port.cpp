#include "lock_impls/real/real_port.hpp"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>

namespace redlock_sim::real {

namespace {

Reply convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      return Reply::status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER:
      return Reply::integer_reply(r->integer);
    case REDIS_REPLY_STRING:
      return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      ReplyList items;
      for (size_t i = 0; i < r->elements; ++i)
        items.push_back(convert(r->element[i]));
      return Reply::array(std::move(items));
    }
    default:
      return Reply::nil_reply();
  }
}

timeval to_timeval(Duration d) {
  timeval tv{};
  tv.tv_sec = d.ns() / 1'000'000'000;
  tv.tv_usec = (d.ns() % 1'000'000'000) / 1'000;
  return tv;
}

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// One connection to one node, driven by its own thread: requests run in the order given.
class RealPort::NodeThread {
 public:
  NodeThread(RealPort& owner, Endpoint endpoint, RealPortOptions options)
      : owner_(owner),
        endpoint_(std::move(endpoint)),
        options_(options),
        thread_([this] { loop(); }) {}
  ~NodeThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
    if (context_ != nullptr) redisFree(context_);
  }
  void submit(uint64_t request, Command command, int64_t deadline_ns) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back({request, std::move(command), deadline_ns, std::nullopt});
    }
    wake_.notify_one();
  }
  void redirect(Endpoint endpoint) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back({0, {}, 0, std::move(endpoint)});
    }
    wake_.notify_one();
  }

 private:
  struct Job {
    uint64_t request;
    Command command;
    int64_t deadline_ns;               // monotonic: when the caller stops waiting for the reply
    std::optional<Endpoint> redirect;  // not a request: connect there from now on
  };

  void loop() {
    while (true) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      if (job.redirect) {
        endpoint_ = std::move(*job.redirect);
        if (context_ != nullptr) redisFree(context_);
        context_ = nullptr;
        continue;
      }
      owner_.post(Completion{job.request, execute(job.command, job.deadline_ns)});
    }
  }

  bool connect() {
    if (context_ != nullptr && context_->err == 0) return true;
    if (context_ != nullptr) redisFree(context_);
    context_ = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port,
                                       to_timeval(options_.connect_timeout));
    if (context_ == nullptr || context_->err != 0) return false;
    redisSetTimeout(context_, to_timeval(options_.socket_timeout));
    return true;
  }

  Outcome execute(const Command& command, int64_t deadline_ns) {
    if (!connect()) return Outcome{.kind = OutcomeKind::refused, .reply = {}};
    // The connection waits for this reply no longer than its caller does (at least 1 ms): a
    // request whose reply never comes (dropped by a partition) then frees the connection for
    // the next one instead of blocking it for the whole socket timeout, as the simulator's
    // connections never block on a lost message. A late reply is never read as the next one's:
    // the connection is closed on a timeout and the next request opens a new one.
    const int64_t remaining_ns =
        std::clamp<int64_t>(deadline_ns - steady_ns(), 1'000'000, options_.socket_timeout.ns());
    redisSetTimeout(context_, to_timeval(Duration::from_ns(remaining_ns)));
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (reply == nullptr) {
      // The command may have reached the server: its fate is unknown. Reconnect next time.
      redisFree(context_);
      context_ = nullptr;
      return Outcome{.kind = OutcomeKind::unknown, .reply = {}};
    }
    Outcome outcome{.kind = OutcomeKind::ok, .reply = convert(reply)};
    freeReplyObject(reply);
    return outcome;
  }

  RealPort& owner_;
  Endpoint endpoint_;
  RealPortOptions options_;
  redisContext* context_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

RealPort::RealPort(std::vector<Endpoint> endpoints, RealPortOptions options)
    : endpoints_(std::move(endpoints)), options_(options), random_(std::random_device{}()) {
  for (const Endpoint& endpoint : endpoints_) {
    nodes_.push_back(std::make_unique<NodeThread>(*this, endpoint, options_));
  }
}

RealPort::~RealPort() {
  spawned_.clear();  // destroy suspended coroutines before the state they point into
  nodes_.clear();    // joins the node threads
}

Instant RealPort::wall_now() {
  return Instant::from_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
}

Instant RealPort::monotonic_now() {
  return Instant::from_ns(steady_ns());
}

void RealPort::random_bytes(std::span<uint8_t> out) {
  if (options_.random_source) {
    options_.random_source(out);
    return;
  }
  for (uint8_t& b : out)
    b = static_cast<uint8_t>(random_());
}

void RealPort::redirect(std::size_t node, Endpoint endpoint) {
  if (node < nodes_.size()) nodes_[node]->redirect(std::move(endpoint));
}

void RealPort::spawn(Task<void> task) {
  spawned_.push_back(std::move(task));
  spawned_.back().start();
  sweep_spawned();
}

void RealPort::sweep_spawned() {
  std::erase_if(spawned_, [](const Task<void>& t) {
    t.rethrow_if_failed();
    return t.done();
  });
}

void RealPort::start_sleep(Duration duration, std::coroutine_handle<> waiter) {
  timers_.emplace(steady_ns() + duration.ns(), Timer{.sleeper = waiter, .request = 0});
}

void RealPort::start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& options,
                             std::vector<Outcome>* results, std::coroutine_handle<> waiter) {
  start_group(requests, options, results, nullptr, waiter);
}

void RealPort::start_send(NodeRequest&& request, Outcome* result, std::coroutine_handle<> waiter) {
  start_group(std::span<NodeRequest>(&request, 1), FanOutOptions{}, nullptr, result, waiter);
}

void RealPort::start_group(std::span<NodeRequest> requests, const FanOutOptions& options,
                           std::vector<Outcome>* destination, Outcome* single,
                           std::coroutine_handle<> waiter) {
  const uint64_t group_id = next_group_++;
  Group& group = groups_[group_id];
  group.results.assign(requests.size(), Outcome{});
  group.destination = destination;
  group.single = single;
  group.waiter = waiter;
  group.options = options;
  group.outstanding = static_cast<uint32_t>(requests.size());
  for (uint32_t index = 0; index < requests.size(); ++index) {
    NodeRequest& request = requests[index];
    const uint64_t id = next_request_++;
    pending_[id] = Pending{.group = group_id, .index = index};
    timers_.emplace(steady_ns() + request.timeout.ns(),
                    Timer{.sleeper = std::coroutine_handle<>(), .request = id});
    if (request.node >= nodes_.size()) {
      post(Completion{id, Outcome{.kind = OutcomeKind::refused, .reply = {}}});
      continue;
    }
    nodes_[request.node]->submit(id, std::move(request.command),
                                 steady_ns() + request.timeout.ns());
  }
}

void RealPort::post(Completion completion) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completions_.push_back(std::move(completion));
  }
  wake_.notify_one();
}

bool RealPort::satisfied(const Group& group) const {
  return fan_out_satisfied(group.options, static_cast<uint32_t>(group.results.size()),
                           group.outstanding, group.successes, group.failures);
}

void RealPort::complete(uint64_t request, Outcome outcome) {
  const auto it = pending_.find(request);
  if (it == pending_.end()) return;  // timed out earlier: a late reply, ignored
  const Pending pending = it->second;
  pending_.erase(it);
  auto group_it = groups_.find(pending.group);
  Group& group = group_it->second;
  const bool success = group.options.success(outcome);
  group.results[pending.index] = std::move(outcome);
  --group.outstanding;
  ++(success ? group.successes : group.failures);
  std::coroutine_handle<> to_resume;
  if (!group.resumed && satisfied(group)) {
    group.resumed = true;
    if (group.single != nullptr) {
      *group.single = std::move(group.results.front());
    } else {
      *group.destination = group.results;  // requests still out read as `unknown`
    }
    to_resume = group.waiter;
  }
  if (group.outstanding == 0) groups_.erase(group_it);
  if (to_resume) to_resume.resume();
}

void RealPort::post_input(std::optional<std::string> line) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inputs_.push_back(std::move(line));
  }
  wake_.notify_one();
}

void RealPort::deliver_inputs(std::deque<std::optional<std::string>>& arrived) {
  for (auto& line : arrived)
    ready_inputs_.push_back(std::move(line));
  arrived.clear();
  if (input_waiter_ && !ready_inputs_.empty()) std::exchange(input_waiter_, nullptr).resume();
}

void RealPort::collect_completions() {
  std::deque<Completion> ready;
  std::deque<std::optional<std::string>> arrived;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ready.swap(completions_);
    arrived.swap(inputs_);
  }
  for (Completion& c : ready)
    complete(c.request, std::move(c.outcome));
  deliver_inputs(arrived);
}

void RealPort::fire_due_timers() {
  // A timer far past due means this process was stopped (SIGSTOP, a GC pause): the replies that
  // arrived meanwhile wait in the node threads' sockets, and a paused process reads them in the
  // order they came, before it notices the time. Give the node threads a moment to read them,
  // so a reply that was there in time is not taken for a timeout.
  if (!timers_.empty() && steady_ns() - timers_.begin()->first > 5'000'000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    collect_completions();
  }
  while (!timers_.empty() && timers_.begin()->first <= steady_ns()) {
    const Timer timer = timers_.begin()->second;
    timers_.erase(timers_.begin());
    if (timer.sleeper) {
      timer.sleeper.resume();
    } else {
      complete(timer.request, Outcome{.kind = OutcomeKind::unknown, .reply = {}});
    }
  }
}

void RealPort::drive(Task<void>& root) {
  root.start();
  while (!root.done()) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto anything = [this] { return !completions_.empty() || !inputs_.empty(); };
      if (!anything()) {
        if (timers_.empty()) {
          wake_.wait(lock, anything);
        } else {
          const int64_t wait_ns = std::max<int64_t>(0, timers_.begin()->first - steady_ns());
          wake_.wait_for(lock, std::chrono::nanoseconds(wait_ns), anything);
        }
      }
    }
    collect_completions();
    fire_due_timers();
    sweep_spawned();
  }
  root.rethrow_if_failed();
}

}  // namespace redlock_sim::real
