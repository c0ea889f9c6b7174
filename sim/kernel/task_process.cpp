#include "sim/kernel/task_process.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

namespace {
// Timer tags: a coroutine to resume (its frame address, 16-byte aligned, low bit 0) or a request
// timeout (request slot shifted left, low bit 1).
constexpr uint64_t timeout_tag_bit = 1;
uint64_t request_wire_id(uint32_t slot, uint32_t generation) {
  // Never 0, which marks one-way messages.
  return (static_cast<uint64_t>(slot + 1) << 32) | generation;
}
}  // namespace

TaskProcess::TaskProcess(Simulator& simulator, ProcessId id, std::string name)
    : Process(simulator, id, name), random_(simulator.rng("process/" + name + "/random")) {}

TaskProcess::~TaskProcess() {
  tasks_.clear();
}

void TaskProcess::spawn(Task<void> task) {
  SIM_ASSERT(status() != ProcessStatus::crashed);
  sweep_finished_tasks();
  tasks_.push_back(std::move(task));
  tasks_.back().start([](void* owner) { ++static_cast<TaskProcess*>(owner)->finished_tasks_; },
                      this);
  sweep_finished_tasks();
}

void TaskProcess::sweep_finished_tasks() {
  if (finished_tasks_ == 0) return;
  finished_tasks_ = 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (tasks_[i].done()) {
      tasks_[i].rethrow_if_failed();  // an exception escaping lock code is a bug: surface it
      continue;
    }
    if (kept != i) tasks_[kept] = std::move(tasks_[i]);
    ++kept;
  }
  tasks_.resize(kept);
}

std::size_t TaskProcess::live_task_count() const {
  std::size_t count = 0;
  for (const Task<void>& task : tasks_)
    count += task.done() ? 0 : 1;
  return count;
}

// Each word's bytes, lowest first: on a little-endian host a whole word is its 8 bytes in memory
// order, stored at once (a lock token draws about 20 bytes per acquisition).
void TaskProcess::random_bytes(std::span<uint8_t> out) {
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= out.size(); i += 8) {
      const uint64_t word = random_.next_u64();
      std::memcpy(out.data() + i, &word, 8);
    }
  }
  for (; i < out.size(); i += 8) {
    uint64_t word = random_.next_u64();
    for (std::size_t j = i; j < out.size() && j < i + 8; ++j) {
      out[j] = static_cast<uint8_t>(word);
      word >>= 8;
    }
  }
}

namespace {

// A slot given back earlier (the last one first), else a new one at the end of `slots`.
template <typename Slot>
uint32_t take_slot(std::vector<uint32_t>& free, std::vector<Slot>& slots) {
  if (!free.empty()) {
    const uint32_t slot = free.back();
    free.pop_back();
    return slot;
  }
  slots.emplace_back();
  return static_cast<uint32_t>(slots.size() - 1);
}

}  // namespace

void TaskProcess::start_sleep(Duration duration, std::coroutine_handle<> waiter) {
  const auto tag = reinterpret_cast<uint64_t>(waiter.address());
  SIM_ASSERT((tag & timeout_tag_bit) == 0);
  // The kernel's clock, read directly (not through the port's virtual monotonic_now): the same
  // value, no indirect call.
  start_sleep_timer(duration, tag);
}

uint32_t TaskProcess::open_group(std::size_t count, const FanOutOptions& options, Outcome* results,
                                 std::coroutine_handle<> waiter) {
  const uint32_t group_slot = take_slot(free_groups_, groups_);
  Group& group = groups_[group_slot];
  group.results = results;
  group.waiter = waiter;
  group.options = options;
  group.total = static_cast<uint32_t>(count);
  group.outstanding = static_cast<uint32_t>(count);
  group.successes = 0;
  group.failures = 0;
  group.resumed = false;
  group.active = true;
  return group_slot;
}

template <typename CommandRef>
void TaskProcess::start_request(uint32_t group_slot, uint32_t index, NodeId node,
                                Instant local_deadline, CommandRef&& command) {
  SIM_ASSERT_LT(node, endpoints_.size());
  const uint32_t slot = take_slot(free_requests_, requests_);
  const TimerId timer = start_timeout(ClockKind::monotonic, local_deadline,
                                      (static_cast<uint64_t>(slot) << 1) | timeout_tag_bit);
  PendingRequest& pending = requests_[slot];
  pending.group = group_slot;
  pending.index = index;
  pending.timer = timer;
  pending.active = true;
  send_message(endpoints_[node], std::forward<CommandRef>(command),
               request_wire_id(slot, pending.generation));
}

// The results vector is sized here (every outcome `unknown`) and written in place.
void TaskProcess::start_fan_out(std::vector<NodeRequest>&& requests, const FanOutOptions& options,
                                std::vector<Outcome>* results, std::coroutine_handle<> waiter) {
  results->clear();
  results->resize(requests.size());
  const uint32_t group_slot = open_group(requests.size(), options, results->data(), waiter);
  for (uint32_t index = 0; index < requests.size(); ++index) {
    NodeRequest& request = requests[index];
    start_request(group_slot, index, request.node, Process::monotonic_now() + request.timeout,
                  std::move(request.command));
  }
}

std::shared_ptr<const Command> TaskProcess::share(const Command& command) {
  const std::size_t count = shared_commands_.size();
  std::size_t at = next_shared_;
  for (std::size_t looks = std::min(count, share_looks_max); looks > 0; --looks) {
    const std::shared_ptr<Command>& kept = shared_commands_[at];
    if (++at == count) at = 0;
    // Held by this list alone: no message (in flight or kept by a receiver) reads it.
    if (kept.use_count() == 1) {
      next_shared_ = at;
      *kept = command;
      return kept;
    }
  }
  next_shared_ = at;
  shared_commands_.push_back(std::make_shared<Command>(command));
  return shared_commands_.back();
}

// The messages share one copy of `command`, made once (into kept buffers): no argv is copied per
// node.
void TaskProcess::start_broadcast(const Command& command, std::span<const NodeId> nodes,
                                  Duration timeout, const FanOutOptions& options,
                                  std::vector<Outcome>* results, std::coroutine_handle<> waiter) {
  start_shared_broadcast(share(command), nodes, timeout, options, results, waiter);
}

// The messages hold the caller's argv itself.
void TaskProcess::start_shared_broadcast(const std::shared_ptr<const Command>& command,
                                         std::span<const NodeId> nodes, Duration timeout,
                                         const FanOutOptions& options,
                                         std::vector<Outcome>* results,
                                         std::coroutine_handle<> waiter) {
  results->clear();
  results->resize(nodes.size());
  const uint32_t group_slot = open_group(nodes.size(), options, results->data(), waiter);
  // One deadline for all: no time passes while the requests start.
  const Instant deadline = Process::monotonic_now() + timeout;
  for (uint32_t index = 0; index < nodes.size(); ++index)
    start_request(group_slot, index, nodes[index], deadline, command);
}

// A group of one whose outcome is the awaiter's own: no vector of requests or results.
void TaskProcess::start_send(NodeRequest&& request, Outcome* result,
                             std::coroutine_handle<> waiter) {
  const uint32_t group_slot = open_group(1, FanOutOptions{}, result, waiter);
  start_request(group_slot, 0, request.node, Process::monotonic_now() + request.timeout,
                std::move(request.command));
}

bool TaskProcess::satisfied(const Group& group) const {
  return fan_out_satisfied(group.options, group.total, group.outstanding, group.successes,
                           group.failures);
}

void TaskProcess::complete(uint32_t request_slot, Reply* reply) {
  PendingRequest& pending = requests_[request_slot];
  SIM_ASSERT(pending.active);
  pending.active = false;
  ++pending.generation;
  const uint32_t group_slot = pending.group;
  free_requests_.push_back(request_slot);

  Group& group = groups_[group_slot];
  --group.outstanding;
  std::coroutine_handle<> to_resume;
  if (!group.resumed) {
    // The waiter has not resumed: its result is written in place (a timeout leaves `unknown`).
    Outcome& outcome = group.results[pending.index];
    if (reply != nullptr) {
      outcome.kind = OutcomeKind::ok;
      outcome.reply = std::move(*reply);
    }
    // A group that waits for all resumes on its last outcome, whatever they are: the success
    // predicate is asked only of groups that count (the caller asks it again of the results).
    if (group.options.mode != FanOutMode::wait_for_all) {
      if (group.options.success(outcome)) {
        ++group.successes;
      } else {
        ++group.failures;
      }
    }
    if (satisfied(group)) {
      // Requests still out read as `unknown`; what they bring later is read by no one.
      group.resumed = true;
      group.results = nullptr;
      to_resume = group.waiter;
    }
  }
  if (group.resumed && group.outstanding == 0) {
    group.active = false;
    ++group.generation;
    free_groups_.push_back(group_slot);
  }
  // Resume last: the coroutine may start new requests and grow the slabs.
  if (to_resume) {
    to_resume.resume();
    sweep_finished_tasks();
  }
}

void TaskProcess::on_message(Message& message) {
  if (!message.is_reply || message.request_id == 0) {
    on_unsolicited(message);
    return;
  }
  const auto slot = static_cast<uint32_t>((message.request_id >> 32) - 1);
  const auto generation = static_cast<uint32_t>(message.request_id);
  if (slot >= requests_.size()) return;
  PendingRequest& pending = requests_[slot];
  if (!pending.active || pending.generation != generation) return;  // late reply: timed out
  cancel_timer(pending.timer);
  complete(slot, &message.reply);
}

void TaskProcess::on_timer(uint64_t tag) {
  if ((tag & timeout_tag_bit) == 0) {
    std::coroutine_handle<>::from_address(reinterpret_cast<void*>(tag)).resume();
    sweep_finished_tasks();
    return;
  }
  const auto slot = static_cast<uint32_t>(tag >> 1);
  SIM_ASSERT(requests_[slot].active);
  complete(slot, nullptr);
}

void TaskProcess::on_crash() {
  tasks_.clear();  // destroys every frame, children included
  finished_tasks_ = 0;
  requests_.clear();
  free_requests_.clear();
  groups_.clear();
  free_groups_.clear();
}

}  // namespace redlock_sim
