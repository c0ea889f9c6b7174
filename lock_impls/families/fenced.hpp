// The fenced lock: any lock client, plus a fencing token for every grant from a pluggable
// source, so the resource can reject writes under an older grant (Kleppmann 2016).
//
// Sources:
// - external_counter: INCR on a linearizable counter service (what ZooKeeper's zxid or etcd's
//   revision would give). It is addressed as port node `token_node`; the simulator places its
//   counter service there (by default right after the lock's Redis nodes);
// - redis_master: INCR on one Redis master (lost or repeated after a failover);
// - quorum_max: INCR on every lock node, the maximum of a majority of replies.
// A grant whose token cannot be obtained is released and reported as not acquired.
#pragma once

#include <memory>
#include <string>

#include "lock_impls/lock.hpp"

namespace redlock_sim {

enum class TokenSource : uint8_t { external_counter, redis_master, quorum_max };

struct FencedOptions {
  TokenSource source = TokenSource::external_counter;
  NodeId token_node = 5;    // external_counter: the service; redis_master: the master
  uint32_t node_count = 5;  // quorum_max: nodes 0..node_count-1
  std::string counter_prefix = "fence:";
  Duration request_timeout = Duration::from_ms(50);
};

class FencedClient : public LockClient {
 public:
  FencedClient(Port& port, std::unique_ptr<LockClient> inner, FencedOptions options);

  Task<Grant> acquire(std::string resource) override;
  Task<ReleaseResult> release(std::shared_ptr<Lease> lease) override;
  Task<ExtendResult> extend(std::shared_ptr<Lease> lease) override;
  bool has_watchdog() const override { return inner_->has_watchdog(); }
  Task<void> run_watchdog(std::shared_ptr<Lease> lease) override;
  ClockKind clock() const override { return inner_->clock(); }

 private:
  Task<std::optional<int64_t>> next_token(const std::string& resource);

  std::unique_ptr<LockClient> inner_;
  FencedOptions options_;
};

const char* token_source_name(TokenSource source);

}  // namespace redlock_sim
