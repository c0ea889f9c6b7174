#include "reports/trace_json.hpp"

#include "reports/tool_version.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

namespace redlock_sim {
namespace {

using nlohmann::json;

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

const std::string& name_of(const ScenarioResult& result, uint32_t id) {
  static const std::string unknown = "?";
  return id < result.processes.size() ? result.processes[id].name : unknown;
}

// A record's a and b mean different things per kind: named here so tools need not know.
json record_json(const ScenarioResult& result, const TraceRecord& r) {
  json out = {{"t_ns", r.time_ns},
              {"kind", trace_kind_name(r.kind)},
              {"process", name_of(result, r.process)}};
  switch (r.kind) {
    case TraceKind::message_sent:
      out.update({{"to", name_of(result, r.peer)},
                  {"message_id", r.a},
                  {"delivery_ns", static_cast<int64_t>(r.b)}});
      break;
    case TraceKind::message_dropped:
      out.update({{"to", name_of(result, r.peer)},
                  {"message_id", r.a},
                  {"reason", drop_reason_name(static_cast<DropReason>(r.b))}});
      break;
    case TraceKind::message_delivered:
      out.update(
          {{"from", name_of(result, r.peer)}, {"message_id", r.a}, {"content_hash", hex(r.b)}});
      break;
    case TraceKind::event_deferred:
      out.update({{"from", name_of(result, r.peer)}, {"payload", r.a}});
      break;
    case TraceKind::timer_fired:
      out.update({{"timer_slot", r.a}, {"generation", r.b}});
      break;
    case TraceKind::clock_rate_set:
      out["rate"] = {r.a, r.b};
      break;
    case TraceKind::clock_stepped:
      out["delta_ns"] = static_cast<int64_t>(r.a);
      break;
    case TraceKind::action:
      out["action_index"] = r.a;
      break;
    case TraceKind::note:
      out.update({{"note_index", r.peer}, {"a", r.a}, {"b", hex(r.b)}});
      break;
    default:
      break;
  }
  return out;
}

json message_json(const ScenarioResult& result, const MessageLogEntry& m) {
  json out = {
      {"id", m.id},          {"from", name_of(result, m.from)}, {"to", name_of(result, m.to)},
      {"reply", m.is_reply}, {"sent_ns", m.sent_at.ns()},       {"text", m.text}};
  if (m.delivered_at) out["delivered_ns"] = m.delivered_at->ns();
  if (m.dropped) out["dropped"] = drop_reason_name(*m.dropped);
  return out;
}

json story_json(const ScenarioResult& result, const StoryEvent& e) {
  return {{"t_ns", e.at.ns()},
          {"process", name_of(result, e.process)},
          {"wall_ns", e.wall.ns()},
          {"monotonic_ns", e.monotonic.ns()},
          {"kind", std::string(story_kind_name(e.kind))},
          {"text", e.text}};
}

json end_ns(Instant end) {
  return end == Instant::max() ? json() : json(end.ns());
}

// Writes `"name": [\n item,\n item\n]` with one item per line, each item written as soon as
// `each` hands it over: nothing of the document is kept but the item being written.
class ArrayField {
 public:
  ArrayField(std::ostream& out, const char* name, bool last) : out_(out), last_(last) {
    out_ << "  \"" << name << "\": [";
  }
  ~ArrayField() { out_ << (first_ ? "]" : "\n  ]") << (last_ ? "\n" : ",\n"); }
  ArrayField(const ArrayField&) = delete;
  ArrayField& operator=(const ArrayField&) = delete;
  void operator()(const json& item) {
    out_ << (first_ ? "\n    " : ",\n    ") << item.dump();
    first_ = false;
  }

 private:
  std::ostream& out_;
  bool last_;
  bool first_ = true;
};

void run_items(std::ostream& out, const ScenarioResult& result, const char* which, bool last) {
  ArrayField items(out, which, last);
  const std::string what = which;
  if (what == "holds") {
    for (const HoldInterval& h : result.holds)
      items({{"client", name_of(result, h.client)},
             {"grant", h.grant_id},
             {"lock", h.lock},
             {"start_ns", h.start.ns()},
             {"end_ns", end_ns(h.end)}});
  } else if (what == "keys") {
    for (const KeyLifetime& k : result.keys)
      items({{"node", name_of(result, k.node)},
             {"key", k.key},
             {"value", k.value},
             {"start_ns", k.start.ns()},
             {"end_ns", end_ns(k.end)},
             {"end_reason", k.end_reason},
             {"expire_at_ms", k.expire_at_ms ? json(*k.expire_at_ms) : json()},
             {"expires_from_ms", k.expires_from_ms ? json(*k.expires_from_ms) : json()}});
  } else if (what == "grants") {
    for (const GrantRecord& g : result.history.grants())
      items({{"grant", g.grant_id},
             {"client", name_of(result, g.client)},
             {"lock", g.lock},
             {"granted_ns", g.granted_at.ns()},
             {"token", g.token},
             {"fencing_token", g.fencing_token ? json(*g.fencing_token) : json()},
             {"ended_ns", g.ended_at ? json(g.ended_at->ns()) : json()},
             {"end_reason", g.end_reason}});
  } else if (what == "resource_ops") {
    for (const ResourceOp& op : result.resource_log)
      items({{"applied_ns", op.applied_at.ns()},
             {"client", name_of(result, op.client)},
             {"grant", op.grant_id},
             {"op", resource_op_kind_name(op.kind)},
             {"resource", op.resource},
             {"value", op.value},
             {"token", op.token ? json(*op.token) : json()},
             {"accepted", op.accepted},
             {"rejection", op.rejection}});
  } else if (what == "violations") {
    for (const Violation& v : result.violations) {
      json clients = json::array();
      for (ProcessId c : v.clients)
        clients.push_back(name_of(result, c));
      items({{"checker", v.checker},
             {"kind", v.kind},
             {"clients", clients},
             {"grants", v.grants},
             {"start_ns", v.start.ns()},
             {"end_ns", v.end.ns()},
             {"description", v.description}});
    }
  }
}

}  // namespace

void write_trace_json(std::ostream& out, const ScenarioResult& result) {
  json processes = json::array();
  for (ProcessId id = 0; id < result.processes.size(); ++id)
    processes.push_back(
        {{"id", id}, {"name", result.processes[id].name}, {"role", result.processes[id].role}});
  out << "{\n";
  out << "  \"format\": \"redlock-sim-trace\",\n  \"version\": 1,\n";
  out << "  \"scenario\": " << json(result.scenario).dump() << ",\n";
  out << "  \"seed\": " << result.seed << ",\n";
  out << "  \"tool\": " << tool_json().dump() << ",\n";
  out << "  \"trace_digest\": " << json(result.trace_digest).dump() << ",\n";
  out << "  \"trace_truncated\": " << (result.trace_truncated ? "true" : "false") << ",\n";
  out << "  \"processes\": " << processes.dump() << ",\n";
  {
    ArrayField items(out, "records", false);
    for (const TraceRecord& r : result.trace)
      items(record_json(result, r));
  }
  {
    ArrayField items(out, "messages", false);
    for (const MessageLogEntry& m : result.messages)
      items(message_json(result, m));
  }
  {
    ArrayField items(out, "story", false);
    for (const StoryEvent& e : result.story)
      items(story_json(result, e));
  }
  for (const char* which : {"grants", "holds", "keys", "resource_ops"})
    run_items(out, result, which, false);
  run_items(out, result, "violations", true);
  out << "}\n";
}

std::string trace_json_text(const ScenarioResult& result) {
  std::ostringstream out;
  write_trace_json(out, result);
  return std::move(out).str();
}

}  // namespace redlock_sim
