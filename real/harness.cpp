#include "real/harness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "real/fabric.hpp"
#include "real/loop.hpp"
#include "real/process.hpp"
#include "real/resp.hpp"
#include "sim/faults/before_run.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/faults/pairing.hpp"
#include "sim/kernel/random.hpp"
#include "sim/kernel/simulator.hpp"
#include "sim/replication/cluster_event.hpp"
#include "sim/resource/resource.hpp"
#include "sim/runner/run_event.hpp"

namespace redlock_sim::real {

namespace {

using nlohmann::json;

std::string ms_text(int64_t ms) {
  return std::to_string(ms) + " ms";
}

// A process's wall-clock offset, shared with the clock shim through a mapped file.
class ClockFile {
 public:
  ClockFile() = default;
  ClockFile(const ClockFile&) = delete;
  ClockFile& operator=(const ClockFile&) = delete;
  ~ClockFile() {
    if (slot_ != nullptr) ::munmap(slot_, sizeof(int64_t));
  }
  bool open(const std::string& path, int64_t offset_ns) {
    path_ = path;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    const bool sized = ::ftruncate(fd, sizeof(int64_t)) == 0;
    void* mapped = sized
                       ? ::mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                       : MAP_FAILED;
    ::close(fd);
    if (mapped == MAP_FAILED) return false;
    slot_ = static_cast<int64_t*>(mapped);
    set(offset_ns);
    return true;
  }
  void set(int64_t offset_ns) {
    offset_ns_ = offset_ns;
    __atomic_store_n(slot_, offset_ns, __ATOMIC_RELEASE);
  }
  int64_t offset_ns() const { return offset_ns_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t* slot_ = nullptr;
  int64_t offset_ns_ = 0;
};

}  // namespace

std::optional<std::string> unstageable_reason(const Scenario& scenario) {
  for (const NodeSpec& node : scenario.nodes) {
    if (node.redis_version != "7.0") {
      return "node " + node.name + " asks for redis_version " + node.redis_version +
             ": only the installed 7.0 can be staged";
    }
    if (!(node.clock.rate == Rate::one())) {
      return "node " + node.name + " has a clock rate: clock rates cannot be staged for real";
    }
  }
  for (const NodeSpec& node : scenario.nodes) {
    if (!node.data.empty()) {
      return "node " + node.name + " has initial data: not staged for real yet";
    }
  }
  for (const ClientSpec& client : scenario.clients) {
    if (!(client.clock.rate == Rate::one())) {
      return "client " + client.name + " has a clock rate: clock rates cannot be staged for real";
    }
    if (client.workload && client.workload->extend_every_ms > 0) {
      return "client " + client.name +
             "'s workload extends (extend_every_ms): not staged for real yet";
    }
    for (const StepSpec& step : client.steps) {
      if (step.kind == StepKind::command) {
        return "client " + client.name + " has a command step: not staged for real yet";
      }
    }
  }
  const std::vector<std::string>& sentinels = scenario.failover.sentinels;
  for (const FaultSpec& fault : scenario.faults) {
    if (scenario.failover.enabled && !fault.target.empty() &&
        std::find(sentinels.begin(), sentinels.end(), fault.target) != sentinels.end()) {
      return "fault " + fault.kind + " at " + std::to_string(fault.at_ms) +
             " ms targets sentinel " + fault.target +
             ": faults on sentinels cannot be staged for real yet";
    }
    const FaultKindDescriptor& kind = fault_kind(fault.kind);
    const char* refusal = kind.real_mode_refusal != nullptr ? kind.real_mode_refusal
                          : kind.stage == nullptr           ? "cannot be staged for real yet"
                                                            : nullptr;
    if (refusal != nullptr) {
      return "fault " + fault.kind + " at " + std::to_string(fault.at_ms) + " ms: " + refusal;
    }
  }
  // A cut that began before the run is staged at zero, unless it cuts a replication link: its
  // replica's and master's last I/O lie before the run, which real processes cannot be given.
  const auto cut_links = replica_links_down_before_run(scenario);
  if (!cut_links.empty()) {
    return "replica " + cut_links.begin()->first +
           "'s link to its master is cut by a partition that began before the run: real "
           "processes cannot be made to have had their last replication I/O in the past";
  }
  return std::nullopt;
}

namespace {

// The driver that runs `client`: the first whose profiles name its profile (or that names none).
const DriverSpec* driver_of(const std::vector<DriverSpec>& drivers, const ClientSpec& client) {
  for (const DriverSpec& driver : drivers) {
    const auto& p = driver.profiles;
    if (p.empty() || std::find(p.begin(), p.end(), client.profile) != p.end()) return &driver;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> unstageable_reason(const Scenario& scenario,
                                              const std::vector<DriverSpec>& drivers) {
  if (auto reason = unstageable_reason(scenario)) return reason;
  if (!scenario.failover.enabled) return std::nullopt;
  for (const ClientSpec& client : scenario.clients) {
    const auto& nodes = client.nodes;
    if (std::find(nodes.begin(), nodes.end(), scenario.failover.master_name) == nodes.end())
      continue;
    if (const DriverSpec* driver = driver_of(drivers, client)) {
      return "client " + client.name + " names the failover group " +
             scenario.failover.master_name + ": driver " + driver->name +
             " does not follow Sentinel's +switch-master (the profile's own client does)";
    }
  }
  return std::nullopt;
}

namespace {

struct NodeRun {
  const NodeSpec* spec = nullptr;
  ProcessId id = 0;
  int port = 0;
  std::string folder;
  ClockFile clock_file;
  ChildProcess process;
  bool paused = false;
  int announced = 0;      // the proxy the other nodes and the sentinels reach it at
  std::string fsync_log;  // what the shim saw made durable
  std::map<uint64_t, int64_t> durable_at_start;  // inode -> size, on disk before time zero
};

// A real `redis-server --sentinel` of the file's failover block.
struct SentinelRun {
  std::string name;
  ProcessId id = 0;
  int port = 0;
  int announced = 0;
  std::string folder;
  ChildProcess process;
  int events_fd = -1;  // the harness's own PSUBSCRIBE * connection, for the story
  std::string events;  // partial frames read from it
};

struct ClientRun {
  const ClientSpec* spec = nullptr;
  ProcessId id = 0;
  ClockFile clock_file;
  ChildProcess process;
  std::string output;  // partial line from its stdout
  bool alive = false;
  bool ready = false;
  bool started = false;  // scripted steps run once, even if the process restarts
  bool finished = false;
  bool busy = false;  // a command is out, its result not back
  std::size_t step = 0;
  bool increment_writing = false;  // the write half of an `increment` step is out
  std::optional<uint64_t> wait_timer;
  std::optional<std::size_t> acquire_call;
  // Workload state.
  uint32_t iteration = 0;
  enum class Phase { start, acquire, read, work, write, release, think } phase = Phase::start;
  bool holding = false;
  // What the history knows: the current grant and the ones it re-entered.
  uint64_t grant_id = 0;
  std::vector<uint64_t> outer;
  std::map<uint64_t, uint64_t> grant_by_lease;  // the process's lease number -> grant id
  bool skip_write = false;                      // the workload's read failed: no write
  uint64_t random_words = 0;                    // drawn by its lives so far
  nlohmann::json config_json;  // its --config; random_skip is set anew at each start
  int watchdogs = 0;
  int generation = 0;
};

class RealWorld {
 public:
  RealWorld(const Scenario& scenario, const RealOptions& options)
      : scenario_(scenario), options_(options), network_(scenario.seed) {}
  ~RealWorld() { stop_all(); }

  std::optional<std::string> start();
  void run();
  RealRun finish();

 private:
  Instant true_now() const { return Instant::from_ns(monotonic_ns() - t0_ns_); }
  int64_t real_time_of_ms(int64_t ms) const { return t0_ns_ + ms * 1'000'000; }
  ProcessId id_of(const std::string& name) const { return ids_.at(name); }
  std::vector<ProcessId> ids_of(const std::vector<std::string>& names) const;
  void tell(ProcessId process, StoryKind kind, std::string text, uint64_t grant_id = 0);
  // Logs a typed event now and tells its story line (the simulator's rendering of it).
  void record(RunEvent event);
  void record_fault(ProcessId process, const FaultSpec& fault) {
    record(RunEvent{.process = process, .kind = RunEventKind::fault_applied, .fault = fault});
  }
  // `step`: a client's scripted step (not a fault, resume or restart).
  void timed(const std::string& what, int64_t scheduled_ms, bool step = false);

  std::optional<std::string> start_node(NodeRun& node);
  std::optional<std::string> start_sentinel(SentinelRun& sentinel);
  std::optional<std::string> wait_for_group(int timeout_ms);
  std::optional<ProcessId> identify(int accepted_fd) const;
  void on_sentinel_event(SentinelRun& sentinel);
  std::string names_for_addresses(const std::string& text) const;
  std::optional<std::string> wait_until_ready(NodeRun& node, int timeout_ms);
  std::optional<std::string> spawn_client(ClientRun& client);
  void on_client_output(ClientRun& client);
  bool read_client_output(ClientRun& client);
  void dispatch_events();
  void on_client_event(ClientRun& client, const json& event);
  void advance(ClientRun& client);
  void advance_steps(ClientRun& client);
  void advance_workload(ClientRun& client);
  void send(ClientRun& client, const std::string& line);
  void send_acquire(ClientRun& client);
  void client_died(ClientRun& client);

  // How a fault kind's `stage` reaches this world (sim/faults' RealFaultStage).
  class FaultStage : public RealFaultStage {
   public:
    explicit FaultStage(RealWorld& world) : world_(world) {}
    ProcessId id_of(const std::string& name) const override { return world_.id_of(name); }
    std::vector<ProcessId> ids_of(const std::vector<std::string>& names) const override {
      return world_.ids_of(names);
    }
    void when(const FaultSpec& fault, std::function<void()> action) override;
    void at(int64_t at_ms, std::function<void()> action) override;
    void timed(const std::string& what, int64_t scheduled_ms) override {
      world_.timed(what, scheduled_ms);
    }
    void lasts_until(int64_t at_ms) override {
      world_.last_scheduled_ms_ = std::max(world_.last_scheduled_ms_, at_ms);
    }
    void record_fault(ProcessId process, const FaultSpec& fault) override {
      world_.record_fault(process, fault);
    }
    void record_pause_ended(ProcessId process) override {
      world_.record(RunEvent{.process = process, .kind = RunEventKind::pause_ended});
    }
    void step_clock(ProcessId process, int64_t delta_ns) override {
      world_.step_clock(process, delta_ns);
    }
    void set_clock_offset(ProcessId process, int64_t offset_ms) override;
    void pause(ProcessId process, bool stop) override { world_.pause(process, stop); }
    void stop(const FaultSpec& fault, StopKind how) override { world_.crash(fault, how); }
    void restart_now(ProcessId process) override {
      world_.restarts_[process].armed = false;
      world_.restart(process);
    }
    void add_partition(std::size_t fault_index, PartitionRule rule) override {
      world_.partitions_[fault_index] = world_.network_.add_partition(std::move(rule));
    }
    void partition_began(std::size_t fault_index, ProcessId teller,
                         const FaultSpec& fault) override {
      world_.partition_events_[fault_index] = world_.run_events_.size();
      world_.record_fault(teller, fault);
    }
    void heal_partition(std::size_t partition_index, const FaultSpec& heal) override {
      world_.network_.heal(world_.partitions_.at(partition_index), Instant::from_ms(heal.at_ms));
      world_.record(
          heal_event(heal, world_.partition_events_, partition_index, world_.run_events_));
    }
    void add_hold(HoldRule rule) override { world_.network_.add_hold(std::move(rule)); }

   private:
    RealWorld& world_;
  };

  void schedule_faults();
  void schedule_fault(std::size_t index);
  void crash(const FaultSpec& fault, StopKind how);
  void restart(ProcessId id);
  void record_durable_baseline(NodeRun& n);
  int64_t lose_unsynced_writes(NodeRun& n);
  void watch_restart(ProcessId id, int64_t give_up_ns);
  void arm_restart(ProcessId id);
  void step_clock(ProcessId id, int64_t delta_ns);
  void pause(ProcessId id, bool stop);
  bool idle() const;
  void stop_all();

  NodeRun* node(ProcessId id);
  ClientRun* client(ProcessId id);
  const DriverSpec* driver_for(const ClientSpec& client) const;
  Instant stamp(const json& event, const char* key) const;

  const Scenario& scenario_;
  RealOptions options_;
  Loop loop_;
  Network network_;
  std::unique_ptr<Fabric> fabric_;
  std::string folder_;
  int64_t t0_ns_ = 0;
  int64_t setup_started_ns_ = 0;
  std::vector<std::unique_ptr<NodeRun>> nodes_;
  std::vector<std::unique_ptr<SentinelRun>> sentinels_;
  std::vector<std::unique_ptr<ClientRun>> clients_;
  std::map<std::string, ProcessId> ids_;
  std::vector<ProcessInfo> infos_;
  std::vector<ProcessClock> clocks_;
  std::unique_ptr<RegisterStore> registers_;
  std::unique_ptr<CounterStore> counter_;
  int64_t oracle_token_ = 0;
  History history_;
  std::vector<StoryEvent> story_;
  std::vector<RunEvent> run_events_;
  std::map<std::size_t, std::size_t> partitions_;        // fault index -> the network's rule
  std::map<std::size_t, std::size_t> partition_events_;  // fault index -> its event, once begun
  int64_t last_scheduled_ms_ = 0;
  struct PendingRestart {
    ClockKind clock = ClockKind::monotonic;
    Instant local_deadline;
    std::optional<uint64_t> timer;
    bool armed = false;
    int64_t keys_before = -1;
  };
  std::map<ProcessId, PendingRestart> restarts_;
  std::vector<ActionTiming> timings_;
  std::vector<ActionTiming> failover_events_;  // each sentinel event and its true time
  std::vector<std::string> driver_notes_;
  std::vector<std::string> protocol_errors_;
  FaultStage fault_stage_{*this};
  struct PendingEvent {
    int64_t stamp = 0;
    uint64_t sequence = 0;
    ProcessId client = 0;
    int generation = 0;
    json event;
    std::string line;
  };
  std::vector<PendingEvent> pending_;
  uint64_t sequence_ = 0;
  uint64_t events_ = 0;
  std::string stop_ = "idle";
  bool duration_reached_ = false;
};

const DriverSpec* RealWorld::driver_for(const ClientSpec& client) const {
  return driver_of(options_.drivers, client);
}

NodeRun* RealWorld::node(ProcessId id) {
  for (auto& n : nodes_)
    if (n->id == id) return n.get();
  return nullptr;
}

ClientRun* RealWorld::client(ProcessId id) {
  for (auto& c : clients_)
    if (c->id == id) return c.get();
  return nullptr;
}

std::vector<ProcessId> RealWorld::ids_of(const std::vector<std::string>& names) const {
  std::vector<ProcessId> out;
  for (const std::string& name : names)
    out.push_back(id_of(name));
  std::sort(out.begin(), out.end());
  return out;
}

void RealWorld::tell(ProcessId process, StoryKind kind, std::string text, uint64_t grant_id) {
  const Instant at = t0_ns_ == 0 ? Instant::zero() : true_now();
  const ProcessClock& clock = clocks_.at(process);
  story_.push_back(StoryEvent{.at = at,
                              .process = process,
                              .wall = clock.wall_at(at),
                              .monotonic = clock.monotonic_at(at),
                              .kind = kind,
                              .text = std::move(text),
                              .grant_id = grant_id});
}

void RealWorld::record(RunEvent event) {
  event.at = t0_ns_ == 0 ? Instant::zero() : true_now();
  if (std::optional<StoryText> line = run_event_story(event)) {
    tell(event.process, line->kind, std::move(line->text));
    story_.back().event = run_events_.size();
  }
  run_events_.push_back(std::move(event));
}

void RealWorld::timed(const std::string& what, int64_t scheduled_ms, bool step) {
  const int64_t late_ns = monotonic_ns() - real_time_of_ms(scheduled_ms);
  timings_.push_back({what, scheduled_ms, late_ns / 1000, step});
}

Instant RealWorld::stamp(const json& event, const char* key) const {
  const int64_t ns = event.contains(key) ? event.at(key).get<int64_t>() : monotonic_ns();
  return Instant::from_ns(std::max<int64_t>(0, ns - t0_ns_));
}

// ---- set-up ----

std::optional<std::string> RealWorld::start_node(NodeRun& n) {
  const NodeSpec& spec = *n.spec;
  std::vector<std::string> argv = {options_.redis_server,
                                   "--port",
                                   std::to_string(n.port),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   n.folder,
                                   "--daemonize",
                                   "no",
                                   "--protected-mode",
                                   "no",
                                   "--logfile",
                                   "",
                                   "--dbfilename",
                                   "dump.rdb"};
  if (spec.persistence.mode == PersistenceMode::rdb) {
    argv.insert(
        argv.end(),
        {"--save",
         std::to_string(std::max<int64_t>(1, spec.persistence.rdb_interval_ms / 1000)) + " 1"});
  } else {
    argv.insert(argv.end(), {"--save", ""});
  }
  if (spec.persistence.mode == PersistenceMode::aof) {
    const char* fsync = spec.persistence.appendfsync == AppendFsync::always     ? "always"
                        : spec.persistence.appendfsync == AppendFsync::everysec ? "everysec"
                                                                                : "no";
    argv.insert(argv.end(), {"--appendonly", "yes", "--appendfsync", fsync});
  } else {
    argv.insert(argv.end(), {"--appendonly", "no"});
  }
  if (n.announced > 0) {
    // Redis's 5 s diskless-sync delay holds every full resync (the model's too); the initial
    // syncs before time zero, which the simulator starts from done, go at once.
    argv.insert(argv.end(), {"--repl-diskless-sync-delay", t0_ns_ == 0 ? "0" : "5"});
    // Every node announces its proxy, so that a sentinel or a node told to replicate it reaches
    // it through the harness's network (replica-announce-* apply whenever it is a replica).
    argv.insert(argv.end(), {"--replica-announce-ip", "127.0.0.1", "--replica-announce-port",
                             std::to_string(n.announced), "--replica-priority",
                             std::to_string(spec.replica_priority)});
  }
  if (spec.role == "replica") {
    for (const auto& master : nodes_) {
      if (master->spec->name == spec.replica_of) {
        argv.insert(argv.end(), {"--replicaof", "127.0.0.1", std::to_string(master->announced)});
      }
    }
  }
  if (spec.min_replicas_to_write > 0) {
    argv.insert(argv.end(),
                {"--min-replicas-to-write", std::to_string(spec.min_replicas_to_write),
                 "--min-replicas-max-lag", std::to_string(spec.min_replicas_max_lag_s)});
  }
  SpawnOptions spawn{.argv = argv,
                     .environment = {{"LD_PRELOAD", options_.shim_library},
                                     {"REDLOCK_SIM_CLOCK_FILE", n.clock_file.path()},
                                     {"REDLOCK_SIM_FSYNC_LOG", n.fsync_log}},
                     .log_path = n.folder + "/redis.log"};
  if (auto error = n.process.start(spawn)) return "node " + spec.name + ": " + *error;
  n.paused = false;
  return std::nullopt;
}

std::optional<std::string> RealWorld::wait_until_ready(NodeRun& n, int timeout_ms) {
  const int64_t until = monotonic_ns() + int64_t{timeout_ms} * 1'000'000;
  while (monotonic_ns() < until) {
    if (n.process.exited()) break;
    if (options_.interrupted != nullptr && *options_.interrupted != 0) return "interrupted";
    if (auto reply = loopback_command(n.port, {"PING"}, 200); reply && *reply == "+PONG\r\n") {
      return std::nullopt;
    }
    ::usleep(5'000);
  }
  std::string log;
  std::ifstream in(n.folder + "/redis.log");
  std::string line;
  while (std::getline(in, line))
    log = line;  // the last line says why, usually
  return "node " + n.spec->name +
         ": redis-server did not answer on 127.0.0.1:" + std::to_string(n.port) +
         (log.empty() ? "" : " (its log: " + log + ")");
}

std::optional<ProcessId> RealWorld::identify(int accepted_fd) const {
  std::vector<pid_t> pids;
  std::vector<ProcessId> ids;
  for (const auto& n : nodes_) {
    pids.push_back(n->process.pid());
    ids.push_back(n->id);
  }
  for (const auto& s : sentinels_) {
    pids.push_back(s->process.pid());
    ids.push_back(s->id);
  }
  for (const auto& c : clients_) {
    pids.push_back(c->process.pid());
    ids.push_back(c->id);
  }
  const std::optional<pid_t> pid = loopback_peer_pid(accepted_fd, pids);
  if (!pid) return std::nullopt;
  for (std::size_t i = 0; i < pids.size(); ++i)
    if (pids[i] == *pid) return ids[i];
  return std::nullopt;
}

std::optional<std::string> RealWorld::start_sentinel(SentinelRun& s) {
  const FailoverSpec& failover = scenario_.failover;
  const NodeRun* master = node(id_of(failover.master));
  const std::string config_path = s.folder + "/sentinel.conf";
  {
    std::ofstream config(config_path);
    config << "port " << s.port << "\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\n"
           << "logfile \"\"\ndir " << s.folder << "\n"
           << "sentinel announce-ip 127.0.0.1\nsentinel announce-port " << s.announced << "\n"
           << "sentinel monitor " << failover.master_name << " 127.0.0.1 " << master->announced
           << " " << failover.quorum << "\n"
           << "sentinel down-after-milliseconds " << failover.master_name << " "
           << failover.down_after_ms
           << "\n"
           // The model's election timeout (sim/replication/sentinel.hpp).
           << "sentinel failover-timeout " << failover.master_name << " 10000\n"
           << "sentinel parallel-syncs " << failover.master_name << " 1\n";
    if (!config) return "cannot write the configuration of sentinel " + s.name;
  }
  // No clock shim: Sentinel enters TILT mode for 30 s when its wall clock moves back.
  SpawnOptions spawn{.argv = {options_.redis_server, config_path, "--sentinel"},
                     .log_path = s.folder + "/sentinel.log"};
  if (auto error = s.process.start(spawn)) return "sentinel " + s.name + ": " + *error;
  return std::nullopt;
}

namespace {

// The value after `field` in a flat RESP array of field/value bulk strings, or "".
std::string resp_field(const std::string& reply, const std::string& field) {
  const std::string marker = "\r\n" + field + "\r\n";
  const std::size_t at = reply.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t length_end = reply.find("\r\n", at + marker.size());
  if (length_end == std::string::npos) return "";
  const std::size_t value_end = reply.find("\r\n", length_end + 2);
  if (value_end == std::string::npos) return "";
  return reply.substr(length_end + 2, value_end - length_end - 2);
}

}  // namespace

// Replicas in sync with their masters, and every sentinel knowing every replica and every other
// sentinel: the state the simulator starts from at true time zero.
std::optional<std::string> RealWorld::wait_for_group(int timeout_ms) {
  const int64_t until = monotonic_ns() + int64_t{timeout_ms} * 1'000'000;
  std::size_t replicas = 0;
  for (const auto& n : nodes_)
    replicas += n->spec->role == "replica" && n->spec->replica_of == scenario_.failover.master;
  std::string waiting;
  while (monotonic_ns() < until) {
    if (options_.interrupted != nullptr && *options_.interrupted != 0) return "interrupted";
    waiting.clear();
    for (const auto& n : nodes_) {
      if (n->spec->role != "replica") continue;
      const auto info = loopback_command(n->port, {"INFO", "replication"}, 200);
      if (!info || info->find("master_link_status:up") == std::string::npos) {
        waiting = "replica " + n->spec->name + " to sync with " + n->spec->replica_of;
        break;
      }
    }
    for (const auto& s : sentinels_) {
      if (!waiting.empty() || !scenario_.failover.enabled) break;
      const auto master =
          loopback_command(s->port, {"SENTINEL", "MASTER", scenario_.failover.master_name}, 200);
      if (!master || resp_field(*master, "num-slaves") != std::to_string(replicas) ||
          resp_field(*master, "num-other-sentinels") != std::to_string(sentinels_.size() - 1)) {
        waiting = "sentinel " + s->name + " to discover the replicas and the other sentinels";
      }
    }
    if (waiting.empty()) return std::nullopt;
    loop_.run_once(20'000'000);  // the proxies carry the replication and the sentinels' links
  }
  return "gave up waiting for " + waiting + " (" + std::to_string(timeout_ms / 1000) + " s)";
}

namespace {

// A real sentinel's event channel as the model's cluster event, for the events the model tells.
std::optional<ClusterEventKind> sentinel_event_kind(const std::string& channel) {
  static const std::map<std::string, ClusterEventKind> kinds = [] {
    std::map<std::string, ClusterEventKind> out;
    for (const ClusterEventKind kind :
         {ClusterEventKind::sdown, ClusterEventKind::sdown_cleared, ClusterEventKind::odown,
          ClusterEventKind::try_failover, ClusterEventKind::vote_for_leader,
          ClusterEventKind::elected_leader, ClusterEventKind::selected_slave,
          ClusterEventKind::switch_master, ClusterEventKind::convert_to_slave,
          ClusterEventKind::failover_abort_no_good_slave,
          ClusterEventKind::failover_abort_not_elected, ClusterEventKind::promoted_slave}) {
      out.emplace(cluster_event_name(kind), kind);
    }
    return out;
  }();
  const auto it = kinds.find(channel);
  if (it == kinds.end()) return std::nullopt;
  return it->second;
}

// What a restarted node loaded its keys from, in the model's words: its AOF when it has one, its
// RDB file when one was written, else nothing.
std::string load_source(const NodeRun& n) {
  if (n.spec->persistence.mode == PersistenceMode::aof) return "aof";
  if (n.spec->persistence.mode == PersistenceMode::rdb &&
      std::filesystem::exists(std::filesystem::path(n.folder) / "dump.rdb")) {
    return "rdb";
  }
  return "nothing";
}

}  // namespace

// "127.0.0.1 20005" and "127.0.0.1:20005" read as the name of the node or sentinel announced
// there, so that a sentinel's event reads as the simulator's does.
std::string RealWorld::names_for_addresses(const std::string& text) const {
  std::map<std::string, std::string> names;
  for (const auto& n : nodes_)
    names[std::to_string(n->announced)] = n->spec->name;
  for (const auto& s : sentinels_)
    names[std::to_string(s->announced)] = s->name;
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;)
    words.push_back(word);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    if (word == "127.0.0.1" && i + 1 < words.size() && names.count(words[i + 1]) != 0) {
      word = names[words[++i]];
    } else if (word.rfind("127.0.0.1:", 0) == 0 && names.count(word.substr(10)) != 0) {
      word = names[word.substr(10)];
    }
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

void RealWorld::on_sentinel_event(SentinelRun& s) {
  char chunk[8192];
  const ssize_t n = ::recv(s.events_fd, chunk, sizeof(chunk), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {
    loop_.unwatch(s.events_fd);
    ::close(s.events_fd);
    s.events_fd = -1;
    return;
  }
  s.events.append(chunk, static_cast<std::size_t>(n));
  while (const auto length = resp_frame_length(s.events)) {
    const std::vector<std::string> words = resp_command_words(s.events.substr(0, *length));
    s.events.erase(0, *length);
    // ["pmessage", "*", channel, payload]; what happened before time zero is set-up.
    if (words.size() != 4 || words[0] != "pmessage" || t0_ns_ == 0) continue;
    const std::string& channel = words[2];
    if (channel == "+sentinel" || channel == "+slave" || channel == "+reboot" ||
        channel.rfind("__", 0) == 0) {
      continue;
    }
    const std::string text = names_for_addresses(words[3]);
    failover_events_.push_back({channel + " " + s.name, true_now().ms_floor(), 0});
    // The events the model tells go into the run's event log (probes, the HTML's failover
    // marks); Sentinel's other events are story lines only.
    if (const std::optional<ClusterEventKind> kind = sentinel_event_kind(channel)) {
      // A promotion is drawn on the promoted node's lane, as the model's is ("slave
      // 127.0.0.1:<port> 127.0.0.1 <port> @ <group> ..." names it).
      ProcessId about = s.id;
      if (*kind == ClusterEventKind::promoted_slave) {
        std::istringstream in(words[3]);
        std::string role, address;
        in >> role >> address;
        for (const auto& n : nodes_) {
          if (address == "127.0.0.1:" + std::to_string(n->announced)) about = n->id;
        }
      }
      record(RunEvent{.process = about,
                      .kind = RunEventKind::cluster,
                      .cluster = ClusterEvent{.kind = *kind, .detail = text}});
    } else {
      tell(s.id, StoryKind::cluster, channel + ": " + text);
    }
  }
}

std::optional<std::string> RealWorld::spawn_client(ClientRun& c) {
  c.config_json["random_skip"] = c.random_words;
  const std::string config = c.config_json.dump();
  SpawnOptions spawn{.argv = {options_.client_program, "client", "--config", config},
                     .environment = {{"LD_PRELOAD", options_.shim_library},
                                     {"REDLOCK_SIM_CLOCK_FILE", c.clock_file.path()}},
                     .log_path = folder_ + "/client-" + c.spec->name + ".log",
                     .pipe_stdin = true,
                     .pipe_stdout = true};
  if (const DriverSpec* driver = driver_for(*c.spec)) {
    spawn.argv = driver->argv;
    spawn.argv.insert(spawn.argv.end(), {"--config", config});
    spawn.working_directory = driver->working_directory;
  }
  if (auto error = c.process.start(spawn)) return "client " + c.spec->name + ": " + *error;
  c.alive = true;
  c.ready = false;
  c.busy = false;
  c.output.clear();
  ++c.generation;
  const int fd = c.process.stdout_fd();
  ClientRun* pointer = &c;
  loop_.watch(fd, [this, pointer](short) { on_client_output(*pointer); });
  return std::nullopt;
}

std::optional<std::string> RealWorld::start() {
  setup_started_ns_ = monotonic_ns();
  // Under $TMPDIR (or /tmp): a test points TMPDIR at its own folder to check what is left.
  std::error_code no_temp;
  std::string pattern = std::filesystem::temp_directory_path(no_temp).string();
  if (no_temp || pattern.empty()) pattern = "/tmp";
  pattern += "/redlock-real-XXXXXX";
  const char* made = ::mkdtemp(pattern.data());
  if (made == nullptr)
    return std::string("cannot make a temporary folder: ") + std::strerror(errno);
  folder_ = made;
  // Process ids as the simulator numbers them: nodes, resource, counter, clients.
  for (const NodeSpec& spec : scenario_.nodes) {
    auto n = std::make_unique<NodeRun>();
    n->spec = &spec;
    n->id = static_cast<ProcessId>(infos_.size());
    ids_[spec.name] = n->id;
    infos_.push_back({spec.name, "node"});
    nodes_.push_back(std::move(n));
  }
  if (scenario_.failover.enabled) {
    for (const std::string& name : scenario_.failover.sentinels) {
      auto s = std::make_unique<SentinelRun>();
      s->name = name;
      s->id = static_cast<ProcessId>(infos_.size());
      ids_[name] = s->id;
      infos_.push_back({name, "sentinel"});
      sentinels_.push_back(std::move(s));
    }
  }
  std::optional<ProcessId> resource_id;
  if (scenario_.resource.enabled) {
    resource_id = static_cast<ProcessId>(infos_.size());
    ids_[scenario_.resource.name] = *resource_id;
    infos_.push_back({scenario_.resource.name, "resource"});
    registers_ = std::make_unique<RegisterStore>(
        RegisterStore::Options{.fencing = scenario_.resource.fencing,
                               .reject_equal_token = scenario_.resource.reject_equal_token});
  }
  oracle_token_ = scenario_.resource.token_start;
  const bool wants_counter =
      std::any_of(scenario_.clients.begin(), scenario_.clients.end(), [](const ClientSpec& c) {
        return std::find(c.nodes.begin(), c.nodes.end(), "counter") != c.nodes.end();
      });
  if (wants_counter && ids_.count("counter") == 0) {
    ids_["counter"] = static_cast<ProcessId>(infos_.size());
    infos_.push_back({"counter", "counter"});
    counter_ = std::make_unique<CounterStore>();
  }
  for (const ClientSpec& spec : scenario_.clients) {
    auto c = std::make_unique<ClientRun>();
    c->spec = &spec;
    c->id = static_cast<ProcessId>(infos_.size());
    ids_[spec.name] = c->id;
    infos_.push_back({spec.name, "client"});
    clients_.push_back(std::move(c));
  }
  clocks_.assign(infos_.size(), ProcessClock());
  for (std::size_t id = 0; id < infos_.size(); ++id)
    network_.name_process(static_cast<ProcessId>(id), infos_[id].name);

  // Nodes: a real redis-server each, with the clock shim.
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    NodeRun& n = *nodes_[i];
    n.port = options_.port_base ? *options_.port_base + static_cast<int>(i) : free_loopback_port();
    if (n.port <= 0 || n.port > 65535) return "no free port for node " + n.spec->name;
    if (loopback_port_open(n.port)) {
      return "port " + std::to_string(n.port) + " on 127.0.0.1 is in use (node " + n.spec->name +
             ")";
    }
    n.folder = folder_ + "/" + n.spec->name;
    std::filesystem::create_directories(n.folder);
    n.fsync_log = folder_ + "/fsync-" + n.spec->name + ".log";
    if (!n.clock_file.open(folder_ + "/clock-" + n.spec->name, 0)) {
      return "cannot write the clock file of node " + n.spec->name;
    }
  }
  for (auto& s : sentinels_) {
    s->port = free_loopback_port();
    if (s->port <= 0) return "no free port for sentinel " + s->name;
    s->folder = folder_ + "/" + s->name;
    std::filesystem::create_directories(s->folder);
  }

  // The network, exactly as the runner sets up the simulated one.
  network_.set_default_delay(scenario_.network.delay);
  for (const LinkSpec& link : scenario_.network.links) {
    const ProcessId from = id_of(link.from);
    const ProcessId to = id_of(link.to);
    for (int direction = 0; direction < (link.both_ways ? 2 : 1); ++direction) {
      const ProcessId a = direction == 0 ? from : to;
      const ProcessId b = direction == 0 ? to : from;
      if (link.delay) network_.set_link_delay(a, b, *link.delay);
      if (link.loss_numerator > 0) {
        network_.set_link_loss(a, b, link.loss_numerator, link.loss_denominator);
      }
    }
  }
  fabric_ = std::make_unique<Fabric>(loop_, network_, 0);
  // What nodes and sentinels reach each other at (replication, monitoring, hello messages): a
  // proxy per process that tells who connected by the connecting process's pid.
  const bool group = scenario_.failover.enabled ||
                     std::any_of(scenario_.nodes.begin(), scenario_.nodes.end(),
                                 [](const NodeSpec& n) { return n.role == "replica"; });
  if (group) {
    const auto identify = [this](int fd) { return this->identify(fd); };
    for (auto& n : nodes_) {
      n->announced = fabric_->listen_announced(n->id, n->port, identify);
      if (n->announced <= 0) return "cannot open the announced port of node " + n->spec->name;
    }
    for (auto& s : sentinels_) {
      s->announced = fabric_->listen_announced(s->id, s->port, identify);
      if (s->announced <= 0) return "cannot open the announced port of sentinel " + s->name;
    }
  }

  // Clients: their proxies, then their processes.
  for (auto& c : clients_) {
    const ClientSpec& spec = *c->spec;
    json nodes = json::array();
    const FailoverSpec& failover = scenario_.failover;
    bool follows = false;
    for (const std::string& name : spec.nodes) {
      // A client naming the failover group starts at its master and follows the sentinels'
      // +switch-master (as the simulated client does).
      const bool is_group = failover.enabled && name == failover.master_name;
      follows = follows || is_group;
      const ProcessId to = id_of(is_group ? failover.master : name);
      int port = -1;
      if (name == "counter" && counter_) {
        port =
            fabric_->listen_service(c->id, to, [this](const Command& command, ProcessId, Instant) {
              return counter_->apply(command);
            });
      } else {
        port = fabric_->listen_upstream(c->id, to, node(to)->port);
      }
      if (port <= 0) return "cannot open a proxy port for " + spec.name + " -> " + name;
      nodes.push_back({{"name", name}, {"host", "127.0.0.1"}, {"port", port}});
    }
    json params = json::object();
    for (const auto& [key, value] : spec.params)
      params[key] = std::visit([](const auto& v) { return json(v); }, value);
    json config{{"client", spec.name}, {"profile", spec.profile},
                {"lock", spec.lock},   {"watchdog", spec.watchdog},
                {"params", params},    {"seed", scenario_.seed},
                {"nodes", nodes}};
    if (follows) {
      // The sentinels to subscribe to, and each member of the group by the address the
      // sentinels announce it at, reached through this client's own link to it.
      json group_json{{"name", failover.master_name}};
      for (const auto& s : sentinels_) {
        const int port = fabric_->listen_upstream(c->id, s->id, s->port);
        if (port <= 0) return "cannot open a proxy port for " + spec.name + " -> " + s->name;
        group_json["sentinels"].push_back(
            {{"name", s->name}, {"host", "127.0.0.1"}, {"port", port}});
      }
      for (const auto& n : nodes_) {
        const int port = fabric_->listen_upstream(c->id, n->id, n->port);
        if (port <= 0) return "cannot open a proxy port for " + spec.name + " -> " + n->spec->name;
        group_json["members"].push_back({{"name", n->spec->name},
                                         {"announced", n->announced},
                                         {"host", "127.0.0.1"},
                                         {"port", port}});
      }
      config["group"] = group_json;
    }
    if (resource_id) {
      const int port = fabric_->listen_service(
          c->id, *resource_id, [this](const Command& command, ProcessId from, Instant at) {
            return registers_->apply(command, from, at);
          });
      if (port <= 0) return "cannot open the resource port for " + spec.name;
      config["resource"] = {{"name", scenario_.resource.name},
                            {"fencing", fencing_mode_name(scenario_.resource.fencing)},
                            {"host", "127.0.0.1"},
                            {"port", port}};
    }
    c->config_json = config;
    if (!c->clock_file.open(folder_ + "/clock-" + spec.name, 0)) {
      return "cannot write the clock file of client " + spec.name;
    }
  }
  // With replicas or sentinels the servers start first: replicas must sync, sentinels discover
  // each other (hello messages every 2 s), and clients subscribe to the sentinels before they
  // say `ready`. Their wall clocks are set forward to a whole second at time zero instead (the
  // everysec alignment below does not apply to them).
  if (group) {
    for (auto& n : nodes_) {
      if (auto error = start_node(*n)) return error;
    }
    for (auto& n : nodes_) {
      if (auto error = wait_until_ready(*n, 5'000)) return error;
    }
    for (auto& s : sentinels_) {
      if (auto error = start_sentinel(*s)) return error;
    }
    for (auto& s : sentinels_) {
      const int64_t until = monotonic_ns() + 5'000'000'000;
      while (monotonic_ns() < until && !loopback_command(s->port, {"PING"}, 200))
        loop_.run_once(10'000'000);
      s->events_fd = connect_loopback(s->port, 500);
      const std::string subscribe = encode_command({"PSUBSCRIBE", "*"});
      if (s->events_fd < 0 || ::send(s->events_fd, subscribe.data(), subscribe.size(),
                                     MSG_NOSIGNAL) != static_cast<ssize_t>(subscribe.size())) {
        return "sentinel " + s->name + " did not answer on 127.0.0.1:" + std::to_string(s->port);
      }
      SentinelRun* pointer = s.get();
      loop_.watch(s->events_fd, [this, pointer](short) { on_sentinel_event(*pointer); });
    }
    if (auto error = wait_for_group(20'000)) return error;
    for (auto& n : nodes_)
      record_durable_baseline(*n);
  }
  for (auto& c : clients_) {
    if (auto error = spawn_client(*c)) return error;
  }
  // Every client says `ready` before time starts.
  const int64_t ready_by = monotonic_ns() + 10'000'000'000;
  while (monotonic_ns() < ready_by) {
    bool all = true;
    for (auto& c : clients_) {
      if (!c->alive) {
        // Its last word on standard error says why (a driver refusing a parameter, say).
        std::ifstream log(folder_ + "/client-" + c->spec->name + ".log");
        std::string line, last;
        while (std::getline(log, line))
          if (!line.empty()) last = line;
        return "client " + c->spec->name + " exited before it was ready" +
               (last.empty() ? std::string() : ": " + last);
      }
      all = all && c->ready;
    }
    if (all) break;
    loop_.run_once(10'000'000);
    dispatch_events();
    if (options_.interrupted != nullptr && *options_.interrupted != 0) return "interrupted";
  }
  for (auto& c : clients_) {
    if (!c->ready) return "client " + c->spec->name + " did not start within 10 s";
  }

  // The nodes start last, just before time does (a client's start, a JVM's say, can take
  // seconds). Their wall clocks read W + 100 ms now (W a whole second) and are set back to read
  // W (plus their offset) at true time zero, as the simulator's clocks start on a whole second.
  // Redis acts on whole seconds of its wall clock (the everysec fsync is due once the second
  // has moved on from the last one, which starts as the second it started in): so it started
  // in second W, and both worlds tick at the same true instants.
  const int64_t second = 1'000'000'000;
  int64_t whole_second = (realtime_ns() / second + 1) * second;
  if (!group) {
    for (auto& n : nodes_)
      n->clock_file.set(whole_second + second / 10 - realtime_ns());
    for (auto& n : nodes_) {
      if (auto error = start_node(*n)) return error;
    }
    for (auto& n : nodes_) {
      if (auto error = wait_until_ready(*n, 5'000)) return error;
    }
    for (auto& n : nodes_)
      record_durable_baseline(*n);
  }

  for (auto& c : clients_) {
    if (const DriverSpec* driver = driver_for(*c->spec)) {
      driver_notes_.push_back(c->spec->name + ": driver " + driver->name);
    }
  }
  for (auto& n : nodes_) {
    if (n->announced > 0)
      loopback_command(n->port, {"CONFIG", "SET", "repl-diskless-sync-delay", "5"}, 500);
  }
  // Time starts: true time zero is now, plus a margin for scheduling.
  t0_ns_ = monotonic_ns() + 20'000'000;
  fabric_->set_start(t0_ns_);
  const int64_t realtime_at_t0 = realtime_ns() - monotonic_ns() + t0_ns_;
  if (group) whole_second = (realtime_at_t0 / second + 1) * second;
  // Every wall clock reads a whole second at true time zero, plus the process's own offset.
  const int64_t wall_zero = whole_second;
  for (std::size_t id = 0; id < infos_.size(); ++id) {
    int64_t offset_ms = 0;
    ClockFile* file = nullptr;
    if (NodeRun* n = node(static_cast<ProcessId>(id))) {
      offset_ms = n->spec->clock.offset_ms;
      file = &n->clock_file;
    }
    if (ClientRun* c = client(static_cast<ProcessId>(id))) {
      offset_ms = c->spec->clock.offset_ms;
      file = &c->clock_file;
    }
    const int64_t wall_at_t0 = wall_zero + offset_ms * 1'000'000;
    if (file != nullptr) file->set(wall_at_t0 - realtime_at_t0);
    clocks_[id] = ProcessClock(ProcessClock::Options{
        .true_start = Instant::zero(),
        .wall_at_start = Instant::from_ns(file != nullptr ? wall_at_t0 : realtime_at_t0),
        .monotonic_at_start = Instant::from_ns(t0_ns_)});
  }
  return std::nullopt;
}

// ---- clients: the script, driven one command at a time ----

void RealWorld::send(ClientRun& c, const std::string& line) {
  const std::string text = line + "\n";
  if (c.process.stdin_fd() < 0 || ::write(c.process.stdin_fd(), text.data(), text.size()) !=
                                      static_cast<ssize_t>(text.size())) {
    return;  // it died; its death is noticed on its output
  }
  c.busy = true;
}

void RealWorld::send_acquire(ClientRun& c) {
  c.acquire_call = history_.begin_acquire(c.id, c.spec->lock, true_now());
  send(c, "acquire");
}

void RealWorld::advance(ClientRun& c) {
  if (!c.alive || !c.ready || c.busy || c.finished || t0_ns_ == 0) return;
  if (c.spec->workload) {
    advance_workload(c);
  } else {
    advance_steps(c);
  }
}

void RealWorld::advance_steps(ClientRun& c) {
  const std::vector<StepSpec>& steps = c.spec->steps;
  if (c.step >= steps.size()) {
    c.finished = true;
    return;
  }
  const StepSpec& step = steps[c.step];
  if (step.at_ms && !c.wait_timer && true_now() < Instant::from_ms(*step.at_ms)) {
    ClientRun* pointer = &c;
    c.wait_timer =
        loop_.at(real_time_of_ms(*step.at_ms),
                 [this, pointer, at = *step.at_ms, name = std::string(step_kind_name(step.kind))] {
                   pointer->wait_timer.reset();
                   timed("step " + name + " " + pointer->spec->name, at, true);
                   advance(*pointer);
                 });
    return;
  }
  if (c.wait_timer) return;
  switch (step.kind) {
    case StepKind::acquire:
      send_acquire(c);
      break;
    case StepKind::release:
      send(c, "release");
      break;
    case StepKind::extend:
      send(c, "extend");
      break;
    case StepKind::read:
    case StepKind::increment:
      send(c, "read " + std::to_string(step.timeout_ms));
      break;
    case StepKind::write:
      send(c, "write " + std::to_string(step.timeout_ms) +
                  (step.value ? " " + std::to_string(*step.value) : std::string()));
      break;
    case StepKind::sleep:
      send(c, "sleep " + std::to_string(step.duration_ms));
      break;
    case StepKind::stop_if_expired:
      send(c, "check");
      break;
    case StepKind::command:  // refused before the run (unstageable_reason)
      break;
  }
}

void RealWorld::advance_workload(ClientRun& c) {
  const WorkloadSpec& w = *c.spec->workload;
  using Phase = ClientRun::Phase;
  switch (c.phase) {
    case Phase::start:
      if (!c.wait_timer && true_now() < Instant::from_ms(w.start_ms)) {
        ClientRun* pointer = &c;
        c.wait_timer = loop_.at(real_time_of_ms(w.start_ms), [this, pointer] {
          pointer->wait_timer.reset();
          pointer->phase = Phase::acquire;
          advance(*pointer);
        });
        return;
      }
      if (c.wait_timer) return;
      c.phase = Phase::acquire;
      [[fallthrough]];
    case Phase::acquire:
      if (w.iterations_max != 0 && c.iteration >= w.iterations_max) {
        c.finished = true;
        return;
      }
      send_acquire(c);
      return;
    case Phase::read:
      send(c, "read 1000");
      return;
    case Phase::work:
      send(c, "sleep " + std::to_string(w.work_ms));
      return;
    case Phase::write:
      send(c, "write 1000");
      return;
    case Phase::release:
      send(c, "release");
      return;
    case Phase::think:
      send(c, "sleep " + std::to_string(w.think_ms));
      return;
  }
}

// Reads what the client wrote; complete lines wait in `pending_` until dispatch_events() hands
// them out in the order they were stamped (pipes read in one wake-up are not in time order).
// Returns false at the end of its output (the process is gone).
bool RealWorld::read_client_output(ClientRun& c) {
  while (true) {
    char chunk[65536];
    const ssize_t n = ::read(c.process.stdout_fd(), chunk, sizeof(chunk));
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    c.output.append(chunk, static_cast<std::size_t>(n));
    std::size_t end = 0;
    while ((end = c.output.find('\n')) != std::string::npos) {
      std::string line = c.output.substr(0, end);
      c.output.erase(0, end + 1);
      json event = json::parse(line, nullptr, false);
      int64_t stamp = monotonic_ns();
      if (!event.is_discarded() && event.is_object() && event.contains("mono_ns") &&
          event.at("mono_ns").is_number_integer()) {
        stamp = event.at("mono_ns").get<int64_t>();
      }
      pending_.push_back(
          {stamp, sequence_++, c.id, c.generation, std::move(event), std::move(line)});
    }
  }
}

void RealWorld::on_client_output(ClientRun& c) {
  if (!read_client_output(c)) {
    loop_.unwatch(c.process.stdout_fd());
    dispatch_events();
    client_died(c);
  }
}

void RealWorld::dispatch_events() {
  std::sort(pending_.begin(), pending_.end(), [](const PendingEvent& a, const PendingEvent& b) {
    return a.stamp != b.stamp ? a.stamp < b.stamp : a.sequence < b.sequence;
  });
  std::vector<PendingEvent> events;
  events.swap(pending_);
  for (PendingEvent& e : events) {
    ClientRun* c = client(e.client);
    if (c == nullptr || c->generation != e.generation) continue;  // from an earlier life
    ++events_;
    try {
      if (e.event.is_discarded() || !e.event.is_object() || !e.event.contains("event") ||
          !e.event.at("event").is_string()) {
        throw std::runtime_error("not a JSON event object");
      }
      if (e.event.contains("random_words") && e.event.at("random_words").is_number_unsigned()) {
        c->random_words = std::max(c->random_words, e.event.at("random_words").get<uint64_t>());
      }
      on_client_event(*c, e.event);
    } catch (const std::exception& error) {
      // A malformed line from a driver: said in the story and the report, then left alone.
      const std::string text = "malformed event from " + c->spec->name + " (" + error.what() +
                               "): " + e.line.substr(0, 200);
      tell(c->id, StoryKind::error, text);
      protocol_errors_.push_back(text);
    }
  }
}

void RealWorld::client_died(ClientRun& c) {
  // Its process ended (killed by a fault, or crashed by itself): a dead process believes nothing.
  if (!c.alive) return;
  c.alive = false;
  c.busy = false;
  c.watchdogs = 0;
  if (c.wait_timer) loop_.cancel(*c.wait_timer);
  c.wait_timer.reset();
  const Instant now = t0_ns_ == 0 ? Instant::zero() : true_now();
  history_.end_grants_of(c.id, now, "crashed");
  history_.interrupt_acquires_of(c.id, now);
  c.acquire_call.reset();
  c.grant_id = 0;
  c.outer.clear();
  c.grant_by_lease.clear();
  c.holding = false;
  c.process.kill_and_reap();
}

namespace {
Deadline deadline_of(const json& d) {
  const std::string clock = d.value("clock", std::string("none"));
  if (clock == "none") return Deadline{};
  return Deadline{.clock = clock == "wall" ? ClockKind::wall : ClockKind::monotonic,
                  .at = Instant::from_ns(d.at("at_ns").get<int64_t>())};
}
}  // namespace

void RealWorld::on_client_event(ClientRun& c, const json& event) {
  const std::string kind = event.at("event").get<std::string>();
  const Instant at = stamp(event, "mono_ns");
  if (kind == "ready") {
    c.ready = true;
    advance(c);
    return;
  }
  if (kind == "note") {
    tell(c.id, StoryKind::attempt, event.value("text", std::string()), c.grant_id);
    return;
  }
  if (kind == "watchdog_started" || kind == "watchdog_stopped") {
    c.watchdogs += kind == "watchdog_started" ? 1 : -1;
    return;
  }
  if (kind == "renewed" || kind == "lost") {
    auto it = c.grant_by_lease.find(event.value("lease", uint64_t{0}));
    if (it == c.grant_by_lease.end()) return;
    GrantRecord& g = history_.grant(it->second);
    if (kind == "renewed") {
      g.deadlines.push_back({at, deadline_of(event.at("deadline")).at});
    } else {
      if (!g.ended_at) {
        g.ended_at = at;
        g.end_reason = "told the lock was lost: " + event.value("reason", std::string());
      }
      tell(c.id, StoryKind::lost,
           "learns the lock is lost (" + event.value("reason", std::string()) + ")", it->second);
    }
    return;
  }
  if (kind == "error") {
    tell(c.id, StoryKind::error, event.value("text", std::string()));
    c.busy = false;
    c.finished = true;
    return;
  }
  static const char* const results[] = {"granted",  "acquire_failed", "released", "release_failed",
                                        "extended", "extend_failed",  "read",     "write",
                                        "slept",    "checked"};
  if (std::find(std::begin(results), std::end(results), kind) == std::end(results)) {
    return;  // an event this harness does not know (a driver's own): not a command's result
  }
  // The rest answer the command that is out.
  c.busy = false;
  const Instant started = stamp(event, "start_mono_ns");
  bool step_done = true;
  using Phase = ClientRun::Phase;
  const bool workload = c.spec->workload.has_value();
  if (kind == "granted") {
    const Deadline deadline = deadline_of(event.at("deadline"));
    std::optional<int64_t> fencing;
    if (scenario_.resource.token_source == FencingTokenSource::oracle) {
      fencing = ++oracle_token_;
    } else if (scenario_.resource.token_source == FencingTokenSource::lock &&
               event.contains("fencing_token")) {
      fencing = event.at("fencing_token").get<int64_t>();
    }
    GrantRecord record{.client = c.id,
                       .lock = c.spec->lock,
                       .granted_at = at,
                       .token = event.value("value", std::string()),
                       .fencing_token = fencing,
                       .clock = deadline.clock,
                       .deadlines = {{at, deadline.at}}};
    if (c.grant_id != 0) c.outer.push_back(c.grant_id);
    c.grant_id = history_.add_grant(std::move(record));
    c.grant_by_lease[event.value("lease", uint64_t{0})] = c.grant_id;
    if (c.acquire_call) {
      history_.set_acquire_start(*c.acquire_call, started);
      history_.end_acquire(*c.acquire_call, at, true, c.grant_id, event.value("attempts", 0u));
    }
    c.acquire_call.reset();
    send(c, "grant " + std::to_string(c.grant_id) +
                (fencing ? " " + std::to_string(*fencing) : std::string()));
    c.busy = false;
    std::string text = "granted '" + c.spec->lock + "' (grant " + std::to_string(c.grant_id) + ")";
    if (deadline.bounded()) {
      const Instant local = clocks_.at(c.id).read(deadline.clock, at);
      text += ", validity " + ms_text((deadline.at - local).ms_floor()) + " on its " +
              (deadline.clock == ClockKind::wall ? "wall" : "monotonic") + " clock";
    } else {
      text += ", no deadline (held until released)";
    }
    if (fencing) text += ", fencing token " + std::to_string(*fencing);
    tell(c.id, StoryKind::grant, text, c.grant_id);
    if (workload) {
      c.holding = true;
      c.skip_write = false;
      const WorkloadSpec& w = *c.spec->workload;
      c.phase = scenario_.resource.enabled && w.touch_resource ? Phase::read
                : w.work_ms > 0                                ? Phase::work
                : w.release                                    ? Phase::release
                                                               : Phase::think;
    }
  } else if (kind == "acquire_failed") {
    if (c.acquire_call) {
      history_.set_acquire_start(*c.acquire_call, started);
      history_.end_acquire(*c.acquire_call, at, false, 0, event.value("attempts", 0u));
    }
    c.acquire_call.reset();
    tell(c.id, StoryKind::acquire,
         "failed to acquire '" + c.spec->lock + "' after " +
             std::to_string(event.value("attempts", 0u)) +
             " attempt(s): " + event.value("failure", std::string()));
    if (workload) c.phase = Phase::think;
  } else if (kind == "released" || kind == "release_failed") {
    if (c.grant_id != 0) {
      GrantRecord& g = history_.grant(c.grant_id);
      if (!g.ended_at) {
        g.ended_at = started;
        g.end_reason = "released";
      }
      c.grant_id = 0;
      if (!c.outer.empty()) {
        c.grant_id = c.outer.back();
        c.outer.pop_back();
      }
    }
    if (event.value("failure", std::string()) != "not held") {
      tell(c.id, StoryKind::release,
           kind == "released"
               ? "released (" + std::to_string(event.value("nodes", 0u)) + " node(s))"
               : "release failed: " + event.value("failure", std::string()));
    }
    if (workload) c.phase = Phase::think;
  } else if (kind == "extended" || kind == "extend_failed") {
    if (kind == "extended" && c.grant_id != 0) {
      history_.grant(c.grant_id).deadlines.push_back({at, deadline_of(event.at("deadline")).at});
      tell(c.id, StoryKind::extend,
           "extended on " + std::to_string(event.value("nodes", 0u)) + " node(s)");
    } else if (event.value("failure", std::string()) != "not held") {
      tell(c.id, StoryKind::extend, "extension failed: " + event.value("failure", std::string()));
      // The holder learns its extension failed: its hold ends here (as simulated).
      if (c.grant_id != 0) {
        GrantRecord& g = history_.grant(c.grant_id);
        if (!g.ended_at) {
          g.ended_at = at;
          g.end_reason = "told by a failed extension: " + event.value("failure", std::string());
        }
      }
    }
  } else if (kind == "read") {
    const bool ok = event.value("ok", false);
    tell(c.id, StoryKind::read,
         ok ? "reads " + std::to_string(event.value("value", int64_t{0}))
            : event.value("text", std::string("read failed")));
    if (!workload && ok && c.step < c.spec->steps.size() &&
        c.spec->steps[c.step].kind == StepKind::increment) {
      step_done = false;
      send(c, "write " + std::to_string(c.spec->steps[c.step].timeout_ms));
    }
    if (workload) {
      const WorkloadSpec& w = *c.spec->workload;
      // As the simulated workload: a failed read still holds the lock for work_ms, then
      // releases without writing.
      c.skip_write = !ok;
      c.phase = w.work_ms > 0 ? Phase::work
                : ok          ? Phase::write
                : w.release   ? Phase::release
                              : Phase::think;
    }
  } else if (kind == "write") {
    const int64_t value = event.value("value", int64_t{0});
    const bool acknowledged = event.value("acknowledged", false);
    if (acknowledged) {
      history_.add_write_ack({event.value("grant", uint64_t{0}), c.id, at});
      tell(c.id, StoryKind::write, "write " + std::to_string(value) + " acknowledged");
    } else {
      const std::string text = event.value("text", std::string());
      tell(c.id, StoryKind::write,
           "write " + std::to_string(value) +
               (text == "timeout" ? " unacknowledged (timeout)" : " refused: " + text));
    }
    if (workload) c.phase = c.spec->workload->release ? Phase::release : Phase::think;
  } else if (kind == "slept") {
    if (workload) {
      if (c.phase == Phase::work) {
        c.phase = c.holding && scenario_.resource.enabled && c.spec->workload->touch_resource &&
                          !c.skip_write
                      ? Phase::write
                      : (c.spec->workload->release ? Phase::release : Phase::think);
        c.skip_write = false;
      } else if (c.phase == Phase::think) {
        c.holding = false;
        ++c.iteration;
        c.phase = Phase::acquire;
      }
    }
  } else if (kind == "checked") {
    if (event.value("expired", false)) {
      tell(c.id, StoryKind::check, "its validity has passed: stops");
      c.finished = true;
      return;
    }
    tell(c.id, StoryKind::check, "its validity has not passed: goes on");
  }
  if (!workload && step_done) ++c.step;
  if (workload && kind == "release_failed") c.phase = Phase::think;
  advance(c);
}

// ---- faults ----

void RealWorld::step_clock(ProcessId id, int64_t delta_ns) {
  const Instant now = true_now();
  clocks_.at(id).step_wall(now, Duration::from_ns(delta_ns));
  if (NodeRun* n = node(id)) n->clock_file.set(n->clock_file.offset_ns() + delta_ns);
  if (ClientRun* c = client(id)) c->clock_file.set(c->clock_file.offset_ns() + delta_ns);
  if (restarts_.count(id) != 0) arm_restart(id);
}

void RealWorld::pause(ProcessId id, bool stop) {
  const int signal_number = stop ? SIGSTOP : SIGCONT;
  if (NodeRun* n = node(id)) {
    n->process.signal(signal_number);
    n->paused = stop;
  }
  if (ClientRun* c = client(id)) c->process.signal(signal_number);
}

void RealWorld::arm_restart(ProcessId id) {
  PendingRestart& pending = restarts_[id];
  if (!pending.armed) return;
  if (pending.timer) loop_.cancel(*pending.timer);
  const Instant at =
      clocks_.at(id).first_true_time_reaching(pending.clock, pending.local_deadline, true_now());
  last_scheduled_ms_ = std::max(last_scheduled_ms_, at.ms_floor() + 1);
  pending.timer = loop_.at(t0_ns_ + at.ns(), [this, id, at] {
    PendingRestart& p = restarts_[id];
    p.timer.reset();
    if (!p.armed) return;
    p.armed = false;
    timed("restart " + infos_[id].name, at.ms_floor());
    restart(id);
    record(RunEvent{.process = id, .kind = RunEventKind::supervisor_restart});
  });
}

void RealWorld::restart(ProcessId id) {
  if (NodeRun* n = node(id)) {
    if (n->process.running()) return;
    if (auto error = start_node(*n)) {
      tell(id, StoryKind::fault, "could not restart: " + *error);
      return;
    }
    watch_restart(id, monotonic_ns() + 5'000'000'000);
    return;
  }
  if (ClientRun* c = client(id)) {
    if (c->alive) return;
    // A restarted application runs its workload again; scripted steps do not replay (they
    // describe one life of the process), unless it crashed before it ever started.
    if (c->spec->workload) {
      c->finished = false;
      c->phase = ClientRun::Phase::start;
      c->iteration = 0;
    } else if (c->started) {
      c->finished = true;
    }
    c->started = true;
    if (auto error = spawn_client(*c)) tell(id, StoryKind::fault, "could not restart: " + *error);
  }
}

// Polls a restarted node until it answers (without blocking the loop: the other processes' timers
// go on), then asks what it loaded, for the key_lost_on_restart probe.
void RealWorld::watch_restart(ProcessId id, int64_t give_up_ns) {
  NodeRun* n = node(id);
  if (n == nullptr || !n->process.running()) return;
  if (!n->paused) {
    if (auto reply = loopback_command(n->port, {"PING"}, 50); reply && *reply == "+PONG\r\n") {
      PendingRestart& p = restarts_[id];
      if (p.keys_before <= 0) return;
      const std::optional<std::string> size = loopback_command(n->port, {"DBSIZE"}, 500);
      if (size && size->size() > 1 && (*size)[0] == ':') {
        const int64_t after = std::stoll(size->substr(1));
        record(RunEvent{
            .process = id,
            .kind = RunEventKind::cluster,
            .cluster = ClusterEvent{
                .kind = ClusterEventKind::restarted,
                .keys_loaded = static_cast<std::size_t>(after),
                .keys_before_stop = static_cast<std::size_t>(p.keys_before),
                .keys_lost = static_cast<std::size_t>(std::max<int64_t>(0, p.keys_before - after)),
                .load_source = load_source(*n)}});
      }
      return;
    }
  }
  if (monotonic_ns() > give_up_ns || !n->process.running() || n->process.exited()) {
    const std::string text = "node " + n->spec->name + " did not answer after its restart (see " +
                             "its redis.log with --keep-folder): it stays down";
    tell(id, StoryKind::fault, text);
    protocol_errors_.push_back(text);
    return;
  }
  loop_.at(monotonic_ns() + 2'000'000, [this, id, give_up_ns] { watch_restart(id, give_up_ns); });
}

namespace {
// inode -> size of every regular file under `folder`.
std::map<uint64_t, int64_t> file_sizes(const std::string& folder) {
  std::map<uint64_t, int64_t> sizes;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    struct stat info {};
    if (::stat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      sizes[info.st_ino] = info.st_size;
    }
  }
  return sizes;
}
}  // namespace

void RealWorld::record_durable_baseline(NodeRun& n) {
  // What the node wrote while starting, before the run, counts as on disk.
  n.durable_at_start = file_sizes(n.folder);
}

// After a power loss: every file of the node keeps only what was fsynced (by inode, the last
// size the shim logged) or was there before the run; a file never made durable is emptied.
// Directory entries (renames) are taken as durable. Returns how many bytes were cut.
int64_t RealWorld::lose_unsynced_writes(NodeRun& n) {
  std::map<uint64_t, int64_t> durable = n.durable_at_start;
  std::ifstream log(n.fsync_log);
  uint64_t inode = 0;
  int64_t size = 0;
  while (log >> inode >> size)
    durable[inode] = size;  // the last fsync of that file
  int64_t cut = 0;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(n.folder, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    struct stat info {};
    if (::stat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (it->path().filename() == "redis.log") continue;  // the harness's, not the node's disk
    const auto found = durable.find(info.st_ino);
    const int64_t keep =
        found == durable.end() ? 0 : std::min<int64_t>(found->second, info.st_size);
    if (keep < info.st_size && ::truncate(it->path().c_str(), keep) == 0) {
      cut += info.st_size - keep;
    }
  }
  return cut;
}

void RealWorld::crash(const FaultSpec& fault, StopKind how) {
  const ProcessId id = id_of(fault.target);
  NodeRun* n = node(id);
  ClientRun* c = client(id);
  if ((n != nullptr && !n->process.running()) || (c != nullptr && !c->alive)) return;
  record_fault(id, fault);
  PendingRestart& pending = restarts_[id];
  pending.keys_before = -1;
  if (n != nullptr) {
    if (!n->paused) {
      const std::optional<std::string> size = loopback_command(n->port, {"DBSIZE"}, 100);
      if (size && size->size() > 1 && (*size)[0] == ':')
        pending.keys_before = std::stoll(size->substr(1));
    }
    if (how == StopKind::shutdown) {
      n->process.terminate_and_reap(5'000);
    } else {
      n->process.kill_and_reap();
    }
    if (how == StopKind::power_loss) {
      const int64_t cut = lose_unsynced_writes(*n);
      tell(id, StoryKind::cluster,
           "power loss: " + std::to_string(cut) + " byte(s) written but never fsynced are lost");
    }
  } else if (c != nullptr) {
    // Killed first, at the fault's time; what it wrote before dying is still in the pipe and
    // is read (in time order) before its death is recorded.
    c->process.signal(SIGKILL);
    const int64_t until = monotonic_ns() + 200'000'000;
    while (monotonic_ns() < until && read_client_output(*c)) {
      pollfd p{.fd = c->process.stdout_fd(), .events = POLLIN, .revents = 0};
      ::poll(&p, 1, 20);
    }
    loop_.unwatch(c->process.stdout_fd());
    dispatch_events();
    client_died(*c);
  }
  if (fault.duration_ms) {
    pending.clock = fault.restart_clock;
    pending.local_deadline = clocks_.at(id).read(fault.restart_clock, true_now()) +
                             Duration::from_ms(*fault.duration_ms);
    pending.armed = true;
    arm_restart(id);
  }
}

void RealWorld::FaultStage::when(const FaultSpec& fault, std::function<void()> action) {
  // A cut that began before the run (one that cuts no replication link; unstageable_reason
  // refuses the others) is, as in the simulator, the same cut beginning at zero.
  const int64_t at_ms = std::max<int64_t>(fault.at_ms, 0);
  const std::string label =
      "fault " + fault.kind + (fault.target.empty() ? "" : " " + fault.target);
  world_.loop_.at(world_.real_time_of_ms(at_ms), [this, label, at_ms, action = std::move(action)] {
    // Timed once done: a kill or a stop counts as happened when its signal was
    // sent.
    action();
    world_.timed(label, at_ms);
  });
}

void RealWorld::FaultStage::at(int64_t at_ms, std::function<void()> action) {
  lasts_until(at_ms);
  world_.loop_.at(world_.real_time_of_ms(at_ms), std::move(action));
}

void RealWorld::FaultStage::set_clock_offset(ProcessId target, int64_t offset_ms) {
  // Real mode reads the offset as "the wall clock reads true wall time + offset".
  const ProcessClock& clock = world_.clocks_.at(target);
  const Instant now = world_.true_now();
  const int64_t current =
      (clock.wall_at(now) - clock.monotonic_at(now)).ns() -
      (clock.wall_at(Instant::zero()) - clock.monotonic_at(Instant::zero())).ns();
  NodeRun* n = world_.node(target);
  ClientRun* c = world_.client(target);
  const int64_t initial = n ? n->spec->clock.offset_ms : c ? c->spec->clock.offset_ms : 0;
  world_.step_clock(target, offset_ms * 1'000'000 - (current + initial * 1'000'000));
}

void RealWorld::schedule_fault(std::size_t fault_index) {
  const FaultSpec& fault = scenario_.faults[fault_index];
  last_scheduled_ms_ = std::max(last_scheduled_ms_, std::max<int64_t>(fault.at_ms, 0));
  const FaultKindDescriptor& kind = fault_kind(fault.kind);
  // A kind real mode cannot stage was refused before the run (unstageable_reason).
  if (kind.stage != nullptr) kind.stage(fault_stage_, scenario_.faults, fault_index);
}

void RealWorld::schedule_faults() {
  for (std::size_t i = 0; i < scenario_.faults.size(); ++i)
    schedule_fault(i);
}

// ---- the run ----

bool RealWorld::idle() const {
  // Sentinels never go quiet: the simulator runs a file with a failover block to its duration.
  if (!sentinels_.empty()) return false;
  if (true_now() < Instant::from_ms(last_scheduled_ms_)) return false;
  for (const auto& [id, pending] : restarts_)
    if (pending.armed) return false;
  if (fabric_->in_flight() > 0) return false;
  for (const auto& c : clients_) {
    if (!c->alive) continue;
    if (c->busy || c->watchdogs > 0 || c->wait_timer) return false;
    if (!c->finished) return false;
  }
  return true;
}

void RealWorld::run() {
  schedule_faults();
  for (auto& c : clients_) {
    ClientRun* pointer = c.get();
    loop_.at(t0_ns_, [this, pointer] {
      // As the simulator starts every client at time zero; one crashed before that starts at
      // its restart.
      pointer->started = pointer->alive;
      const std::vector<StepSpec>& steps = pointer->spec->steps;
      if (pointer->alive && !pointer->spec->workload && !steps.empty() && steps[0].at_ms &&
          *steps[0].at_ms <= 0) {
        timed(std::string("step ") + step_kind_name(steps[0].kind) + " " + pointer->spec->name, 0,
              true);
      }
      advance(*pointer);
    });
  }
  const int64_t end_ns = real_time_of_ms(scenario_.limits.duration_ms);
  while (true) {
    if (options_.interrupted != nullptr && *options_.interrupted != 0) {
      stop_ = "interrupted";
      break;
    }
    if (monotonic_ns() >= end_ns) {
      // The file's duration, as the simulator's run_until: a normal end (always, with
      // sentinels), not a limit.
      stop_ = "reached_until";
      break;
    }
    if (monotonic_ns() > t0_ns_ && idle()) break;
    loop_.run_once(std::min<int64_t>(20'000'000, std::max<int64_t>(0, end_ns - monotonic_ns())));
    dispatch_events();
  }
}

void RealWorld::stop_all() {
  for (auto& c : clients_) {
    if (c->process.stdout_fd() >= 0) loop_.unwatch(c->process.stdout_fd());
    c->process.kill_and_reap();
    c->alive = false;
  }
  for (auto& s : sentinels_) {
    if (s->events_fd >= 0) {
      loop_.unwatch(s->events_fd);
      ::close(s->events_fd);
      s->events_fd = -1;
    }
    s->process.kill_and_reap();
  }
  for (auto& n : nodes_)
    n->process.kill_and_reap();
  if (fabric_) fabric_->close_all();
  if (!folder_.empty() && !options_.keep_folder) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
}

RealRun RealWorld::finish() {
  const Instant end = true_now();
  RealRun run;
  ScenarioResult& result = run.result;
  result = result_for(scenario_);
  result.seed = scenario_.seed;
  result.processes = infos_;
  result.history = history_;
  for (const auto& [name, count] : count_probes(run_events_))
    result.history.probe(name, count);
  if (registers_) result.resource_log = registers_->log();
  const std::vector<ProcessClock>& clocks = clocks_;
  const ClockReach reach = [&clocks](ProcessId process, ClockKind kind, Instant local,
                                     Instant from) {
    return clocks.at(process).first_true_time_reaching(kind, local, from);
  };
  apply_checkers(scenario_, result, reach, end,
                 registers_ ? registers_->value(scenario_.resource.name) : 0);
  result.trace_digest = "real";
  result.staged_for_real = true;
  result.clocks = clocks_;
  result.story = story_;
  result.events = run_events_;
  std::stable_sort(result.story.begin(), result.story.end(),
                   [](const StoryEvent& a, const StoryEvent& b) { return a.at < b.at; });
  result.stats = ResultStats{.events = events_,
                             .simulated_ms = end.ms_floor(),
                             .grants = history_.grants().size(),
                             .messages = fabric_->delivered(),
                             .stop = stop_,
                             .limit_hit = stop_ != "idle" && stop_ != "reached_until"};
  // Expected overlaps match within the agreement tolerance, max(25 ms, 2 % of their length):
  // a real grant lands a few milliseconds after the simulated one, more on a loaded machine.
  int64_t tolerance_ms = 25;
  if (scenario_.expect.overlap) {
    tolerance_ms = std::max<int64_t>(
        25, (scenario_.expect.overlap->second - scenario_.expect.overlap->first) / 50);
  }
  judge(scenario_, result, tolerance_ms);

  RealReport& report = run.report;
  report.actions = timings_;
  std::vector<int64_t> lates;
  for (const ActionTiming& t : timings_) {
    lates.push_back(t.late_us);
    report.late_us_max = std::max(report.late_us_max, t.late_us);
  }
  if (!lates.empty()) {
    std::sort(lates.begin(), lates.end());
    report.late_us_median = lates[lates.size() / 2];
  }
  report.proxy_late_us_max = fabric_->delivery_lateness_max_ns() / 1000;
  // A step and a fault closer together than the jitter seen may have happened in either order.
  const int64_t jitter_ms = std::max<int64_t>(1, (report.late_us_max + 999) / 1000);
  for (const ActionTiming& a : timings_) {
    if (!a.step) continue;
    for (const ActionTiming& b : timings_) {
      if (b.step) continue;  // faults, resumes and restarts
      // Equal times keep the simulator's order (faults are scheduled first in both worlds);
      // distinct times closer than the jitter may swap.
      const int64_t apart_ms = std::abs(a.scheduled_ms - b.scheduled_ms);
      if (apart_ms > 0 && apart_ms <= jitter_ms) {
        report.warnings.push_back(a.what + " at " + std::to_string(a.scheduled_ms) + " ms and " +
                                  b.what + " at " + std::to_string(b.scheduled_ms) +
                                  " ms are closer than the measured jitter (" +
                                  std::to_string(jitter_ms) + " ms): their order is not certain");
      }
    }
  }
  std::sort(report.warnings.begin(), report.warnings.end());
  report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()),
                        report.warnings.end());
  report.folder = folder_;
  report.drivers = driver_notes_;
  report.failover_events = failover_events_;
  report.warnings.insert(report.warnings.end(), protocol_errors_.begin(), protocol_errors_.end());
  stop_all();
  report.wall_ms = (monotonic_ns() - setup_started_ns_) / 1'000'000;
  return run;
}

}  // namespace

std::optional<RealRun> run_real(const Scenario& scenario, const RealOptions& options,
                                std::string& error) {
  if (auto reason = unstageable_reason(scenario, options.drivers)) {
    error = *reason;
    return std::nullopt;
  }
  RealWorld world(scenario, options);
  if (auto failed = world.start()) {
    error = *failed;
    return std::nullopt;
  }
  world.run();
  return world.finish();
}

}  // namespace redlock_sim::real
