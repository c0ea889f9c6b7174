// The report for people who would rather look than read: one self-contained HTML page (inline
// SVG, CSS and script; nothing fetched) with a lane per process on a true-time axis, what each
// client believed (hold intervals) against what each node held (the lock key's lifetimes), the
// faults where they act, messages as arrows, the violation highlighted under a one-paragraph
// story, each process's clock offset, and a step-through cursor. docs/reports.md describes it.
//
// The SVG is drawn here, not by the script, so the page reads (and prints) without JavaScript and
// its structure can be checked by golden tests; the script only re-lays it out when zooming and
// adds hover readings, message filters and the step-through. Same result, same bytes.
#pragma once

#include <cstddef>
#include <string>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

struct HtmlOptions {
  // Drawing budgets: a long run has more events than a page can carry (and a person can see).
  // Items in the default (interesting) window are drawn first; the page says what was left out.
  std::size_t holds_drawn_max = 1'500;
  std::size_t keys_drawn_max = 3'000;
  std::size_t events_drawn_max = 2'000;
  std::size_t messages_drawn_max = 1'500;
  std::size_t resource_ops_drawn_max = 1'500;
  std::size_t steps_max = 2'000;
  // How the page's reproduce line names the tool: the CLI passes the path it was started by, so
  // the line runs as pasted.
  std::string program = "redlock-sim";
};

// The whole page, from the result alone: its typed events for faults, partitions, held messages
// and failovers, and its description, source and lock keys (result_for) for the header and the
// key lifetimes drawn.
std::string html_report(const ScenarioResult& result, const HtmlOptions& options = {});

}  // namespace redlock_sim
