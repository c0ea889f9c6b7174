#include "lock_impls/families/fenced.hpp"

#include "lock_impls/families/family_params.hpp"
#include "lock_impls/zoo/zoo.hpp"

#include "lock_impls/families/common.hpp"

namespace redlock_sim {

namespace {
bool is_counter(const Outcome& outcome) {
  return outcome.replied() && outcome.reply.type == ReplyType::integer;
}
}  // namespace

const char* token_source_name(TokenSource source) {
  switch (source) {
    case TokenSource::external_counter:
      return "external_counter";
    case TokenSource::redis_master:
      return "redis_master";
    case TokenSource::quorum_max:
      return "quorum_max";
  }
  return "?";
}

FencedClient::FencedClient(Port& port, std::unique_ptr<LockClient> inner, FencedOptions options)
    : LockClient(port), inner_(std::move(inner)), options_(std::move(options)) {}

Task<std::optional<int64_t>> FencedClient::next_token(const std::string& resource) {
  const std::string key = options_.counter_prefix + resource;
  if (options_.source != TokenSource::quorum_max) {
    const Outcome outcome = co_await port().send(options_.token_node, make_command("INCR", key),
                                                 options_.request_timeout);
    if (!is_counter(outcome)) co_return std::nullopt;
    co_return outcome.reply.integer;
  }
  std::vector<NodeRequest> requests;
  for (NodeId n = 0; n < options_.node_count; ++n) {
    requests.push_back(
        {.node = n, .command = make_command("INCR", key), .timeout = options_.request_timeout});
  }
  const FanOutOptions wait_for_all;
  const std::vector<Outcome> outcomes = co_await port().fan_out(std::move(requests), wait_for_all);
  uint32_t replies = 0;
  int64_t highest = 0;
  for (const Outcome& outcome : outcomes) {
    if (!is_counter(outcome)) continue;
    ++replies;
    highest = std::max(highest, outcome.reply.integer);
  }
  if (replies < majority(options_.node_count)) co_return std::nullopt;
  co_return highest;
}

Task<Grant> FencedClient::acquire(std::string resource) {
  Grant grant = co_await inner_->acquire(resource);
  if (!grant.acquired) co_return grant;
  const std::optional<int64_t> token = co_await next_token(resource);
  if (!token) {
    note(std::string("fencing token from ") + token_source_name(options_.source) +
         " unavailable: releasing");
    co_await inner_->release(grant.lease);
    grant.acquired = false;
    grant.failure = "token";
    grant.lease.reset();
    co_return grant;
  }
  note("fencing token " + std::to_string(*token));
  grant.lease->fencing_token = token;
  co_return grant;
}

Task<ReleaseResult> FencedClient::release(std::shared_ptr<Lease> lease) {
  co_return co_await inner_->release(lease);
}

Task<ExtendResult> FencedClient::extend(std::shared_ptr<Lease> lease) {
  co_return co_await inner_->extend(lease);
}

Task<void> FencedClient::run_watchdog(std::shared_ptr<Lease> lease) {
  co_await inner_->run_watchdog(lease);
}

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> fenced_locks() {
  std::vector<LockEntry> list;
  list.push_back(lock_entry(
      "fenced", LockKind::family,
      "a lock plus a fencing token per grant from an external counter, one master's INCR, "
      "or the max INCR over a quorum",
      "Kleppmann 2016",
      plus(redlock_params(zoo::redlock_reference()),
           {choice_param("token_source", {"external_counter", "redis_master", "quorum_max"}, 0,
                         "where fencing tokens come from"),
            count_param("token_node", "node", std::nullopt,
                        "port node of the token source (default: redis_master 0, else the node "
                        "right after the lock's)"),
            choice_param("inner", {"redlock", "single-instance"}, 0, "the lock being fenced")}),
      [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
        const bool single = p.choice("inner") == 1;
        const auto source = static_cast<TokenSource>(p.choice("token_source"));
        const uint32_t listed = p.node_count();
        const int64_t token_node_default =
            source == TokenSource::redis_master ? 0 : static_cast<int64_t>(listed) - 1;
        const auto token_node = static_cast<NodeId>(p.integer_or("token_node", token_node_default));
        // The client's list names which node is which: a token service listed last (the
        // external counter, a failover group) is not one of the lock's nodes.
        const bool token_node_apart =
            source != TokenSource::quorum_max && listed > 1 && token_node == listed - 1;
        RedlockOptions r = zoo::redlock_reference();
        apply_redlock(p, r);
        r.node_count = single ? 1 : listed - (token_node_apart ? 1 : 0);
        std::unique_ptr<LockClient> inner =
            single ? single_client(port, p, zoo::single_instance_reference())
                   : std::make_unique<RedlockClient>(port, r);
        FencedOptions f{.source = source, .token_node = token_node, .node_count = r.node_count};
        return std::make_unique<FencedClient>(port, std::move(inner), f);
      }));
  list.back().fencing_tokens = true;
  for (LockEntry& entry : list)
    entry.multi_node = true;  // every listed node is one of its masters
  return list;
}

}  // namespace redlock_sim
