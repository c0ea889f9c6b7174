// A simulated application process: it runs a lock client (the code under test) through the port
// and a scripted list of steps or a looping workload around it, and records what happened
// (grants, releases, extensions, acknowledged writes) for the checkers.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lock_impls/lock.hpp"
#include "sim/checkers/history.hpp"
#include "sim/kernel/task_process.hpp"
#include "sim/runner/story_kind.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// What the world shares with every client.
struct WorldServices {
  History* history = nullptr;
  // Records one line of the story.
  std::function<void(ProcessId, StoryKind kind, std::string text, uint64_t grant_id)> tell;
  ResourceSpec resource;
  NodeId resource_endpoint = 0;     // the port endpoint of the resource service
  int64_t* oracle_token = nullptr;  // the external oracle's last token
  // Failover: the group name clients may list as a node, and process names -> ids.
  std::string master_name;
  std::function<std::optional<ProcessId>(const std::string&)> resolve;
  std::vector<CommandReplyRecord>* replies = nullptr;  // command steps' replies, in order
  // Whether `tell` keeps the story's lines; when it does not, clients build no line's text.
  bool record_story = true;
};

class ClientProcess : public TaskProcess {
 public:
  ClientProcess(Simulator& simulator, ProcessId id, std::string name, ClientSpec spec,
                WorldServices services);

  void set_lock(std::unique_ptr<LockClient> lock);
  // Starts the steps or the workload (at time zero; steps wait for their own at_ms).
  void start();

 protected:
  void on_crash() override;
  void on_restart() override;
  void on_unsolicited(Message& message) override;

 private:
  Task<void> run_steps();
  Task<void> run_workload();
  Task<bool> do_acquire();
  Task<void> do_release();
  Task<bool> do_extend();  // true when the library reported success
  Task<bool> do_work(const WorkloadSpec& workload);
  void end_grant_on_failed_extend(uint64_t grant_id, const ExtendResult& result);
  Task<bool> do_read(int64_t timeout_ms);
  Task<void> do_write(std::optional<int64_t> value, int64_t timeout_ms);
  Task<void> do_command(const StepSpec& step);
  Task<void> wait_for_true_time(Instant at);
  bool validity_passed();
  // What the resource is told along with each operation: the current grant, token and value.
  ResourceRequest resource_request() const;
  void tell(StoryKind kind, std::string text);
  bool telling() const { return services_.record_story; }

  ClientSpec spec_;
  WorldServices services_;
  std::unique_ptr<LockClient> lock_;
  std::shared_ptr<Lease> lease_;
  uint64_t grant_id_ = 0;
  std::optional<int64_t> fencing_token_;
  Deadline recorded_deadline_;
  // Re-entrant acquisitions: the grants held under the current one, innermost last. A release
  // gives back the current grant and makes the one under it current again.
  struct Held {
    std::shared_ptr<Lease> lease;
    uint64_t grant_id = 0;
    std::optional<int64_t> fencing_token;
    Deadline recorded_deadline;
  };
  std::vector<Held> outer_;
  int64_t last_read_ = 0;
  bool started_ = false;  // scripted steps run once, even if the process restarts
};

}  // namespace redlock_sim
