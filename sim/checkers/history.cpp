#include "sim/checkers/history.hpp"

namespace redlock_sim {

uint64_t History::add_grant(GrantRecord grant) {
  grant.grant_id = grants_.size() + 1;
  grants_.push_back(std::move(grant));
  return grants_.back().grant_id;
}

std::size_t History::begin_acquire(ProcessId client, const std::string& lock, Instant at) {
  acquires_.push_back(AcquireCall{.client = client, .lock = lock, .started = at});
  return acquires_.size() - 1;
}

void History::end_acquire(std::size_t call, Instant at, bool succeeded, uint64_t grant_id,
                          uint32_t attempts) {
  AcquireCall& record = acquires_.at(call);
  record.attempts = attempts;
  record.ended = at;
  record.succeeded = succeeded;
  record.grant_id = grant_id;
}

void History::end_grants_of(ProcessId client, Instant at, const std::string& reason) {
  for (GrantRecord& grant : grants_) {
    if (grant.client == client && !grant.ended_at) {
      grant.ended_at = at;
      grant.end_reason = reason;
    }
  }
}

void History::interrupt_acquires_of(ProcessId client, Instant at) {
  for (AcquireCall& call : acquires_) {
    if (call.client == client && !call.ended) {
      call.ended = at;
      call.interrupted = true;
    }
  }
}

}  // namespace redlock_sim
