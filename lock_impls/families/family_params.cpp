#include "lock_impls/families/family_params.hpp"

namespace redlock_sim {

ParamTable plus(ParamTable rows, ParamTable more) {
  rows.insert(rows.end(), more.begin(), more.end());
  return rows;
}

// Redlock's rows: the timing rows with the fan-out between the clock and the
// timeout (the order `list --verbose` has always shown), and the extension quorum.
ParamTable redlock_params(const RedlockOptions& d) {
  ParamTable rows = timing_params(d);
  rows.insert(rows.begin() + 2,
              {choice_param("fan_out", {"parallel", "sequential"},
                            d.fan_out == FanOut::parallel ? 0 : 1, "how nodes are contacted"),
               choice_param("wait", {"all", "quorum"}, d.wait == FanOutMode::wait_for_all ? 0 : 1,
                            "wait for every node or return at quorum")});
  rows.push_back(
      count_param("extend_quorum", "nodes", d.extend_quorum, "nodes an extension needs (0: Q)"));
  return rows;
}

// The Redis docs apply no drift to one instance; the catalogue's convention does (S15, S22), so
// single-instance locks take the drift rows too.
ParamTable single_params(const SingleInstanceOptions& d) {
  return timing_params(d);
}

ParamSpec replicas_param(const HashLockOptions& d) {
  return count_param("replicas", "replicas", d.replicas, "replicas behind the master");
}
ParamSpec acks_param(const HashLockOptions& d) {
  return count_param("acks_required", "replicas", d.acks_required, "replica acks needed (0: all)");
}
ParamSpec lease_param(std::string help) {
  return integer_param("lease_ms", "ms", -1, -1, param_ms_max, std::move(help));
}
ParamSpec wait_time_param(const HashLockOptions& d) {
  return ms_param("wait_time_ms", d.wait_time, "how long to wait for a busy lock (-1: forever)",
                  -1);
}
ParamSpec hash_timeout_param(const HashLockOptions& d) {
  return ms_param("request_timeout_ms", d.request_timeout, "per-request timeout");
}
ParamSpec period_param() {
  return derived(ms_param("watchdog_period_ms", Duration::zero(),
                          "time between renewals (default: the lock's own rule)", 1));
}
ParamSpec tells_param(bool fallback) {
  return flag_param("tells_holder", fallback, "a failed renewal sets Lease::lost");
}
ParamSpec auto_extend_param(bool fallback) {
  return flag_param("auto_extend", fallback, "run the watchdog / auto-extension");
}

void apply_single(const ParamValues& p, SingleInstanceOptions& o) {
  apply_timing(p, o);
}

void apply_redlock(const ParamValues& p, RedlockOptions& o) {
  apply_timing(p, o);
  if (p.given("fan_out")) {
    o.fan_out = p.choice("fan_out") == 0 ? FanOut::parallel : FanOut::sequential;
  }
  if (p.given("wait")) {
    o.wait = p.choice("wait") == 0 ? FanOutMode::wait_for_all : FanOutMode::return_at_quorum;
  }
  if (p.given("extend_quorum")) o.extend_quorum = p.count("extend_quorum");
}

// Only the rows the lock's table declares can be given (redisson-redlock has no replicas).
void apply_hash(const ParamValues& p, HashLockOptions& o) {
  if (p.given("replicas")) o.replicas = p.count("replicas");
  if (p.given("acks_required")) o.acks_required = p.count("acks_required");
  o.replica_wait = p.ms_or("replica_wait_ms", o.replica_wait);
  // Redisson tests `leaseTime > 0`: lock(0, unit) is lock(), the watchdog with its 30 s lease.
  if (p.given("lease_ms") && p.integer("lease_ms") > 0) {
    o.lease = p.ms("lease_ms");
    o.lease_given = true;
  }
  o.wait_time = p.ms_or("wait_time_ms", o.wait_time);
  o.request_timeout = p.ms_or("request_timeout_ms", o.request_timeout);
}

void apply_watchdog(const ParamValues& p, WatchdogOptions& o) {
  o.period = p.ms_or("watchdog_period_ms", o.period);
  if (p.given("tells_holder")) o.tells_holder = p.flag("tells_holder");
}

std::unique_ptr<LockClient> redlock_client(Port& port, const ParamValues& p, RedlockOptions o) {
  o.node_count = p.node_count();
  apply_redlock(p, o);
  return std::make_unique<RedlockClient>(port, o);
}

std::unique_ptr<LockClient> single_client(Port& port, const ParamValues& p,
                                          SingleInstanceOptions o) {
  apply_single(p, o);
  return std::make_unique<SingleInstanceClient>(port, o);
}

std::unique_ptr<LockClient> watched(Port& port, const ParamValues& p,
                                    std::unique_ptr<LockClient> inner, WatchdogOptions w) {
  apply_watchdog(p, w);
  return std::make_unique<WatchdogClient>(port, std::move(inner), w);
}

LockEntry lock_entry(std::string name, LockKind kind, std::string description, std::string models,
                     ParamTable params, LockMaker make) {
  return LockEntry{.name = std::move(name),
                   .kind = kind,
                   .description = std::move(description),
                   .models = std::move(models),
                   .params = std::move(params),
                   .fencing_tokens = false,
                   .make = std::move(make)};
}

LockEntry lock_entry(const LockText& text, LockKind kind, ParamTable params, LockMaker make) {
  return lock_entry(std::string(text.name), kind, std::string(text.description),
                    std::string(text.models), std::move(params), std::move(make));
}

LockEntry redlock_profile(RedlockProfile profile) {
  LockEntry entry = lock_entry(
      profile.text, LockKind::profile, plus(redlock_params(profile.options(5)), profile.more),
      [options = profile.options, adjust = profile.adjust](Port& port, const ParamValues& p) {
        RedlockOptions o = options(p.node_count());
        if (adjust != nullptr) adjust(p, o);
        return redlock_client(port, p, o);
      });
  entry.multi_node = true;  // every listed node is one of its masters
  return entry;
}

LockEntry single_profile(SingleProfile profile) {
  return lock_entry(
      profile.text, LockKind::profile, plus(single_params(profile.options()), profile.more),
      [options = profile.options, adjust = profile.adjust, watchdog = profile.watchdog](
          Port& port, const ParamValues& p) {
        SingleInstanceOptions o = options();
        apply_single(p, o);
        if (adjust != nullptr) adjust(o);
        return auto_extended(port, p, std::make_unique<SingleInstanceClient>(port, o), watchdog, o);
      });
}

}  // namespace redlock_sim
