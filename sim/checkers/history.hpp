// What happened in a run, as the checkers see it: grants with their validity deadlines on the
// holder's own clock, acquisition calls, acknowledged writes, probe hits. Times are true time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lock_impls/port/time.hpp"
#include "sim/kernel/network.hpp"

namespace redlock_sim {

// One successful acquisition by one client of one lock.
struct GrantRecord {
  uint64_t grant_id = 0;
  ProcessId client = 0;
  std::string lock;
  Instant granted_at;  // true time at which the acquisition returned success
  std::string token;   // the random lock value
  std::optional<int64_t> fencing_token;
  ClockKind clock = ClockKind::monotonic;  // the clock the deadlines are on
  // The validity deadline as a local time on `clock`: the first entry is the grant's, later ones
  // are successful extensions, each with the true time it was learned.
  struct Deadline {
    Instant learned_at;
    Instant local;
  };
  std::vector<Deadline> deadlines;
  std::optional<Instant> ended_at;  // release started, loss reported, or the holder crashed
  std::string end_reason;
};

// One call of acquire (with all its internal retries).
struct AcquireCall {
  ProcessId client = 0;
  std::string lock;
  Instant started;
  std::optional<Instant> ended;  // absent if the run ended inside the call
  bool succeeded = false;
  bool interrupted = false;  // the client died inside the call (`ended` is the crash)
  uint32_t attempts = 0;     // tries the lock made in the call (0: unknown)
  uint64_t grant_id = 0;
};

struct WriteAck {
  uint64_t grant_id = 0;
  ProcessId client = 0;
  Instant acknowledged_at;
};

// A true-time interval during which a client believed it held a lock.
struct HoldInterval {
  uint64_t grant_id = 0;
  ProcessId client = 0;
  std::string lock;
  Instant start;
  Instant end;
};

class History {
 public:
  uint64_t add_grant(GrantRecord grant);  // assigns and returns grant_id (1, 2, ...)
  GrantRecord& grant(uint64_t grant_id) { return grants_.at(grant_id - 1); }
  const std::vector<GrantRecord>& grants() const { return grants_; }

  std::size_t begin_acquire(ProcessId client, const std::string& lock, Instant at);
  void end_acquire(std::size_t call, Instant at, bool succeeded, uint64_t grant_id,
                   uint32_t attempts = 0);
  const std::vector<AcquireCall>& acquires() const { return acquires_; }
  // Real-process mode learns when a client really began a call only from the call's result.
  void set_acquire_start(std::size_t call, Instant at) { acquires_.at(call).started = at; }

  void add_write_ack(WriteAck ack) { write_acks_.push_back(ack); }
  const std::vector<WriteAck>& write_acks() const { return write_acks_; }

  // Named "did this situation happen" counters.
  void probe(const std::string& name, uint64_t count = 1) { probes_[name] += count; }
  const std::map<std::string, uint64_t>& probes() const { return probes_; }

  // Ends every open grant of `client` (a crash): a dead process believes nothing.
  void end_grants_of(ProcessId client, Instant at, const std::string& reason);
  // A client that dies inside acquire stops wanting the lock then; it did not give up.
  void interrupt_acquires_of(ProcessId client, Instant at);

 private:
  std::vector<GrantRecord> grants_;
  std::vector<AcquireCall> acquires_;
  std::vector<WriteAck> write_acks_;
  std::map<std::string, uint64_t> probes_;
};

}  // namespace redlock_sim
