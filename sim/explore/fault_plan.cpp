#include "sim/explore/fault_plan.hpp"

#include <algorithm>

#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/random.hpp"

namespace redlock_sim {

namespace {
struct ClassInfo {
  FaultClass fault_class;
  const char* name;
  const char* description;
};
constexpr ClassInfo class_infos[fault_class_count] = {
    {FaultClass::node_clock_step, "node-clock-step", "a node's wall clock jumps forward or back"},
    {FaultClass::node_clock_rate, "node-clock-rate", "a node's clock runs fast or slow"},
    {FaultClass::client_clock_step, "client-clock-step", "a client's wall clock jumps"},
    {FaultClass::client_clock_rate, "client-clock-rate", "a client's clock runs fast or slow"},
    {FaultClass::client_pause, "client-pause", "a client stops (GC) with its clocks running"},
    {FaultClass::node_pause, "node-pause", "a Redis node stops (SIGSTOP, VM migration)"},
    {FaultClass::node_crash, "node-crash", "kill -9 a node, restart it later"},
    {FaultClass::node_power_loss, "node-power-loss", "a node loses power, restarts later"},
    {FaultClass::partition, "partition", "a random set of processes is cut off for a while"},
    {FaultClass::message_delay, "message-delay", "one message is held for a long time"},
    {FaultClass::client_crash, "client-crash", "a client dies (its workload restarts)"},
};

const ClassInfo& info(FaultClass fault_class) {
  return class_infos[static_cast<int>(fault_class)];
}

int64_t nonzero(int64_t value, int64_t fallback) {
  return value == 0 ? fallback : value;
}
}  // namespace

const char* fault_class_name(FaultClass fault_class) {
  return info(fault_class).name;
}
const char* fault_class_description(FaultClass fault_class) {
  return info(fault_class).description;
}

std::optional<FaultClass> parse_fault_class(const std::string& name) {
  for (const ClassInfo& c : class_infos) {
    if (name == c.name) return c.fault_class;
  }
  return std::nullopt;
}

std::vector<FaultClass> all_fault_classes() {
  std::vector<FaultClass> out;
  for (const ClassInfo& c : class_infos)
    out.push_back(c.fault_class);
  return out;
}

std::optional<FaultClass> fault_class_of(const Scenario& scenario, const FaultSpec& fault) {
  bool node = false;
  bool client = false;
  for (const NodeSpec& n : scenario.nodes)
    node = node || n.name == fault.target;
  for (const ClientSpec& c : scenario.clients)
    client = client || c.name == fault.target;
  // Sentinels, the resource and the counter service are neither: no class draws faults on them.
  const FaultKindDescriptor& kind = fault_kind(fault.kind);
  const char* name = kind.any_target_class != nullptr ? kind.any_target_class
                     : node                           ? kind.node_class
                     : client                         ? kind.client_class
                                                      : nullptr;
  if (name == nullptr) return std::nullopt;
  return parse_fault_class(name);
}

std::vector<FaultClass> fault_classes_of(const Scenario& scenario) {
  std::vector<FaultClass> out;
  for (const FaultSpec& f : scenario.faults) {
    const std::optional<FaultClass> c = fault_class_of(scenario, f);
    if (c && std::find(out.begin(), out.end(), *c) == out.end()) out.push_back(*c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

struct Drawer {
  const Scenario& base;
  const ExploreBounds& bounds;
  Rng& rng;
  int64_t window_ms;

  std::string node() { return base.nodes[rng.below(base.nodes.size())].name; }
  std::string client() { return base.clients[rng.below(base.clients.size())].name; }
  int64_t at() { return rng.between(0, std::max<int64_t>(window_ms - 1, 0)); }

  FaultSpec draw(FaultClass fault_class) {
    FaultSpec f;
    f.at_ms = at();
    switch (fault_class) {
      case FaultClass::node_clock_step:
      case FaultClass::client_clock_step:
        f.kind = FaultKind::clock_step;
        f.target = fault_class == FaultClass::node_clock_step ? node() : client();
        f.delta_ms = nonzero(rng.between(-bounds.clock_step_ms_max, bounds.clock_step_ms_max),
                             bounds.clock_step_ms_max);
        break;
      case FaultClass::node_clock_rate:
      case FaultClass::client_clock_rate:
        f.kind = FaultKind::clock_rate;
        f.target = fault_class == FaultClass::node_clock_rate ? node() : client();
        f.rate = Rate::ppm(
            nonzero(rng.between(-bounds.clock_rate_ppm_max, bounds.clock_rate_ppm_max), 1));
        break;
      case FaultClass::client_pause:
      case FaultClass::node_pause:
        f.kind = FaultKind::pause;
        f.target = fault_class == FaultClass::client_pause ? client() : node();
        f.duration_ms = rng.between(1, bounds.pause_ms_max);
        break;
      case FaultClass::node_crash:
      case FaultClass::node_power_loss:
        f.kind = fault_class == FaultClass::node_crash ? FaultKind::crash : FaultKind::power_loss;
        f.target = node();
        f.duration_ms = rng.between(0, bounds.down_ms_max);
        break;
      case FaultClass::client_crash:
        f.kind = FaultKind::crash;
        f.target = client();
        f.duration_ms = rng.between(0, bounds.down_ms_max);
        break;
      case FaultClass::partition:
        draw_partition(f);
        break;
      case FaultClass::message_delay:
        f.kind = FaultKind::hold_message;
        f.from = client();
        f.until_ms = f.at_ms + rng.between(1, bounds.message_delay_ms_max);
        break;
    }
    return f;
  }

  void draw_partition(FaultSpec& f) {
    f.kind = FaultKind::partition;
    std::vector<std::string> everyone;
    for (const NodeSpec& n : base.nodes)
      everyone.push_back(n.name);
    for (const ClientSpec& c : base.clients)
      everyone.push_back(c.name);
    // A random proper, non-empty subset against the rest.
    while (f.side_a.empty() || f.side_a.size() == everyone.size()) {
      f.side_a.clear();
      for (const std::string& name : everyone) {
        if (rng.chance(1, 2)) f.side_a.push_back(name);
      }
    }
    for (const std::string& name : everyone) {
      if (std::find(f.side_a.begin(), f.side_a.end(), name) == f.side_a.end()) {
        f.side_b.push_back(name);
      }
    }
    f.one_way = rng.chance(1, 4);
    f.until_ms = f.at_ms + rng.between(1, bounds.partition_ms_max);
  }
};

}  // namespace

int64_t scenario_ttl_ms(const Scenario& base) {
  int64_t ttl_ms = 0;
  for (const ClientSpec& client : base.clients) {
    int64_t client_ttl_ms = default_ttl_ms;
    for (const char* key : {"lease_ms", "ttl_ms"}) {
      const auto found = client.params.find(key);
      if (found == client.params.end()) continue;
      const int64_t* value = std::get_if<int64_t>(&found->second);
      if (value != nullptr && *value > 0) client_ttl_ms = *value;
    }
    ttl_ms = std::max(ttl_ms, client_ttl_ms);
  }
  return ttl_ms > 0 ? ttl_ms : default_ttl_ms;
}

ExploreBounds resolve_bounds(const ExploreBounds& bounds, const Scenario& base) {
  ExploreBounds out = bounds;
  const int64_t half = std::max<int64_t>(base.limits.duration_ms / 2, 1);
  // Twice the TTL: a pause, a restart or a held message longer than the TTL is what breaks a
  // lock, and a bound of half a 60 s run let 30 s faults dominate a 10 s lock's findings.
  const int64_t relative = std::min(half, 2 * std::min(scenario_ttl_ms(base), half));
  for (int64_t* bound : {&out.clock_step_ms_max, &out.pause_ms_max, &out.down_ms_max,
                         &out.partition_ms_max, &out.message_delay_ms_max}) {
    if (*bound <= 0) *bound = relative;
  }
  // Faults must start inside the run (the parser refuses others), so the window is clamped.
  if (out.window_ms <= 0 || out.window_ms > base.limits.duration_ms) {
    out.window_ms = base.limits.duration_ms;
  }
  return out;
}

FaultPlan draw_fault_plan(const Scenario& base, uint64_t seed,
                          const std::vector<FaultClass>& enabled, const ExploreBounds& requested) {
  const ExploreBounds bounds = resolve_bounds(requested, base);
  FaultPlan plan;
  std::vector<FaultClass> classes = enabled;
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  const int64_t window = bounds.window_ms;
  for (FaultClass fault_class : classes) {
    Rng rng = Rng::derive(seed, std::string("explore/") + fault_class_name(fault_class));
    if (!rng.chance(bounds.on_numerator, bounds.on_denominator)) continue;
    plan.classes_on.push_back(fault_class);
    Drawer drawer{base, bounds, rng, window};
    const auto count = static_cast<uint32_t>(rng.between(1, bounds.faults_per_class_max));
    for (uint32_t i = 0; i < count; ++i) {
      plan.faults.push_back(drawer.draw(fault_class));
      plan.fault_classes.push_back(fault_class);
    }
  }
  return plan;
}

Scenario apply_fault_plan(const Scenario& base, const FaultPlan& plan, uint64_t seed) {
  Scenario scenario = base;
  scenario.seed = seed;
  scenario.faults.insert(scenario.faults.end(), plan.faults.begin(), plan.faults.end());
  return scenario;
}

}  // namespace redlock_sim
