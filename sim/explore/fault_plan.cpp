#include "sim/explore/fault_plan.hpp"

#include <algorithm>

#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/assert.hpp"
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

// The swarm's view for one class's draws: a target of the class's side (node or client), the
// class's random stream and the run's bounds. Which kind a class draws, and how, is the kind's
// (its descriptor names its classes and draws its fields).
class Drawer : public FaultDraw {
 public:
  Drawer(const Scenario& base, const ExploreBounds& bounds, Rng& rng, int64_t window_ms)
      : base_(base), rng_(rng), window_ms_(window_ms) {
    bounds_ = FaultDrawBounds{.clock_step_ms_max = bounds.clock_step_ms_max,
                              .clock_rate_ppm_max = bounds.clock_rate_ppm_max,
                              .pause_ms_max = bounds.pause_ms_max,
                              .down_ms_max = bounds.down_ms_max,
                              .partition_ms_max = bounds.partition_ms_max,
                              .message_delay_ms_max = bounds.message_delay_ms_max};
  }

  FaultSpec draw(FaultClass fault_class) {
    const std::string class_name = fault_class_name(fault_class);
    const FaultKindDescriptor* kind = nullptr;
    for (const FaultKindDescriptor* candidate : fault_kinds()) {
      const auto is = [&](const char* name) { return name != nullptr && class_name == name; };
      if (is(candidate->node_class) || is(candidate->any_target_class)) {
        on_node_ = true;
      } else if (is(candidate->client_class)) {
        on_node_ = false;
      } else {
        continue;
      }
      kind = candidate;
      break;
    }
    SIM_ASSERT(kind != nullptr && kind->draw != nullptr);
    FaultSpec f;
    f.at_ms = rng_.between(0, std::max<int64_t>(window_ms_ - 1, 0));
    f.kind = kind->name;
    kind->draw(*this, f);
    return f;
  }

  std::string target() override { return on_node_ ? node() : client(); }
  std::string client() override { return base_.clients[rng_.below(base_.clients.size())].name; }
  std::vector<std::string> everyone() const override {
    std::vector<std::string> out;
    for (const NodeSpec& n : base_.nodes)
      out.push_back(n.name);
    for (const ClientSpec& c : base_.clients)
      out.push_back(c.name);
    return out;
  }
  int64_t between(int64_t low, int64_t high) override { return rng_.between(low, high); }
  bool chance(uint32_t numerator, uint32_t denominator) override {
    return rng_.chance(numerator, denominator);
  }
  const FaultDrawBounds& bounds() const override { return bounds_; }

 private:
  std::string node() { return base_.nodes[rng_.below(base_.nodes.size())].name; }

  const Scenario& base_;
  FaultDrawBounds bounds_;
  Rng& rng_;
  int64_t window_ms_;
  bool on_node_ = true;
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
