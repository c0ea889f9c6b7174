#include "my_lock.hpp"

#include <cstdlib>

namespace my_lock {
namespace {

using namespace redlock_sim;

struct Options {
  uint32_t nodes = 5;
  Duration ttl = Duration::from_ms(2'000);
  Duration request_timeout = Duration::from_ms(50);
  Duration retry_delay = Duration::from_ms(100);
  uint32_t tries = 50;
};

class MyRedlock : public LockClient {
 public:
  MyRedlock(Port& port, Options options) : LockClient(port), options_(options) {}

  Task<Grant> acquire(std::string resource) override {
    Grant grant;
    const std::string value = token();
    for (uint32_t attempt = 1; attempt <= options_.tries; ++attempt) {
      grant.attempts = attempt;
      const Instant start = port().monotonic_now();
      const std::vector<Outcome> replies = co_await port().fan_out(to_all(make_command(
          "SET", resource, value, "NX", "PX", std::to_string(options_.ttl.ms_floor()))));
      const uint32_t locked = count_ok(replies);
      const Duration elapsed = port().monotonic_now() - start;
      // Redis's drift allowance: 1% of the TTL plus 2 ms.
      const Duration validity = options_.ttl - elapsed - options_.ttl / 100 - Duration::from_ms(2);
      if (locked >= options_.nodes / 2 + 1 && validity > Duration::zero()) {
        grant.acquired = true;
        grant.nodes_locked = locked;
        grant.lease = std::make_shared<Lease>();
        grant.lease->resource = resource;
        grant.lease->value = value;
        grant.lease->deadline = Deadline{.clock = ClockKind::monotonic, .at = start + validity};
        co_return grant;
      }
      // Undo the nodes this attempt locked (they hold our value: the SET just succeeded).
      std::vector<NodeRequest> undo;
      for (NodeId node = 0; node < options_.nodes; ++node) {
        if (replies[node].replied() && replies[node].reply.is_ok())
          undo.push_back(NodeRequest{.node = node,
                                     .command = make_command("DEL", resource),
                                     .timeout = options_.request_timeout});
      }
      if (!undo.empty()) co_await port().fan_out(std::move(undo));
      co_await port().sleep(options_.retry_delay);
    }
    grant.failure = "taken";
    co_return grant;
  }

  // The bug: DEL whatever the key holds now.
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override {
    lease->released = true;
    const std::vector<Outcome> replies =
        co_await port().fan_out(to_all(make_command("DEL", lease->resource)));
    ReleaseResult result;
    for (const Outcome& outcome : replies)
      result.nodes += outcome.replied() && outcome.reply.is_integer(1) ? 1 : 0;
    result.released = true;
    co_return result;
  }

  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override {
    ++lease->extensions;
    ExtendResult result;
    result.failure = "my-redlock does not extend";
    co_return result;
  }

  ClockKind clock() const override { return ClockKind::monotonic; }

 private:
  std::vector<NodeRequest> to_all(const Command& command) const {
    std::vector<NodeRequest> requests;
    for (NodeId node = 0; node < options_.nodes; ++node)
      requests.push_back(
          NodeRequest{.node = node, .command = command, .timeout = options_.request_timeout});
    return requests;
  }
  static uint32_t count_ok(const std::vector<Outcome>& replies) {
    uint32_t ok = 0;
    for (const Outcome& outcome : replies)
      ok += outcome.replied() && outcome.reply.is_ok() ? 1 : 0;
    return ok;
  }
  std::string token() {
    uint8_t bytes[10];
    port().random_bytes(bytes);
    std::string text;
    for (uint8_t b : bytes) {
      text += "0123456789abcdef"[b >> 4];
      text += "0123456789abcdef"[b & 15];
    }
    return text;
  }

  Options options_;
};

}  // namespace

void register_my_redlock() {
  // The parameters, declared once: the scenario parser checks them against this table, `make`
  // gets them checked and typed.
  register_lock(
      LockEntry{.name = "my-redlock",
                .kind = LockKind::profile,
                .description = "our own Redlock (releases with a plain DEL)",
                .models = "examples/my-lock",
                .params = {ms_param("ttl_ms", Duration::from_ms(2'000), "lock TTL", 1)},
                // Every node the client lists is a master (values.node_count() of them).
                .multi_node = true,
                .make = [](Port& port, const ParamValues& values) -> std::unique_ptr<LockClient> {
                  return std::make_unique<MyRedlock>(
                      port, Options{.nodes = values.node_count(), .ttl = values.ms("ttl_ms")});
                }});
}

}  // namespace my_lock
