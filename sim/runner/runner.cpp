#include "sim/runner/runner.hpp"

#include <algorithm>

#include "sim/faults/before_run.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/assert.hpp"
#include "sim/replication/cluster.hpp"
#include "sim/resource/resource.hpp"
#include "sim/runner/client_process.hpp"
#include "sim/runner/run_event.hpp"

namespace redlock_sim {

namespace {

// Everything one run builds; lives for the duration of run_scenario.
class World final : public FaultWorld {
 public:
  World(const Scenario& scenario, uint64_t seed, const RunOptions& options)
      : scenario_(scenario),
        options_(options),
        simulator_(seed,
                   SimulatorLimits{.events_max = scenario.limits.events_max,
                                   .duration_max = Duration::from_ms(scenario.limits.duration_ms),
                                   .messages_in_flight_max = scenario.limits.messages_in_flight_max,
                                   .trace_records_max = options.trace_records_max,
                                   .memory_bytes_max = scenario.limits.memory_mb << 20}) {
    if (options.message_log_max > 0) simulator_.enable_message_log(options.message_log_max);
    simulator_.hash_message_contents(options.digest_message_contents);
    simulator_.trace().keep_digest(options.trace_digest);
    simulator_.set_memory_meter([this] { return memory_bytes(); });
  }

  std::optional<std::string> build(const LockFactory& factory);
  void schedule_faults();
  void start_clients();
  RunResult run() { return simulator_.run(Instant::from_ms(scenario_.limits.duration_ms)); }
  ScenarioResult result(const RunResult& run);  // once, at the end: moves what it keeps

 private:
  std::size_t memory_bytes() const;
  void build_cluster();
  void seed_data();
  void reload_keys(ProcessId node);
  void apply_clock(Process& process, const ClockSpec& clock);
  void tell(ProcessId process, StoryKind kind, std::string text, uint64_t grant_id = 0);
  // Logs a typed event at the current instant and tells its story line, if it has one.
  void record(RunEvent event);
  void schedule_fault(std::size_t index);

  // FaultWorld: what the fault kinds (sim/faults) do to this world.
  Simulator& simulator() override { return simulator_; }
  ProcessId id_of(const std::string& name) const override { return ids_.at(name); }
  std::vector<ProcessId> ids_of(const std::vector<std::string>& names) const override;
  void record_fault(ProcessId process, const FaultSpec& fault) override {
    record(RunEvent{.process = process, .kind = RunEventKind::fault_applied, .fault = fault});
  }
  void record_pause_ended(ProcessId process) override {
    record(RunEvent{.process = process, .kind = RunEventKind::pause_ended});
  }
  void clock_changed(ProcessId process) override {
    if (restarts_.count(process) != 0) arm_restart(process);
  }
  void schedule_stop(const FaultSpec& fault, StopKind how) override;
  void restart_now(ProcessId process) override;
  void add_partition(std::size_t fault_index, PartitionRule rule) override {
    partitions_[fault_index] = simulator_.network().add_partition(std::move(rule));
  }
  void partition_began(std::size_t fault_index, ProcessId teller, const FaultSpec& fault) override;
  void heal_partition(std::size_t partition_index, const FaultSpec& heal) override;
  void arm_restart(ProcessId id);

  const Scenario& scenario_;
  RunOptions options_;
  Simulator simulator_;
  std::unique_ptr<Cluster> cluster_;
  History history_;
  std::vector<StoryEvent> story_;
  std::vector<RunEvent> events_;
  std::size_t story_text_bytes_ = 0;
  std::size_t event_text_bytes_ = 0;  // the cluster events' sentences
  std::map<std::string, ProcessId> ids_;
  std::vector<ProcessInfo> infos_;
  std::vector<ClientProcess*> clients_;
  ResourceProcess* resource_ = nullptr;
  int64_t oracle_token_ = 0;
  std::map<std::size_t, std::size_t> partitions_;        // fault index -> the network's rule
  std::map<std::size_t, std::size_t> partition_events_;  // fault index -> its event, once begun
  KeyTracker keys_;
  std::vector<CommandReplyRecord> replies_;
  // Supervised restarts: a restart timed on the host's own clock, re-aimed on clock changes.
  struct PendingRestart {
    ClockKind clock = ClockKind::monotonic;
    Instant local_deadline;
    uint64_t generation = 0;
    bool armed = false;
    std::size_t keys_at_crash = 0;
  };
  std::map<ProcessId, PendingRestart> restarts_;
};

// What the world keeps for the checkers and the reports, counted as Simulator::memory_bytes
// counts: a fixed cost per record (about x86-64's, with the allocator's) plus its text. A grant
// keeps its record, an acquisition call, a write acknowledgement, a resource operation, a few
// story lines and a key lifetime per node: about 2 KB at the zero-time workload's rate. The
// event log and the command steps' replies count too (each is bounded by the file, but a file
// may list many faults, and a cluster may tell many Sentinel events).
std::size_t World::memory_bytes() const {
  constexpr std::size_t grant_bytes = 256;
  constexpr std::size_t acquire_bytes = 96;
  constexpr std::size_t write_ack_bytes = 32;
  constexpr std::size_t story_line_bytes = 144;
  constexpr std::size_t key_lifetime_bytes = 224;
  constexpr std::size_t resource_op_bytes = 160;
  std::size_t bytes =
      history_.grants().size() * grant_bytes + history_.acquires().size() * acquire_bytes +
      history_.write_acks().size() * write_ack_bytes + story_.size() * story_line_bytes +
      story_text_bytes_ + keys_.kept() * key_lifetime_bytes;
  if (resource_ != nullptr) bytes += resource_->log().size() * resource_op_bytes;
  bytes += events_.size() * sizeof(RunEvent) + event_text_bytes_;
  for (const CommandReplyRecord& reply : replies_) {
    bytes += sizeof(CommandReplyRecord) + reply.node.size() + reply.reply.size();
    for (const std::string& word : reply.command)
      bytes += sizeof(std::string) + word.size();
  }
  return bytes;
}

void World::tell(ProcessId process, StoryKind kind, std::string text, uint64_t grant_id) {
  if (!options_.record_story) return;
  const Process& p = simulator_.process(process);
  story_.push_back(StoryEvent{.at = simulator_.now(),
                              .process = process,
                              .wall = p.wall_now(),
                              .monotonic = p.monotonic_now(),
                              .kind = kind,
                              .text = std::move(text),
                              .grant_id = grant_id});
  // The printed tag's bytes too, as when the kind was a string: the budget stops where it did.
  story_text_bytes_ += story_kind_name(kind).size() + story_.back().text.size();
}

void World::record(RunEvent event) {
  event.at = simulator_.now();
  if (std::optional<StoryText> line = run_event_story(event); line && options_.record_story) {
    tell(event.process, line->kind, std::move(line->text));
    story_.back().event = events_.size();
  }
  event_text_bytes_ += event.cluster.detail.size() + event.cluster.load_source.size();
  events_.push_back(std::move(event));
}

void World::apply_clock(Process& process, const ClockSpec& clock) {
  process.clock() = ProcessClock(
      ProcessClock::Options{.true_start = Instant::zero(),
                            .wall_at_start = Instant::from_ms(default_epoch_ms + clock.offset_ms),
                            .monotonic_at_start = Instant::zero(),
                            .rate = clock.rate});
}

void World::reload_keys(ProcessId node) {
  if (!options_.track_keys) return;
  // A restart or a full resync replaced the node's data wholesale: what it holds now is its
  // keyspace, read directly.
  keys_.on_crash(node, simulator_.now());
  for (const SnapshotEntry& entry : cluster_->node(node).engine().snapshot()) {
    std::optional<int64_t> when;
    if (entry.value.expire_at_ms != no_expiry_ms) when = entry.value.expire_at_ms;
    keys_.on_loaded(node, entry.key, entry.value.string, when, simulator_.now());
  }
}

void World::build_cluster() {
  // Nodes first, then sentinels, with ids 0, 1, ... in that order (the Cluster's contract).
  cluster_ = std::make_unique<Cluster>(simulator_, scenario_.nodes, scenario_.failover);
  // A cut that began before the run is silent since its start on each replication link it cuts.
  const auto instant = [](const std::optional<int64_t>& ms) -> std::optional<Instant> {
    if (!ms) return std::nullopt;
    return Instant::from_ms(*ms);
  };
  for (const auto& [replica, cut] : replica_links_down_before_run(scenario_)) {
    cluster_->set_cut_before_run(cluster_->id_of(replica),
                                 LinkCutBeforeRun{.from_master = instant(cut.from_master_ms),
                                                  .to_master = instant(cut.to_master_ms)});
  }
  for (ProcessId id : cluster_->node_ids()) {
    const std::string& name = simulator_.process(id).name();
    SIM_ASSERT_EQ(id, infos_.size());
    ids_[name] = id;
    infos_.push_back({name, "node"});
    // Only a run that tracks keys watches the effects (exploration does not: no call per write).
    if (options_.track_keys) {
      cluster_->node(id).set_effects_observer(
          [this](ClusterNode& n, const std::vector<Propagated>& effects) {
            keys_.on_effects(n.id(), effects, simulator_.now());
          });
    }
  }
  for (ProcessId id : cluster_->sentinel_ids()) {
    const std::string& name = simulator_.process(id).name();
    SIM_ASSERT_EQ(id, infos_.size());
    ids_[name] = id;
    infos_.push_back({name, "sentinel"});
  }
  cluster_->set_observer([this](ProcessId process, const ClusterEvent& event) {
    if (cluster_event_reloads_keys(event.kind)) reload_keys(process);
    record(RunEvent{.process = process, .kind = RunEventKind::cluster, .cluster = event});
  });
  seed_data();
}

// The keys nodes had before the run: a master's `data`, and the same keys (with the same
// absolute expiries, as 7.0 replicates them) on every replica below it, which starts in sync.
void World::seed_data() {
  auto spec_of = [this](const std::string& name) -> const NodeSpec& {
    for (const NodeSpec& n : scenario_.nodes) {
      if (n.name == name) return n;
    }
    SIM_ASSERT(false);
    return scenario_.nodes.front();
  };
  for (const NodeSpec& node : scenario_.nodes) {
    const NodeSpec* root = &node;
    for (std::size_t hops = 0; root->role == "replica" && hops < scenario_.nodes.size(); ++hops)
      root = &spec_of(root->replica_of);
    if (root->data.empty()) continue;
    std::vector<SnapshotEntry> entries;
    for (const InitialKey& k : root->data) {
      Value value;
      value.string = k.value;
      if (k.ttl_ms) value.expire_at_ms = default_epoch_ms + root->clock.offset_ms + *k.ttl_ms;
      entries.push_back({.key = k.key, .value = std::move(value)});
    }
    std::sort(entries.begin(), entries.end(),
              [](const SnapshotEntry& a, const SnapshotEntry& b) { return a.key < b.key; });
    const ProcessId id = ids_.at(node.name);
    cluster_->node(id).seed(entries);
    reload_keys(id);
  }
}

std::optional<std::string> World::build(const LockFactory& factory) {
  build_cluster();
  if (scenario_.resource.enabled) {
    resource_ = &simulator_.add_process<ResourceProcess>(
        scenario_.resource.name,
        ResourceProcess::Options{.fencing = scenario_.resource.fencing,
                                 .reject_equal_token = scenario_.resource.reject_equal_token});
    ids_[scenario_.resource.name] = resource_->id();
    infos_.push_back({scenario_.resource.name, "resource"});
  }
  oracle_token_ = scenario_.resource.token_start;
  // The external counter (what ZooKeeper or etcd would give), for fenced locks that name it.
  const bool wants_counter =
      std::any_of(scenario_.clients.begin(), scenario_.clients.end(), [](const ClientSpec& c) {
        return std::find(c.nodes.begin(), c.nodes.end(), "counter") != c.nodes.end();
      });
  if (wants_counter && ids_.count("counter") == 0) {
    auto& counter = simulator_.add_process<CounterService>("counter");
    ids_["counter"] = counter.id();
    infos_.push_back({"counter", "counter"});
  }
  for (const ClientSpec& spec : scenario_.clients) {
    WorldServices services{
        .history = &history_,
        .tell = [this](ProcessId p, StoryKind kind, std::string text,
                       uint64_t grant_id) { tell(p, kind, std::move(text), grant_id); },
        .resource = scenario_.resource,
        .resource_endpoint = static_cast<NodeId>(spec.nodes.size()),
        .oracle_token = &oracle_token_,
        .replies = &replies_};
    services.resolve = [this](const std::string& name) -> std::optional<ProcessId> {
      auto it = ids_.find(name);
      if (it == ids_.end()) return std::nullopt;
      return it->second;
    };
    services.master_name = scenario_.failover.enabled ? scenario_.failover.master_name : "";
    services.record_story = options_.record_story;
    auto& client = simulator_.add_process<ClientProcess>(spec.name, spec, std::move(services));
    apply_clock(client, spec.clock);
    if (scenario_.failover.enabled) cluster_->subscribe_client(client.id());
    std::vector<ProcessId> endpoints = ids_of(spec.nodes);
    if (resource_ != nullptr) endpoints.push_back(resource_->id());
    for (const StepSpec& step : spec.steps) {  // command steps' nodes, after the resource
      if (step.kind == StepKind::command) endpoints.push_back(id_of(step.node));
    }
    client.set_endpoints(std::move(endpoints));
    std::string error;
    std::unique_ptr<LockClient> lock = factory(spec, client, error);
    if (!lock) return "client " + spec.name + ": " + error;
    client.set_lock(std::move(lock));
    ids_[spec.name] = client.id();
    infos_.push_back({spec.name, "client"});
    clients_.push_back(&client);
  }
  // The network: default delay, then per-link overrides.
  simulator_.network().set_default_delay(scenario_.network.delay);
  for (const LinkSpec& link : scenario_.network.links) {
    const ProcessId from = id_of(link.from);
    const ProcessId to = id_of(link.to);
    for (int direction = 0; direction < (link.both_ways ? 2 : 1); ++direction) {
      const ProcessId a = direction == 0 ? from : to;
      const ProcessId b = direction == 0 ? to : from;
      if (link.delay) simulator_.network().set_link_delay(a, b, *link.delay);
      if (link.loss_numerator > 0) {
        simulator_.network().set_link_loss(a, b, link.loss_numerator, link.loss_denominator);
      }
    }
  }
  return std::nullopt;
}

std::vector<ProcessId> World::ids_of(const std::vector<std::string>& names) const {
  std::vector<ProcessId> out;
  for (const std::string& name : names) {
    // A client may name the failover group: it starts at the initial master and follows
    // +switch-master from there.
    const bool group = scenario_.failover.enabled && name == scenario_.failover.master_name;
    out.push_back(id_of(group ? scenario_.failover.master : name));
  }
  return out;
}

void World::start_clients() {
  for (ClientProcess* client : clients_) {
    // A client crashed at time zero, before it started, starts when it is restarted.
    simulator_.schedule_action(Instant::zero(), [client] {
      if (client->status() != ProcessStatus::crashed) client->start();
    });
  }
}

void World::schedule_faults() {
  for (std::size_t i = 0; i < scenario_.faults.size(); ++i)
    schedule_fault(i);
}

void World::arm_restart(ProcessId id) {
  PendingRestart& pending = restarts_[id];
  if (!pending.armed) return;
  const uint64_t generation = ++pending.generation;
  const Instant at = simulator_.process(id).clock().first_true_time_reaching(
      pending.clock, pending.local_deadline, simulator_.now());
  simulator_.schedule_action(at, [this, id, generation] {
    PendingRestart& p = restarts_[id];
    if (!p.armed || p.generation != generation) return;  // re-aimed, or restarted by hand
    p.armed = false;
    simulator_.restart(id);
    record(RunEvent{.process = id, .kind = RunEventKind::supervisor_restart});
  });
}

void World::schedule_stop(const FaultSpec& fault, StopKind how) {
  const ProcessId id = id_of(fault.target);
  simulator_.schedule_action(Instant::from_ms(fault.at_ms), [this, id, fault, how] {
    Process& p = simulator_.process(id);
    if (p.status() == ProcessStatus::crashed) return;
    record_fault(id, fault);
    if (cluster_->is_node(id) || cluster_->is_sentinel(id)) {
      cluster_->crash(id, how);
    } else {
      simulator_.crash(id);
    }
    keys_.on_crash(id, simulator_.now());
    if (fault.duration_ms) {
      PendingRestart& pending = restarts_[id];
      pending.clock = fault.restart_clock;
      pending.local_deadline = p.clock().read(fault.restart_clock, simulator_.now()) +
                               Duration::from_ms(*fault.duration_ms);
      pending.armed = true;
      arm_restart(id);
    }
  });
}

void World::schedule_fault(std::size_t fault_index) {
  fault_kind(scenario_.faults[fault_index].kind).apply(*this, scenario_.faults, fault_index);
}

void World::restart_now(ProcessId process) {
  restarts_[process].armed = false;
  simulator_.restart(process);
}

void World::partition_began(std::size_t fault_index, ProcessId teller, const FaultSpec& fault) {
  partition_events_[fault_index] = events_.size();
  record_fault(teller, fault);
}

void World::heal_partition(std::size_t partition_index, const FaultSpec& heal) {
  simulator_.network().heal(partitions_.at(partition_index), simulator_.now());
  record(heal_event(heal, partition_events_, partition_index, events_));
}

// ---- results ----

bool verdict_matches(const std::optional<std::string>& expected, Verdict actual) {
  return !expected || *expected == verdict_name(actual);
}

ScenarioResult World::result(const RunResult& run) {
  ScenarioResult result = result_for(scenario_);
  result.seed = simulator_.seed();
  result.processes = infos_;
  result.history = std::move(history_);
  const Simulator& sim = simulator_;
  const ClockReach reach = [&sim](ProcessId client, ClockKind kind, Instant local, Instant from) {
    return sim.process(client).clock().first_true_time_reaching(kind, local, from);
  };
  result.keys = keys_.lifetimes(sim, run.end_time);
  result.replies = replies_;
  if (resource_ != nullptr) result.resource_log = resource_->log();
  apply_checkers(scenario_, result, reach, run.end_time,
                 resource_ != nullptr ? resource_->value(scenario_.resource.name) : 0);

  if (options_.trace_digest) result.trace_digest = sim.trace().digest_hex();
  result.trace.assign(sim.trace().records().begin(), sim.trace().records().end());
  result.trace_truncated = sim.trace().truncated();
  result.messages = sim.message_log();
  for (std::size_t id = 0; id < sim.process_count(); ++id) {
    result.clocks.push_back(sim.process(static_cast<ProcessId>(id)).clock());
  }
  for (const auto& [name, count] : count_probes(events_))
    result.history.probe(name, count);
  result.story = std::move(story_);
  result.events = std::move(events_);
  result.stats = ResultStats{.events = sim.events_dispatched(),
                             .simulated_ms = run.end_time.ms_floor(),
                             .grants = result.history.grants().size(),
                             .stop = run_stop_name(run.stop),
                             .limit_hit = run.limit_hit()};
  return result;
}

}  // namespace

void apply_checkers(const Scenario& scenario, ScenarioResult& result, const ClockReach& reach,
                    Instant run_end, int64_t final_value) {
  result.holds = hold_intervals(result.history, reach);
  const MutualExclusionResult mx = check_mutual_exclusion(result.holds);
  result.mutual_exclusion = mx.verdict;
  result.violations = mx.violations;
  if (scenario.resource.enabled) {
    ResourceSafetyResult rs = check_resource_safety(result.history, result.resource_log,
                                                    scenario.resource.name, final_value);
    result.resource_safety = rs.verdict;
    result.violations.insert(result.violations.end(), rs.violations.begin(), rs.violations.end());
    result.resource_detail = std::move(rs);
  }
  std::optional<Duration> bound;
  if (scenario.expect.unavailability_max_ms) {
    bound = Duration::from_ms(*scenario.expect.unavailability_max_ms);
  }
  result.liveness_detail = check_liveness(result.history, result.holds, run_end, bound,
                                          crashed_holder_waits(result.history, reach));
  result.liveness = result.liveness_detail.verdict;
  result.violations.insert(result.violations.end(), result.liveness_detail.violations.begin(),
                           result.liveness_detail.violations.end());
}

// expect.grants: some grant of the client at the expected time (and validity, when given),
// within the tolerance; else one failure naming what the client was granted.
static void judge_grant(const ScenarioResult& result, const ExpectedGrant& want,
                        int64_t tolerance_ms, std::vector<std::string>& failures) {
  std::string got;
  std::size_t shown = 0;
  for (const GrantRecord& g : result.history.grants()) {
    if (g.client >= result.processes.size() || result.processes[g.client].name != want.client) {
      continue;
    }
    const int64_t at_ms = g.granted_at.ms_floor();
    std::optional<int64_t> validity_ms;
    if (!g.deadlines.empty() && g.deadlines.front().local != Instant::max() &&
        g.client < result.clocks.size()) {
      validity_ms =
          (g.deadlines.front().local - result.clocks[g.client].read(g.clock, g.granted_at))
              .ms_floor();
    }
    if (++shown <= 5) {  // a long run has thousands: the first few say enough
      got += (got.empty() ? "" : ", ") + std::to_string(at_ms) + " ms" +
             (validity_ms ? " (validity " + std::to_string(*validity_ms) + " ms)" : "");
    }
    const bool at_matches = std::abs(at_ms - want.at_ms) <= tolerance_ms;
    const bool validity_matches =
        !want.validity_ms ||
        (validity_ms && std::abs(*validity_ms - *want.validity_ms) <= tolerance_ms);
    if (at_matches && validity_matches) return;
  }
  failures.push_back(
      "grants: expected " + want.client + " granted at " + std::to_string(want.at_ms) + " ms" +
      (want.validity_ms ? " with validity " + std::to_string(*want.validity_ms) + " ms" : "") +
      " within " + std::to_string(tolerance_ms) + " ms, got " +
      (got.empty() ? "no grant" : "grants at " + got + (shown > 5 ? ", ..." : "")));
}

void judge(const Scenario& scenario, ScenarioResult& result, int64_t overlap_tolerance_ms) {
  const Expectations& expect = scenario.expect;
  std::vector<std::string>& failures = result.expectation_failures;
  auto check = [&](const char* name, const std::optional<std::string>& expected, Verdict actual) {
    if (!verdict_matches(expected, actual)) {
      failures.push_back(std::string(name) + ": expected " + *expected + ", got " +
                         verdict_name(actual));
    }
  };
  const bool any_verdict = expect.mutual_exclusion || expect.resource_safety || expect.liveness;
  if (any_verdict) {
    check("mutual_exclusion", expect.mutual_exclusion, result.mutual_exclusion);
    check("resource_safety", expect.resource_safety, result.resource_safety);
    check("liveness", expect.liveness, result.liveness);
  } else {
    for (auto [name, verdict] : {std::pair{"mutual_exclusion", result.mutual_exclusion},
                                 std::pair{"resource_safety", result.resource_safety},
                                 std::pair{"liveness", result.liveness}}) {
      if (verdict == Verdict::violated) failures.push_back(std::string(name) + ": violated");
    }
  }
  const Violation* first_overlap = nullptr;
  int64_t longest_overlap_ms = 0;
  for (const Violation& v : result.violations) {
    if (v.kind != "overlap") continue;
    if (first_overlap == nullptr) first_overlap = &v;
    longest_overlap_ms = std::max(longest_overlap_ms, (v.end - v.start).ms_floor());
  }
  if (expect.overlap) {
    const int64_t tolerance_ms = overlap_tolerance_ms;
    if (first_overlap == nullptr) {
      failures.push_back("overlap: expected [" + std::to_string(expect.overlap->first) + ", " +
                         std::to_string(expect.overlap->second) + ") ms, got none");
    } else {
      const int64_t start = first_overlap->start.ms_floor();
      const int64_t end = first_overlap->end.ms_floor();
      if (std::abs(start - expect.overlap->first) > tolerance_ms ||
          std::abs(end - expect.overlap->second) > tolerance_ms) {
        failures.push_back("overlap: expected [" + std::to_string(expect.overlap->first) + ", " +
                           std::to_string(expect.overlap->second) + ") ms within " +
                           std::to_string(tolerance_ms) + " ms, got [" + std::to_string(start) +
                           ", " + std::to_string(end) + ")");
      }
    }
  }
  // A wider tolerance (a real run's) allows the longest overlap to fall short by as much more.
  const int64_t slack_ms = std::max<int64_t>(0, overlap_tolerance_ms - 5);
  if (expect.overlap_ms_min && longest_overlap_ms + slack_ms < *expect.overlap_ms_min) {
    failures.push_back("overlap_ms_min: expected at least " +
                       std::to_string(*expect.overlap_ms_min) + " ms, got " +
                       std::to_string(longest_overlap_ms));
  }
  for (const std::string& probe : expect.probes) {
    auto it = result.history.probes().find(probe);
    if (it == result.history.probes().end() || it->second == 0) {
      failures.push_back("probe " + probe + ": expected to fire, did not");
    }
  }
  for (const std::string& probe : expect.not_probes) {
    auto it = result.history.probes().find(probe);
    if (it != result.history.probes().end() && it->second > 0) {
      failures.push_back("probe " + probe + ": expected not to fire, count " +
                         std::to_string(it->second));
    }
  }
  for (const ExpectedGrant& want : expect.grants)
    judge_grant(result, want, overlap_tolerance_ms, failures);
  for (const ExpectedReply& want : expect.replies) {
    std::string got;
    bool found = false;
    for (const CommandReplyRecord& r : result.replies) {
      if (r.client >= result.processes.size() || result.processes[r.client].name != want.client) {
        continue;
      }
      const int64_t at_ms = r.sent_at.ms_floor();
      got += (got.empty() ? "" : ", ") + r.reply + " at " + std::to_string(at_ms) + " ms";
      found =
          found || (std::abs(at_ms - want.at_ms) <= overlap_tolerance_ms && r.reply == want.reply);
    }
    if (!found) {
      failures.push_back("replies: expected " + want.client + "'s command at " +
                         std::to_string(want.at_ms) + " ms to get " + want.reply + ", got " +
                         (got.empty() ? "no command step" : got));
    }
  }
  if (result.stats.limit_hit) failures.push_back("limit hit: " + result.stats.stop);
  result.expectations_met = failures.empty();
}

ScenarioResult result_for(const Scenario& scenario) {
  ScenarioResult result;
  result.scenario = scenario.name;
  result.description = scenario.description;
  result.source = scenario.source;
  for (const ClientSpec& client : scenario.clients)
    result.locks.insert(client.lock);
  return result;
}

ScenarioResult run_scenario(const Scenario& scenario, const LockFactory& factory,
                            const RunOptions& options) {
  World world(scenario, options.seed.value_or(scenario.seed), options);
  if (auto error = world.build(factory)) {
    ScenarioResult failed = result_for(scenario);
    failed.expectation_failures.push_back("cannot build the world: " + *error);
    return failed;
  }
  world.schedule_faults();
  world.start_clients();
  const RunResult run = world.run();
  ScenarioResult result = world.result(run);
  judge(scenario, result);
  return result;
}

}  // namespace redlock_sim
