#include "reports/html_report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "reports/html_model.hpp"
#include "reports/story.hpp"
#include "reports/tool_version.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim {

// The page's stylesheet and script (reports/html_report.css, reports/html_report.js), embedded
// at build time by reports/embed_assets.cmake.
extern const char* const html_report_css;
extern const char* const html_report_js;

namespace {

using html::escape;
using html::ms_text;
using html::us_of;

const std::string& name_of(const ScenarioResult& result, ProcessId id) {
  return result.processes.at(id).name;
}

// How a sentence about a fault's process joins its name to the story line, by the fault's kind.
std::string subject_and_verb(const std::string& name, const std::string& text,
                             const RunEvent& event) {
  if (event.kind == RunEventKind::supervisor_restart) return name + " was " + text;
  if (event.kind != RunEventKind::fault_applied) return name + " " + text;
  const FaultKindDescriptor& kind = fault_kind(event.fault.kind);
  if (kind.sentence != nullptr) return kind.sentence(name, text);
  return name + " " + text;
}

// A story line as a sentence about its process: "N3's wall clock steps +10000 ms".
std::string sentence(const ScenarioResult& result, const StoryEvent& e) {
  const std::string& name = name_of(result, e.process);
  std::string said = name + " " + e.text;
  if (e.event) {
    said = subject_and_verb(name, e.text, result.events.at(*e.event));
  } else if (e.kind == StoryKind::grant) {
    said = name + " was " + e.text;  // "granted 'lock' (grant 3), ..."
  }
  return "At " + ms_text(us_of(e.at)) + " ms " + said + ".";
}

// Which nodes held whose key at an instant: what the nodes' reality was when beliefs clashed.
std::string keys_at(const html::Model& model, Instant at) {
  const ScenarioResult& result = *model.result;
  std::map<std::string, std::vector<std::string>> nodes_of_owner;
  for (const KeyLifetime& k : result.keys) {
    if (!result.locks.count(k.key) || k.start > at || k.end <= at) continue;
    const auto owner = model.owner_of_token.find(k.value);
    const std::string who =
        owner == model.owner_of_token.end() ? "an unknown" : name_of(result, owner->second) + "'s";
    nodes_of_owner[who].push_back(name_of(result, k.node));
  }
  std::string out;
  for (const auto& [who, nodes] : nodes_of_owner) {
    std::string list;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      list += (i == 0 ? "" : i + 1 == nodes.size() ? " and " : ", ") + nodes[i];
    out += (out.empty() ? "" : "; ") + list + " held " + who + " key";
  }
  return out.empty() ? "" : " At that moment " + out + ".";
}

std::string violation_paragraph(const html::Model& model, const Violation& v) {
  const ScenarioResult& result = *model.result;
  std::string out;
  // In a long run the involved clients did much before: tell what happened in the window, and
  // at most the last few lines of it.
  constexpr std::size_t sentences_max = 8;
  std::vector<const StoryEvent*> events;
  for (const StoryEvent* e : violation_story_events(result, v, true)) {
    if (us_of(e->at) >= model.window_start_us) events.push_back(e);
  }
  const std::size_t first = events.size() > sentences_max ? events.size() - sentences_max : 0;
  if (first > 0) out += "(" + std::to_string(first) + " earlier lines, in the timeline.) ";
  for (std::size_t i = first; i < events.size(); ++i)
    out += escape(sentence(result, *events[i])) + " ";
  if (v.kind == "overlap") {
    std::string names;
    for (std::size_t i = 0; i < v.clients.size(); ++i)
      names += (i ? " and " : "") + name_of(result, v.clients[i]);
    out += "<strong>From " + ms_text(us_of(v.start)) + " to " + ms_text(us_of(v.end)) + " ms (" +
           ms_text(us_of(v.end) - us_of(v.start)) + " ms) " + escape(names) +
           " both believed they held the lock: mutual exclusion is violated.</strong>" +
           escape(keys_at(model, v.start));
  } else {
    std::string checker = v.checker;
    std::replace(checker.begin(), checker.end(), '_', ' ');
    std::string kind = v.kind;
    std::replace(kind.begin(), kind.end(), '_', ' ');
    const std::string who = v.clients.empty() ? "" : name_of(result, v.clients.front()) + "'s ";
    const std::string what =
        v.kind == "stale_write" ? "The resource accepted " + who + v.description : v.description;
    std::string sentence_text = what;
    if (!sentence_text.empty())
      sentence_text[0] = static_cast<char>(std::toupper(sentence_text[0]));
    out += "<strong>" + escape(sentence_text) + ": " + escape(checker) + " is violated (" +
           escape(kind) + ").</strong>";
  }
  return out;
}

std::string story_paragraph(const html::Model& model) {
  const ScenarioResult& result = *model.result;
  std::string out;
  if (!result.violations.empty()) {
    out = violation_paragraph(model, result.violations.front());
    if (result.violations.size() > 1) {
      out += " (" + std::to_string(result.violations.size() - 1) +
             " more violation(s) are highlighted below and listed in the JSON result.)";
    }
  } else {
    out = "No checker found a violation in " + std::to_string(result.stats.simulated_ms) +
          " ms of simulated time: " + std::to_string(result.stats.grants) +
          " grant(s), and no two clients believed they held the lock at the same time.";
  }
  for (const ResourceOp& op : result.resource_log) {
    if (op.accepted) continue;
    out += " The resource rejected " + escape(name_of(result, op.client)) + "'s " +
           resource_op_kind_name(op.kind) + " under grant " + std::to_string(op.grant_id) + " at " +
           ms_text(us_of(op.applied_at)) + " ms (" + escape(op.rejection) +
           "): fencing stopped the stale write.";
    break;
  }
  return out;
}

nlohmann::json data_json(const html::Model& model) {
  const ScenarioResult& r = *model.result;
  using nlohmann::json;
  json processes = json::array();
  for (ProcessId id = 0; id < r.processes.size(); ++id) {
    json clock = json::array();
    for (const html::ClockPoint& p : model.clocks[id])
      clock.push_back({p.at_us, p.wall_us, p.monotonic_us});
    processes.push_back({{"name", r.processes[id].name},
                         {"role", r.processes[id].role},
                         {"lane", model.lane_of[id]},
                         {"clock", clock}});
  }
  json holds = json::array();
  for (std::size_t i : model.holds)
    holds.push_back({r.holds[i].client, r.holds[i].grant_id, us_of(r.holds[i].start),
                     model.end_us(r.holds[i].end)});
  json keys = json::array();
  for (std::size_t i : model.keys) {
    const KeyLifetime& k = r.keys[i];
    const auto owner = model.owner_of_token.find(k.value);
    keys.push_back({k.node, owner == model.owner_of_token.end() ? -1 : int(owner->second),
                    us_of(k.start), model.end_us(k.end), k.end_reason,
                    k.expire_at_ms ? json(*k.expire_at_ms - default_epoch_ms) : json(),
                    k.expires_from_ms ? json(*k.expires_from_ms) : json()});
  }
  json spans = json::array();
  for (const html::Span& s : model.pauses)
    spans.push_back({s.process, "paused", s.start_us, s.end_us});
  for (const html::Span& s : model.downs)
    spans.push_back({s.process, "down", s.start_us, s.end_us});
  json steps = json::array();
  for (std::size_t i : model.steps) {
    const StoryEvent& e = r.story[i];
    steps.push_back({us_of(e.at), e.process, std::string(story_kind_name(e.kind)), e.text, i});
  }
  json ops = json::array();
  for (std::size_t i : model.resource_ops) {
    const ResourceOp& op = r.resource_log[i];
    ops.push_back(
        {us_of(op.applied_at), op.client, resource_op_kind_name(op.kind), op.value, op.accepted});
  }
  return {{"run_end", model.run_end_us},
          {"epoch_ms", default_epoch_ms},
          {"window", {model.window_start_us, model.window_end_us}},
          {"plot", {html::plot_left, html::plot_right}},
          {"geometry", {html::axis_height, html::lane_height}},
          {"processes", processes},
          {"holds", holds},
          {"keys", keys},
          {"spans", spans},
          {"steps", steps},
          {"ops", ops}};
}

std::string verdict_badge(const char* label, Verdict verdict) {
  const std::string name = verdict_name(verdict);
  const std::string text = verdict == Verdict::not_checked ? "not checked" : name;
  const char* icon = verdict == Verdict::violated ? "✗ " : verdict == Verdict::holds ? "✓ " : "– ";
  return "<span class=\"verdict verdict-" + name + "\">" + label + ": " + icon + text + "</span>";
}

std::string header(const ScenarioResult& result, const std::string& program,
                   const html::Model& model) {
  std::string out = "<header><h1>" + escape(result.scenario) + "</h1>";
  if (!result.description.empty())
    out += "<p class=\"description\">" + escape(result.description) + "</p>";
  out += "<p class=\"verdicts\">" + verdict_badge("mutual exclusion", result.mutual_exclusion) +
         verdict_badge("resource safety", result.resource_safety) +
         verdict_badge("liveness", result.liveness) + "</p>";
  out += "<p class=\"story\" id=\"story\">" + story_paragraph(model) + "</p>";
  out += "<p class=\"meta\">seed " + std::to_string(result.seed) + " · " +
         std::to_string(result.stats.events) + " events · " +
         std::to_string(result.stats.simulated_ms) +
         (result.staged_for_real ? " ms staged for real with redis-servers"
                                 : " ms simulated · trace digest " + escape(result.trace_digest)) +
         " · reproduce: <code>" + escape(program) + (result.staged_for_real ? " real " : " run ") +
         escape(result.source.empty() ? result.scenario + ".json" : result.source) + " --seed " +
         std::to_string(result.seed) + " --html report.html</code> · redlock-sim " +
         tool_version() + " (commit " + escape(tool_commit()) + ")</p></header>";
  return out;
}

std::string controls(const ScenarioResult& result, const html::Model& model) {
  std::string out =
      "<div class=\"controls\" id=\"controls\"><span class=\"group\">Zoom: "
      "<button id=\"zoom-window\" type=\"button\">interesting window</button>"
      "<button id=\"zoom-all\" type=\"button\">whole run</button>"
      "<button id=\"zoom-in\" type=\"button\">+</button>"
      "<button id=\"zoom-out\" type=\"button\">−</button> <small>(or drag across the time "
      "axis)</small></span><span class=\"group\"><label><input type=\"checkbox\" "
      "id=\"show-messages\"";
  if (model.messages.size() <= 200) out += " checked";
  out += "> messages (" + std::to_string(model.messages.size()) + ")</label> from/to: ";
  for (const ProcessInfo& p : result.processes) {
    out += "<label class=\"filter\"><input type=\"checkbox\" class=\"message-filter\" checked" +
           std::string(" value=\"") + escape(p.name) + "\">" + escape(p.name) + "</label>";
  }
  return out + "</span></div>";
}

std::string step_panel(const html::Model& model) {
  return "<section class=\"steps\" id=\"steps\"><div class=\"step-controls\">"
         "<button id=\"step-prev\" type=\"button\">◀ previous</button>"
         "<input id=\"step-slider\" type=\"range\" min=\"0\" max=\"" +
         std::to_string(model.steps.empty() ? 0 : model.steps.size() - 1) +
         "\" value=\"0\" aria-label=\"step through the run\">"
         "<button id=\"step-next\" type=\"button\">next ▶</button>"
         "<button id=\"step-play\" type=\"button\">▶ play</button>"
         "<button id=\"presenter\" type=\"button\" title=\"large type for a projector (key p)\">"
         "presenter mode</button>"
         "<span id=\"step-text\" class=\"step-text\">Step through the run: each process's state "
         "at the cursor appears here.</span></div><table id=\"state\" class=\"state\"><thead>"
         "<tr><th>process</th><th>its wall clock</th><th>its monotonic clock</th><th>state at "
         "the cursor</th></tr></thead><tbody></tbody></table></section>";
}

std::string legend() {
  return R"LEGEND(<section class="legend" id="legend"><h2>How to read it</h2><ul>
<li><svg width="34" height="14"><rect width="34" height="14" fill="#0072B2"/></svg> <b>hold</b>: a client <em>believed</em> it held the lock (true time, from the grant until its own clock said the validity ended, or it released)</li>
<li><svg width="34" height="14"><rect width="34" height="14" fill="url(#legend-key)" stroke="#333"/></svg> <b>key</b>: a node <em>held</em> the lock key, striped in the colour of the client whose token it is (it expires on the node's own wall clock)</li>
<li><svg width="34" height="14"><rect width="34" height="14" fill="url(#legend-overlap)" stroke="#D55E00" stroke-width="2"/></svg> <b>OVERLAP</b>: two clients believed they held the lock at once</li>
<li><span class="key-icon violation-text">✗ STALE WRITE ACCEPTED</span> / <span class="key-icon rejected-text">✓ stale write rejected</span>: a write under an older grant after one under a newer grant</li>
<li><svg width="34" height="14"><rect width="34" height="14" fill="url(#legend-pause)"/></svg> paused (stop-the-world) · <svg width="34" height="14"><rect width="34" height="14" fill="url(#legend-down)"/></svg> down (crashed)</li>
<li><svg width="14" height="14"><path d="M2 1h10l-5 8z" fill="#000"/></svg> wall clock stepped · <svg width="14" height="14"><circle cx="7" cy="7" r="4" fill="#000"/></svg> clock rate changed · <svg width="14" height="14"><path d="M2 2l10 10m0 -10l-10 10" stroke="#000" stroke-width="2"/></svg> crash · <svg width="14" height="14"><path d="M2 2l5 8l5 -8z" fill="#000"/></svg> restart · <svg width="14" height="14"><path d="M7 1l5 5l-5 5l-5 -5z" fill="#000"/></svg> failover (promoted)</li>
<li><svg width="34" height="10"><rect width="34" height="8" y="1" fill="url(#legend-partition)"/></svg> partition: the lane's process is cut off from the processes named</li>
<li><svg width="34" height="14"><line x1="2" y1="3" x2="30" y2="11" stroke="#555" marker-end="url(#legend-arrow)"/></svg> message (dashed: reply; ending mid-way: lost) · dots under a lane: what the process did (hover for details)</li>
<li>Colours are the Okabe-Ito palette; every mark also has a shape, a pattern or a label.</li>
</ul><svg width="0" height="0" aria-hidden="true"><defs>
<pattern id="legend-key" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff"/><rect width="4" height="8" fill="#0072B2"/></pattern>
<pattern id="legend-overlap" width="10" height="10" patternUnits="userSpaceOnUse"><path d="M0 0L10 10M10 0L0 10" stroke="#D55E00" stroke-width="1.2"/></pattern>
<pattern id="legend-pause" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" fill="#eee"/><rect width="1.5" height="6" fill="#888"/></pattern>
<pattern id="legend-down" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ddd"/><path d="M0 0L6 6M6 0L0 6" stroke="#333"/></pattern>
<pattern id="legend-partition" width="6" height="6" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="1.3" fill="#555"/></pattern>
<marker id="legend-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="6" markerHeight="6" orient="auto"><path d="M0 0L8 4L0 8z" fill="#555"/></marker>
</defs></svg></section>)LEGEND";
}

}  // namespace

std::string html_report(const ScenarioResult& result, const HtmlOptions& options) {
  const html::Model model = html::build_model(result, options);
  std::string data = data_json(model).dump();
  // "</" inside the JSON would end the script element early.
  for (std::size_t at = data.find("</"); at != std::string::npos; at = data.find("</", at))
    data.replace(at, 2, "<\\/");
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>redlock-sim: " +
      escape(result.scenario) + "</title><style>" + html_report_css + "</style></head><body>\n";
  out += header(result, options.program, model) + controls(result, model);
  out += "<div class=\"chart-wrap\" id=\"chart-wrap\">" + html::chart_svg(model) +
         "<div id=\"tooltip\" class=\"tooltip\" hidden></div></div>\n";
  out += step_panel(model);
  out +=
      "<section class=\"offsets\"><h2>Clock offsets: each process's wall clock minus true "
      "time</h2>" +
      html::offset_svg(model) + "</section>\n";
  out += legend();
  if (!model.omitted.empty()) {
    out += "<p class=\"omitted\" id=\"omitted\">To keep this page small and fast: ";
    for (std::size_t i = 0; i < model.omitted.size(); ++i)
      out += (i ? "; " : "") + escape(model.omitted[i]);
    out += ". The JSON result and <code>--trace</code> export have everything.</p>";
  }
  out += "\n<script type=\"application/json\" id=\"report-data\">" + data + "</script>\n<script>" +
         html_report_js + "</script>\n</body></html>\n";
  return out;
}

}  // namespace redlock_sim
