#include "reports/compare_report.hpp"

#include <algorithm>
#include <cstdio>

#include "reports/html_report.hpp"
#include "reports/tool_version.hpp"

namespace redlock_sim {

namespace {

std::string attribute_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

struct Row {
  const char* title;
  Verdict ScenarioResult::*verdict;
};

constexpr Row rows[] = {{"mutual exclusion", &ScenarioResult::mutual_exclusion},
                        {"resource safety", &ScenarioResult::resource_safety},
                        {"liveness", &ScenarioResult::liveness}};

std::string padded(const std::string& text, std::size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

// Keeps both reports on the time span that covers both opening windows, and each zoom of one
// on the other: the plots have the same geometry, so one time window is one axis.
constexpr const char* align_script = R"SCRIPT(
(function () {
  'use strict';
  const frames = [document.getElementById('run-a'), document.getElementById('run-b')];
  let loaded = 0;
  function align() {
    const reports = frames.map(function (f) { return f.contentWindow.redlockReport; });
    const data = frames.map(function (f) {
      return JSON.parse(f.contentDocument.getElementById('report-data').textContent);
    });
    const extent = Math.max(data[0].run_end, data[1].run_end);
    reports.forEach(function (r) { r.extendTo(extent); });
    const start = Math.min(data[0].window[0], data[1].window[0]);
    const end = Math.max(data[0].window[1], data[1].window[1]);
    reports.forEach(function (r) { r.zoomTo(start, end); });
    frames.forEach(function (f, i) {
      const other = reports[1 - i];
      f.contentWindow.addEventListener('redlock-view', function (event) {
        if (other.view.start !== event.detail.start || other.view.end !== event.detail.end)
          other.zoomTo(event.detail.start, event.detail.end);
      });
      f.style.height = (f.contentDocument.documentElement.scrollHeight + 20) + 'px';
    });
    document.body.dataset.ready = 'yes';
  }
  frames.forEach(function (f) {
    f.addEventListener('load', function () { if (++loaded === 2) align(); });
  });
})();
)SCRIPT";

}  // namespace

std::string compare_text(const CompareSide& a, const CompareSide& b) {
  const std::size_t first = std::max<std::size_t>(a.label.size(), 10) + 2;
  std::string out = "compare " + a.label + " with " + b.label + "\n";
  out += padded("", 18) + padded(a.label, first) + b.label + "\n";
  for (const Row& row : rows) {
    out += padded(row.title, 18) + padded(verdict_name((*a.result).*row.verdict), first) +
           verdict_name((*b.result).*row.verdict) + "\n";
  }
  out += padded("expectations met", 18) + padded(a.result->expectations_met ? "yes" : "no", first) +
         (b.result->expectations_met ? "yes" : "no") + "\n";
  return out;
}

std::string compare_html(const CompareSide& a, const CompareSide& b, const std::string& program) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>redlock-sim: " +
      attribute_escape(a.label) + " vs " + attribute_escape(b.label) +
      "</title><style>body{font-family:system-ui,sans-serif;margin:16px;color:#222}"
      "iframe{width:100%;border:1px solid #ccc;height:900px;display:block;margin:8px 0 16px}"
      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 10px}"
      ".holds{color:#2e7d32}.violated{color:#c62828;font-weight:700}</style></head><body>\n"
      "<h1>" +
      attribute_escape(a.label) + " vs " + attribute_escape(b.label) +
      "</h1>\n<p>Both runs on one true-time axis: zoom or drag in either report and the other "
      "follows.</p>\n<table><tr><th></th><th>" +
      attribute_escape(a.label) + "</th><th>" + attribute_escape(b.label) + "</th></tr>";
  for (const Row& row : rows) {
    const std::string va = verdict_name((*a.result).*row.verdict);
    const std::string vb = verdict_name((*b.result).*row.verdict);
    out += "<tr><td>" + std::string(row.title) + "</td><td class=\"" + va + "\">" + va +
           "</td><td class=\"" + vb + "\">" + vb + "</td></tr>";
  }
  out += "</table>\n";
  const CompareSide* sides[] = {&a, &b};
  const char* ids[] = {"run-a", "run-b"};
  for (int i = 0; i < 2; ++i) {
    out += "<h2>" + attribute_escape(sides[i]->label) + "</h2>\n<iframe id=\"" + ids[i] +
           "\" title=\"" + attribute_escape(sides[i]->label) + "\" srcdoc=\"" +
           attribute_escape(html_report(*sides[i]->result, {.program = program})) +
           "\"></iframe>\n";
  }
  out += "<p><small>redlock-sim " + std::string(tool_version()) + " (commit " +
         attribute_escape(tool_commit()) + ")</small></p>\n";
  return out + "<script>" + align_script + "</script>\n</body></html>\n";
}

}  // namespace redlock_sim
