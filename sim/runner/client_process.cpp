#include "sim/runner/client_process.hpp"

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

namespace {
std::string ms_text(Duration d) {
  return std::to_string(d.ms_floor()) + " ms";
}
}  // namespace

ClientProcess::ClientProcess(Simulator& simulator, ProcessId id, std::string name, ClientSpec spec,
                             WorldServices services)
    : TaskProcess(simulator, id, std::move(name)),
      spec_(std::move(spec)),
      services_(std::move(services)) {}

void ClientProcess::set_lock(std::unique_ptr<LockClient> lock) {
  lock_ = std::move(lock);
  // Without a story the lock has no sink, and builds no note.
  if (telling()) {
    lock_->set_note_sink([this](std::string note) { tell(StoryKind::attempt, std::move(note)); });
  }
}

void ClientProcess::tell(StoryKind kind, std::string text) {
  services_.tell(id(), kind, std::move(text), grant_id_);
}

void ClientProcess::start() {
  started_ = true;
  if (spec_.workload) {
    spawn(run_workload());
  } else {
    spawn(run_steps());
  }
}

void ClientProcess::on_crash() {
  // A dead process believes nothing: its grants end now, and its coroutines are destroyed.
  services_.history->end_grants_of(id(), simulator().now(), "crashed");
  services_.history->interrupt_acquires_of(id(), simulator().now());
  lease_.reset();
  outer_.clear();
  grant_id_ = 0;
  TaskProcess::on_crash();
}

void ClientProcess::on_restart() {
  // An application restarted by its supervisor runs its workload again; scripted steps do not
  // replay (they describe one life of the process).
  if (spec_.workload || !started_) start();
}

void ClientProcess::on_unsolicited(Message& message) {
  // A sentinel's "+switch-master <group> <node>": requests for the group go to the new master.
  const Command& argv = message.command();
  if (argv.size() != 3 || argv[0] != "+switch-master" || argv[1] != services_.master_name) return;
  const std::optional<ProcessId> master = services_.resolve(argv[2]);
  if (!master) return;
  std::vector<ProcessId> endpoints = this->endpoints();
  for (std::size_t i = 0; i < spec_.nodes.size(); ++i) {
    if (spec_.nodes[i] == services_.master_name) endpoints[i] = *master;
  }
  set_endpoints(std::move(endpoints));
  if (telling())
    tell(StoryKind::failover, "learns the master of " + argv[1] + " is now " + argv[2]);
}

Task<void> ClientProcess::wait_for_true_time(Instant at) {
  const Instant now = simulator().now();
  if (at <= now) co_return;
  // The local monotonic reading at `at`, as the clock is known now.
  const Duration wait = clock().monotonic_at(at) - monotonic_now();
  co_await sleep(wait);
}

bool ClientProcess::validity_passed() {
  if (!lease_ || !lease_->deadline.bounded()) return lease_ == nullptr;
  const Instant now = lease_->deadline.clock == ClockKind::wall ? wall_now() : monotonic_now();
  return now >= lease_->deadline.at;
}

Task<bool> ClientProcess::do_acquire() {
  History& history = *services_.history;
  // A grant already held stays current if this (re-entrant) acquisition fails.
  const Held before{.lease = lease_,
                    .grant_id = grant_id_,
                    .fencing_token = fencing_token_,
                    .recorded_deadline = recorded_deadline_};
  grant_id_ = 0;  // lines until the grant belong to no grant
  const std::size_t call = history.begin_acquire(id(), spec_.lock, simulator().now());
  Grant grant = co_await lock_->acquire(spec_.lock);
  const Instant now = simulator().now();
  if (!grant.acquired) {
    grant_id_ = before.grant_id;
    history.end_acquire(call, now, false, 0, grant.attempts);
    if (telling()) {
      tell(StoryKind::acquire, "failed to acquire '" + spec_.lock + "' after " +
                                   std::to_string(grant.attempts) +
                                   " attempt(s): " + grant.failure);
    }
    co_return false;
  }
  if (before.lease) outer_.push_back(before);
  lease_ = grant.lease;
  fencing_token_.reset();
  if (services_.resource.token_source == FencingTokenSource::oracle) {
    fencing_token_ = ++*services_.oracle_token;
  } else if (services_.resource.token_source == FencingTokenSource::lock) {
    fencing_token_ = lease_->fencing_token;
  }
  GrantRecord record{.client = id(),
                     .lock = spec_.lock,
                     .granted_at = now,
                     .token = lease_->value,
                     .fencing_token = fencing_token_,
                     .clock = lease_->deadline.clock,
                     .deadlines = {{now, lease_->deadline.at}}};
  grant_id_ = history.add_grant(std::move(record));
  history.end_acquire(call, now, true, grant_id_, grant.attempts);
  recorded_deadline_ = lease_->deadline;
  const uint64_t grant_id = grant_id_;
  lease_->on_lost = [this, grant_id](const Lease& lease) {
    GrantRecord& g = services_.history->grant(grant_id);
    if (!g.ended_at) {
      g.ended_at = simulator().now();
      g.end_reason = "told the lock was lost: " + lease.lost_reason;
    }
    if (telling()) tell(StoryKind::lost, "learns the lock is lost (" + lease.lost_reason + ")");
  };
  // A watchdog's renewal moves what the holder believes, as an extend step does.
  lease_->on_renewed = [this, grant_id](const Lease& lease) {
    services_.history->grant(grant_id).deadlines.push_back({simulator().now(), lease.deadline.at});
  };
  if (telling()) {
    std::string text = "granted '" + spec_.lock + "' (grant " + std::to_string(grant_id_) + ")";
    if (lease_->deadline.bounded()) {
      const Instant local =
          lease_->deadline.clock == ClockKind::wall ? wall_now() : monotonic_now();
      text += ", validity " + ms_text(lease_->deadline.at - local) + " on its " +
              (lease_->deadline.clock == ClockKind::wall ? "wall" : "monotonic") + " clock";
    } else {
      text += ", no deadline (held until released)";
    }
    if (fencing_token_) text += ", fencing token " + std::to_string(*fencing_token_);
    tell(StoryKind::grant, text);
  }
  if (spec_.watchdog && lock_->has_watchdog()) spawn(lock_->run_watchdog(lease_));
  co_return true;
}

Task<void> ClientProcess::do_release() {
  if (!lease_) co_return;
  GrantRecord& grant = services_.history->grant(grant_id_);
  if (!grant.ended_at) {
    grant.ended_at = simulator().now();
    grant.end_reason = "released";
  }
  std::shared_ptr<Lease> lease = std::move(lease_);
  // Reads and writes after this are outside any critical section: not charged to this grant,
  // and no fencing token is sent with them.
  grant_id_ = 0;
  fencing_token_.reset();
  if (!outer_.empty()) {  // the grant this one re-entered is current again
    lease_ = outer_.back().lease;
    grant_id_ = outer_.back().grant_id;
    fencing_token_ = outer_.back().fencing_token;
    recorded_deadline_ = outer_.back().recorded_deadline;
    outer_.pop_back();
  }
  ReleaseResult result = co_await lock_->release(lease);
  if (!telling()) co_return;
  tell(StoryKind::release, result.released
                               ? "released (" + std::to_string(result.nodes) + " node(s))"
                               : "release failed: " + result.failure);
}

Task<bool> ClientProcess::do_extend() {
  if (!lease_) co_return false;
  std::shared_ptr<Lease> lease = lease_;
  const uint64_t grant_id = grant_id_;
  ExtendResult result = co_await lock_->extend(lease);
  if (result.extended) {
    services_.history->grant(grant_id).deadlines.push_back({simulator().now(), result.deadline.at});
    if (telling()) {
      tell(StoryKind::extend, "extended on " + std::to_string(result.nodes) + " node(s)");
    }
    co_return true;
  }
  if (telling()) tell(StoryKind::extend, "extension failed: " + result.failure);
  end_grant_on_failed_extend(grant_id, result);
  co_return false;
}

// A failed extension tells the holder it can no longer count on the lock (the library reports the
// failure to its caller, who stops): its hold ends where it learns so, whatever the failure was.
void ClientProcess::end_grant_on_failed_extend(uint64_t grant_id, const ExtendResult& result) {
  if (grant_id == 0) return;
  GrantRecord& grant = services_.history->grant(grant_id);
  if (grant.ended_at) return;
  grant.ended_at = simulator().now();
  grant.end_reason = "told by a failed extension: " + result.failure;
}

// The owner (the lock's token) is sent only under compare-and-set; in the other modes the request
// carries "-", which no command reads, rather than a copy of the token.
ResourceRequest ClientProcess::resource_request() const {
  const bool owned = lease_ && services_.resource.fencing == FencingMode::compare_and_set;
  return ResourceRequest{.fencing = services_.resource.fencing,
                         .resource = services_.resource.name,
                         .owner = owned ? lease_->value : std::string("-"),
                         .token = fencing_token_,
                         .grant_id = grant_id_};
}

Task<bool> ClientProcess::do_read(int64_t timeout_ms) {
  const Duration timeout = Duration::from_ms(timeout_ms);
  const ResourceRequest request = resource_request();
  if (std::optional<Command> set_owner = resource_set_owner_command(request)) {
    Outcome set = co_await send(services_.resource_endpoint, std::move(*set_owner), timeout);
    if (!set.replied() || set.reply.is_error()) co_return false;
  }
  Outcome outcome =
      co_await send(services_.resource_endpoint, resource_read_command(request), timeout);
  if (!outcome.replied() || outcome.reply.type != ReplyType::integer) {
    if (telling()) {
      tell(StoryKind::read,
           outcome.replied() ? "read refused: " + outcome.reply.text : "read timed out");
    }
    co_return false;
  }
  last_read_ = outcome.reply.integer;
  if (telling()) tell(StoryKind::read, "reads " + std::to_string(last_read_));
  co_return true;
}

Task<void> ClientProcess::do_write(std::optional<int64_t> value, int64_t timeout_ms) {
  const int64_t v = value.value_or(last_read_ + 1);
  const uint64_t grant_id = grant_id_;
  Command command = resource_write_command(resource_request(), v);
  if (telling()) tell(StoryKind::write, "sends write " + std::to_string(v));
  Outcome outcome =
      co_await send(services_.resource_endpoint, std::move(command), Duration::from_ms(timeout_ms));
  if (outcome.replied() && outcome.reply.is_ok()) {
    services_.history->add_write_ack({grant_id, id(), simulator().now()});
    if (telling()) tell(StoryKind::write, "write " + std::to_string(v) + " acknowledged");
  } else if (telling()) {
    tell(StoryKind::write, outcome.replied()
                               ? "write " + std::to_string(v) + " refused: " + outcome.reply.text
                               : "write " + std::to_string(v) + " unacknowledged (timeout)");
  }
}

// A plain command on a node (its endpoint is after the lock's nodes and the resource: the runner
// appends one per command step's node), its reply told and recorded.
Task<void> ClientProcess::do_command(const StepSpec& step) {
  const std::optional<ProcessId> target = services_.resolve(step.node);
  NodeId endpoint = 0;
  for (std::size_t i = endpoints().size(); i-- > 0;) {
    if (target && endpoints()[i] == *target) {
      endpoint = static_cast<NodeId>(i);
      break;
    }
  }
  const std::string sent = describe(Command(step.args));
  const Instant sent_at = simulator().now();
  tell(StoryKind::command, "sends " + sent + " to " + step.node);
  const Outcome outcome =
      co_await send(endpoint, Command(step.args), Duration::from_ms(step.timeout_ms));
  const std::string reply = outcome.replied()                      ? describe(outcome.reply)
                            : outcome.kind == OutcomeKind::refused ? "(refused)"
                                                                   : "(timeout)";
  tell(StoryKind::command, step.node + " replies to " + sent + ": " + reply);
  if (services_.replies != nullptr) {
    services_.replies->push_back({.client = id(),
                                  .node = step.node,
                                  .command = step.args,
                                  .sent_at = sent_at,
                                  .reply = reply});
  }
}

Task<void> ClientProcess::run_steps() {
  for (const StepSpec& step : spec_.steps) {
    if (step.at_ms) co_await wait_for_true_time(Instant::from_ms(*step.at_ms));
    switch (step.kind) {
      case StepKind::acquire:
        co_await do_acquire();
        break;
      case StepKind::release:
        co_await do_release();
        break;
      case StepKind::extend:
        co_await do_extend();
        break;
      case StepKind::read:
        co_await do_read(step.timeout_ms);
        break;
      case StepKind::write:
        co_await do_write(step.value, step.timeout_ms);
        break;
      case StepKind::increment:
        if (co_await do_read(step.timeout_ms)) co_await do_write(std::nullopt, step.timeout_ms);
        break;
      case StepKind::sleep:
        co_await sleep(Duration::from_ms(step.duration_ms));
        break;
      case StepKind::stop_if_expired:
        if (validity_passed()) {
          tell(StoryKind::check, "its validity has passed: stops");
          co_return;
        }
        tell(StoryKind::check, "its validity has not passed: goes on");
        break;
      case StepKind::command:
        co_await do_command(step);
        break;
    }
  }
}

// The critical section's work: work_ms on the client's clock, cut in pieces of extend_every_ms
// each followed by an extension. False when an extension failed: the holder was told it can no
// longer count on the lock, so it abandons the critical section (as application code does).
Task<bool> ClientProcess::do_work(const WorkloadSpec& workload) {
  int64_t left_ms = workload.work_ms;
  while (left_ms > 0) {
    const int64_t piece_ms =
        workload.extend_every_ms > 0 ? std::min(left_ms, workload.extend_every_ms) : left_ms;
    co_await sleep(Duration::from_ms(piece_ms));
    left_ms -= piece_ms;
    if (workload.extend_every_ms == 0 || left_ms == 0 || !lease_) continue;
    if (!co_await do_extend()) {
      tell(StoryKind::work, "abandons its critical section");
      co_return false;
    }
  }
  co_return true;
}

Task<void> ClientProcess::run_workload() {
  const WorkloadSpec workload = *spec_.workload;
  co_await wait_for_true_time(Instant::from_ms(workload.start_ms));
  for (uint32_t i = 0; workload.iterations_max == 0 || i < workload.iterations_max; ++i) {
    if (co_await do_acquire()) {
      if (services_.resource.enabled && workload.touch_resource && co_await do_read(1'000)) {
        if (co_await do_work(workload)) co_await do_write(std::nullopt, 1'000);
      } else {
        co_await do_work(workload);
      }
      if (workload.release) co_await do_release();
    }
    co_await sleep(Duration::from_ms(workload.think_ms));
  }
}

}  // namespace redlock_sim
