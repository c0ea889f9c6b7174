#include "lock_impls/port/port.hpp"

#include <new>
#include <string>

namespace redlock_sim {

namespace frame_pool {
namespace {

constexpr std::size_t class_count = max_pooled_bytes / granule_bytes;

struct FreeNode {
  FreeNode* next;
};

// One free list per size class, per thread: a seed run stays on one thread, and parallel
// exploration runs one seed per thread, so no locking is needed.
struct Pool {
  FreeNode* heads[class_count] = {};
  ~Pool() {
    for (FreeNode*& head : heads) {
      while (head != nullptr) {
        FreeNode* next = head->next;
        ::operator delete(head);
        head = next;
      }
    }
  }
};

thread_local Pool pool;

std::size_t class_of(std::size_t bytes) {
  return (bytes + granule_bytes - 1) / granule_bytes - 1;
}

}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes == 0 || bytes > max_pooled_bytes) return ::operator new(bytes);
  const std::size_t index = class_of(bytes);
  if (FreeNode* node = pool.heads[index]) {
    pool.heads[index] = node->next;
    return node;
  }
  return ::operator new((index + 1) * granule_bytes);
}

void deallocate(void* frame, std::size_t bytes) noexcept {
  if (bytes == 0 || bytes > max_pooled_bytes) {
    ::operator delete(frame);
    return;
  }
  const std::size_t index = class_of(bytes);
  auto* node = static_cast<FreeNode*>(frame);
  node->next = pool.heads[index];
  pool.heads[index] = node;
}

}  // namespace frame_pool

void Port::start_broadcast(const Command& command, std::span<const NodeId> nodes, Duration timeout,
                           const FanOutOptions& options, std::vector<Outcome>* results,
                           std::coroutine_handle<> waiter) {
  std::vector<NodeRequest> requests;
  requests.reserve(nodes.size());
  for (NodeId node : nodes)
    requests.push_back({.node = node, .command = command, .timeout = timeout});
  start_fan_out(std::move(requests), options, results, waiter);
}

bool default_success(const Outcome& outcome) {
  return outcome.kind == OutcomeKind::ok && !outcome.reply.is_error() && !outcome.reply.is_nil();
}

namespace {
void describe_into(const Reply& reply, std::string& out) {
  switch (reply.type) {
    case ReplyType::status:
      out += reply.text;
      return;
    case ReplyType::error:
      out += "(error) ";
      out += reply.text;
      return;
    case ReplyType::integer:
      out += "(integer) ";
      out += std::to_string(reply.integer);
      return;
    case ReplyType::bulk:
      out += '"';
      out += reply.text;
      out += '"';
      return;
    case ReplyType::nil:
    case ReplyType::nil_array:
      out += "(nil)";
      return;
    case ReplyType::array:
      out += '[';
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        if (i > 0) out += ", ";
        describe_into(reply.elements[i], out);
      }
      out += ']';
      return;
  }
}
}  // namespace

std::string describe(const Reply& reply) {
  std::string out;
  describe_into(reply, out);
  return out;
}

std::string describe(const Command& command) {
  std::string out;
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (i > 0) out += ' ';
    out += command[i];
  }
  return out;
}

}  // namespace redlock_sim
