// Golden tests of the HTML report's SVG structure: lanes, bars, marks, the violation's band and
// its coordinates, and the story, for the Kleppmann clock jump. A change in what the page draws
// shows up as a diff here; REDLOCK_UPDATE_GOLDEN=1 rewrites the golden file (and nothing else
// does).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "api/lock_wiring.hpp"
#include "reports/html_report.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

std::string render(const std::string& name) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
  RunOptions options;
  options.message_log_max = 200'000;
  return html_report(run_scenario(scenario, registry_lock_factory(), options));
}

// One line per drawn item of interest: its group's opening tag (class, names, times, info) and
// the geometry of its first shape; then the counts per class and the story.
std::string structure(const std::string& html) {
  static const std::regex item(
      R"re(<g class="(lane|hold|key|fault [^"]*|violation [^"]*|rejected-stale|op [^"]*)"([^>]*)>)re"
      R"re((?:<(rect|line|path|circle)([^>]*)/>)?)re");
  static const std::regex text(
      R"re(<text class="(lane-label|bar-label|mark-label|violation-label)"[^>]*>([^<]*)</text>)re");
  static const std::regex story(R"re(<p class="story" id="story">(.*?)</p>)re");
  std::ostringstream out;
  std::map<std::string, int> counts;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), item); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    ++counts[m[1].str()];
    out << m[1] << " |" << m[2] << " | " << m[3] << m[4] << "\n";
  }
  for (auto it = std::sregex_iterator(html.begin(), html.end(), text); it != std::sregex_iterator();
       ++it) {
    out << "text " << (*it)[1] << ": " << (*it)[2] << "\n";
  }
  for (const auto& [name, count] : counts)
    out << "count " << name << " = " << count << "\n";
  std::smatch m;
  if (std::regex_search(html, m, story)) out << "story: " << m[1] << "\n";
  return out.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(REDLOCK_SOURCE_DIR) + "/tests/golden/" + name;
  const char* update = std::getenv("REDLOCK_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing: run with REDLOCK_UPDATE_GOLDEN=1 to create it";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual)
      << "the report's structure changed; if that is intended, rerun with REDLOCK_UPDATE_GOLDEN=1 "
         "and review the diff of "
      << path;
}

// The Kleppmann report's lanes, bars, marks, overlap band (its true times and coordinates) and
// story are exactly the reviewed ones.
TEST(HtmlReportGolden, KleppmannClockJumpStructure) {
  check_golden("kleppmann-clock-jump.structure.txt", structure(render("kleppmann-clock-jump")));
}

// The overlap band sits where the checker says: [2050, 9898) ms, with both clients outlined.
TEST(HtmlReportGolden, OverlapBandMatchesTheViolation) {
  const std::string html = render("kleppmann-clock-jump");
  const std::regex band(R"re(<g class="violation violation-overlap" data-kind="overlap" )re"
                        R"re(data-clients="A B" data-a="2050000" data-b="9898000")re");
  EXPECT_TRUE(std::regex_search(html, band));
  EXPECT_NE(html.find("OVERLAP 2050–9898 ms (7848 ms): A and B both believe they hold the lock"),
            std::string::npos);
}

// A cut that began before the run is drawn from time zero (not off the chart) and its label
// says since when.
TEST(HtmlReportGolden, ACutBeforeTheRunIsDrawnFromZeroAndSaysSince) {
  const std::string html = render("stale-replica-not-promoted");
  EXPECT_NE(html.find(R"(<g class="fault partition" data-process="R2" data-info="partition: cut )"
                      R"(off from M since -120000 ms"><rect class="partition-band" data-a="0" )"),
            std::string::npos);
}

// Same scenario and seed, same bytes: the page carries no timestamp or address.
TEST(HtmlReportGolden, SameRunSameBytes) {
  EXPECT_EQ(render("gc-pause-after-acquire"), render("gc-pause-after-acquire"));
}

}  // namespace
}  // namespace redlock_sim
