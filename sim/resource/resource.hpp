// The protected resource: a storage service on the network holding one integer register per
// resource name, which lock holders read and then write (an increment per critical section).
//
// Fencing modes (docs/catalogue.md, S06, S09 and S25):
// - none: every operation is applied.
// - fence_writes: writes carry a token; a write whose token is below the highest token seen is
//   rejected. Reads carry none.
// - fence_all: reads carry tokens too and raise the highest token seen (Kleppmann: once client 2
//   used token 34, client 1 may perform no operation at all).
// - compare_and_set: antirez's random-token CAS (S09): SETOWNER token, then WRITEIFOWNER token v
//   applies only if the owner is still that token.
// Requests (argv): READ r [token] | WRITE r value [token] | SETOWNER r token |
// WRITEIFOWNER r token value; the simulator appends `GRANT <id>` so the history knows under which
// grant an operation was issued (metadata the resource itself ignores).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kernel/server_process.hpp"

namespace redlock_sim {

enum class FencingMode : uint8_t { none, fence_writes, fence_all, compare_and_set };
const char* fencing_mode_name(FencingMode mode);
std::optional<FencingMode> parse_fencing_mode(const std::string& name);

// What a client sends the resource, as argv; the one definition both the simulated client and
// the real client process (`redlock-sim client`) use. `owner` is the lock value (compare-and-set
// only), `token` the fencing token, sent where the mode fences that operation; `grant_id` (0:
// none) is the metadata telling the history which grant issued it.
struct ResourceRequest {
  FencingMode fencing = FencingMode::none;
  std::string resource;
  std::string owner;
  std::optional<int64_t> token;
  uint64_t grant_id = 0;
};
// The SETOWNER that precedes a read under compare-and-set; nothing in the other modes.
std::optional<Command> resource_set_owner_command(const ResourceRequest& request);
Command resource_read_command(const ResourceRequest& request);
Command resource_write_command(const ResourceRequest& request, int64_t value);

enum class ResourceOpKind : uint8_t { read, write, set_owner, write_if_owner };
const char* resource_op_kind_name(ResourceOpKind kind);

// One operation as the resource applied (or refused) it.
struct ResourceOp {
  Instant applied_at;
  ProcessId client = 0;
  uint64_t grant_id = 0;
  ResourceOpKind kind = ResourceOpKind::read;
  std::string resource;
  int64_t value = 0;             // value read, or value written
  std::optional<int64_t> token;  // fencing token, when the operation carried one
  std::string owner_token;       // compare_and_set: the random token
  bool accepted = true;
  std::string rejection;  // why it was refused
};

// The registers themselves, without a network: the simulated resource process and the real-mode
// register service (real/) both apply requests through this one store, so fencing is judged by
// the same code in both worlds.
class RegisterStore {
 public:
  struct Options {
    FencingMode fencing = FencingMode::none;
    // S25's variant: also refuse a token equal to the highest seen (breaks a holder's second
    // write; off by default, as in the catalogue).
    bool reject_equal_token = false;
  };
  explicit RegisterStore(Options options) : options_(options) {}

  // Applies one request from `client` at true time `now` and logs it.
  Reply apply(const Command& argv, ProcessId client, Instant now);
  const std::vector<ResourceOp>& log() const { return log_; }
  int64_t value(const std::string& resource) const;
  FencingMode fencing() const { return options_.fencing; }
  uint64_t rejected_count() const;

 private:
  struct Register {
    int64_t value = 0;
    std::optional<int64_t> highest_token;
    std::string owner;
  };
  bool token_is_stale(const Register& reg, int64_t token) const;
  Options options_;
  std::map<std::string, Register> registers_;
  std::vector<ResourceOp> log_;
};

class ResourceProcess : public ServerProcess {
 public:
  using Options = RegisterStore::Options;
  ResourceProcess(Simulator& simulator, ProcessId id, std::string name, Options options);

  const std::vector<ResourceOp>& log() const { return store_.log(); }
  int64_t value(const std::string& resource) const { return store_.value(resource); }
  FencingMode fencing() const { return store_.fencing(); }
  uint64_t rejected_count() const { return store_.rejected_count(); }

 protected:
  Reply handle(const Message& request) override;

 private:
  RegisterStore store_;
};

// The counter's answers without a network (simulated counter process and real-mode service).
class CounterStore {
 public:
  explicit CounterStore(int64_t start_value = 0) : start_value_(start_value) {}
  Reply apply(const Command& argv);

 private:
  int64_t start_value_;
  std::map<std::string, int64_t> counters_;
};

// The external linearizable counter (what ZooKeeper's zxid or etcd's revision would give): a
// single process answering `INCR name` with strictly increasing integers, and `GET name`.
class CounterService : public ServerProcess {
 public:
  CounterService(Simulator& simulator, ProcessId id, std::string name, int64_t start_value = 0);

 protected:
  Reply handle(const Message& request) override { return store_.apply(request.command()); }

 private:
  CounterStore store_;
};

}  // namespace redlock_sim
