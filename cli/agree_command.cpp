// `redlock-sim agree [FILES...]`: runs each scenario in simulation and for real, and prints a
// table of where they agree: the three verdicts, the first overlap of each side, and the wall
// time of each. Agreement means equal verdicts and, when both sides overlap, first overlaps whose
// starts and ends are within max(25 ms, 2 % of the simulated overlap's length). A file that
// disagrees is staged once more before it is called a disagreement (real runs are not
// deterministic). Files that cannot be staged are listed with the reason. Exit 0 when every
// stageable file agrees, 1 otherwise, 2 on bad input.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/real_wiring.hpp"
#include "cli/worker_pool.hpp"
#include "lock_impls/registry.hpp"
#include "reports/result_json.hpp"
#include "reports/tool_version.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

const Violation* first_overlap(const ScenarioResult& result) {
  for (const Violation& v : result.violations)
    if (v.kind == "overlap") return &v;
  return nullptr;
}

std::string verdicts_text(const ScenarioResult& r) {
  const auto letter = [](Verdict v) {
    return v == Verdict::holds ? "holds" : v == Verdict::violated ? "VIOLATED" : "-";
  };
  return std::string("MX ") + letter(r.mutual_exclusion) + ", RS " + letter(r.resource_safety) +
         ", LV " + letter(r.liveness);
}

std::string overlap_text(const Violation* v) {
  if (v == nullptr) return "none";
  // A hold with no deadline (a watchdog lock whose holder never learns) runs to the end of time.
  const std::string end = v->end == Instant::max() ? "no end" : std::to_string(v->end.ms_floor());
  return "[" + std::to_string(v->start.ms_floor()) + ", " + end + ")";
}

std::string ms_tenths(int64_t us) {
  return std::to_string(us / 1000) + "." + std::to_string((us % 1000) / 100);
}

struct Row {
  std::string file;
  std::string name;
  std::size_t scenario = 0;                // index into the loaded files
  std::optional<real::DriverSpec> driver;  // --profiles: the driver this row stages with
  std::string profile;                     // --profiles: the profile it validates
  std::optional<std::string> unstageable;
  ScenarioResult sim;
  ScenarioResult real;
  int64_t sim_us = 0;
  int64_t real_ms = 0;
  int64_t late_us_max = 0;                          // the real run's latest scheduled action
  std::vector<real::ActionTiming> failover_events;  // the real sentinels' events
  bool agree = false;
  bool retried = false;
  std::string why;
};

// Equal verdicts, and overlaps that agree within the tolerance; `why` says what differs.
bool compare(const ScenarioResult& sim, const ScenarioResult& real, std::string& why) {
  why.clear();
  const std::pair<const char*, std::pair<Verdict, Verdict>> checks[] = {
      {"mutual exclusion", {sim.mutual_exclusion, real.mutual_exclusion}},
      {"resource safety", {sim.resource_safety, real.resource_safety}},
      {"liveness", {sim.liveness, real.liveness}}};
  for (const auto& [name, pair] : checks) {
    if (pair.first != pair.second) {
      why += std::string(why.empty() ? "" : "; ") + name + ": sim " + verdict_name(pair.first) +
             ", real " + verdict_name(pair.second);
    }
  }
  const Violation* a = first_overlap(sim);
  const Violation* b = first_overlap(real);
  if (a != nullptr && b != nullptr) {
    // An overlap with no end (a hold nobody ends) has no length to take 2 % of: 25 ms, and
    // both must be endless.
    const bool endless = a->end == Instant::max() || b->end == Instant::max();
    const int64_t tolerance_ms =
        endless ? 25 : std::max<int64_t>(25, (a->end - a->start).ms_floor() / 50);
    const int64_t start_gap = std::abs(a->start.ms_floor() - b->start.ms_floor());
    const int64_t end_gap = endless ? (a->end == b->end ? 0 : INT64_MAX)
                                    : std::abs(a->end.ms_floor() - b->end.ms_floor());
    if (start_gap > tolerance_ms || end_gap > tolerance_ms) {
      why += std::string(why.empty() ? "" : "; ") + "first overlap " + overlap_text(a) + " vs " +
             overlap_text(b) + " (tolerance " + std::to_string(tolerance_ms) + " ms)";
    }
  }
  return why.empty();
}

int64_t elapsed_us(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

// The first time any sentinel reported `event`, in the simulated story and in the real run.
std::optional<int64_t> first_sim_event(const ScenarioResult& sim, ClusterEventKind event) {
  for (const RunEvent& e : sim.events)
    if (e.kind == RunEventKind::cluster && e.cluster.kind == event) return e.at.ms_floor();
  return std::nullopt;
}

std::optional<int64_t> first_real_event(const Row& row, const std::string& event) {
  std::optional<int64_t> first;
  for (const real::ActionTiming& e : row.failover_events) {
    // `what` is "<channel> <sentinel>": the channel is a real redis-sentinel's own word.
    const bool named = e.what.rfind(event + " ", 0) == 0;  // story-guard: allow
    if (named && (!first || e.scheduled_ms < *first)) first = e.scheduled_ms;
  }
  return first;
}

// Failover timing, sim against real: when the first sentinel saw the master down (+sdown), the
// quorum agreed (+odown), the replica was promoted and the clients were told (+switch-master).
std::string failover_timing_table(const std::vector<Row>& rows) {
  std::ostringstream out;
  bool any = false;
  for (const Row& r : rows) {
    if (r.unstageable || r.failover_events.empty()) continue;
    if (!any) {
      out << "\nFailover timing (first sentinel to report each event; ms of true time, sim / "
             "real):\n\n| scenario | +sdown | +odown | promoted | +switch-master |\n"
             "|---|---|---|---|---|\n";
      any = true;
    }
    const auto cell = [](std::optional<int64_t> sim, std::optional<int64_t> real) {
      const auto text = [](std::optional<int64_t> v) {
        return v ? std::to_string(*v) : std::string("-");
      };
      std::string c = text(sim) + " / " + text(real);
      if (sim && real)
        c += " (" + std::string(*real >= *sim ? "+" : "") + std::to_string(*real - *sim) + ")";
      return c;
    };
    out << "| " << r.name << " | "
        << cell(first_sim_event(r.sim, ClusterEventKind::sdown), first_real_event(r, "+sdown"))
        << " | "
        << cell(first_sim_event(r.sim, ClusterEventKind::odown), first_real_event(r, "+odown"))
        << " | "
        << cell(first_sim_event(r.sim, ClusterEventKind::promoted),
                first_real_event(r, "+promoted-slave"))
        << " | "
        << cell(first_sim_event(r.sim, ClusterEventKind::switch_master),
                first_real_event(r, "+switch-master"))
        << " |\n";
  }
  return out.str();
}

std::string markdown_table(const std::vector<Row>& rows) {
  std::ostringstream out;
  std::size_t staged = 0, agreeing = 0;
  for (const Row& r : rows) {
    if (r.unstageable) continue;
    ++staged;
    agreeing += r.agree ? 1 : 0;
  }
  out << "Agreement: " << agreeing << " of " << staged << " stageable files";
  if (staged > 0) out << " (" << (agreeing * 100 / staged) << " %)";
  out << "; " << rows.size() - staged << " cannot be staged yet.";
  int64_t sim_us = 0, real_ms = 0, late_us = 0;
  for (const Row& r : rows) {
    if (r.unstageable) continue;
    sim_us += r.sim_us;
    real_ms += r.real_ms;
    late_us = std::max(late_us, r.late_us_max);
  }
  out << " Wall time: " << ms_tenths(sim_us) << " ms simulated, " << real_ms
      << " ms staged for real; the latest real action was " << ms_tenths(late_us)
      << " ms after its scheduled time.\n\n";
  out << "| scenario | sim verdicts | real verdicts | sim first overlap | real first overlap | "
         "agree | sim ms | real ms | real late, ms (max) "
         "|\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    if (r.unstageable) continue;
    out << "| " << r.name << " | " << verdicts_text(r.sim) << " | " << verdicts_text(r.real)
        << " | " << overlap_text(first_overlap(r.sim)) << " | "
        << overlap_text(first_overlap(r.real)) << " | "
        << (r.agree ? (r.retried ? "yes (on the retry)" : "yes") : "**no**: " + r.why) << " | "
        << ms_tenths(r.sim_us) << " | " << r.real_ms << " | " << ms_tenths(r.late_us_max) << " |\n";
  }
  out << failover_timing_table(rows);
  out << "\nNot stageable yet:\n\n| scenario | why |\n|---|---|\n";
  for (const Row& r : rows)
    if (r.unstageable) out << "| " << r.name << " | " << *r.unstageable << " |\n";
  return out.str();
}

// Catalogue stories every driver is also checked on, with their clients switched to its profile.
constexpr const char* retargeted_stories[] = {"kleppmann-clock-jump.json",
                                              "gc-pause-after-acquire.json",
                                              "crash-restart-without-persistence.json"};

// Per profile: how many of the files using it agree with the real library.
struct ProfileSummary {
  std::string library;
  std::string driver;
  std::size_t files = 0, agree = 0, unstageable = 0;
  std::vector<std::string> disagreements;  // "file: why"
};

std::map<std::string, ProfileSummary> summarize(const std::vector<Row>& rows,
                                                const std::vector<DriverManifest>& manifests) {
  std::map<std::string, ProfileSummary> out;
  for (const DriverManifest& m : manifests)
    for (const std::string& p : m.profiles)
      out[p] = ProfileSummary{.library = m.library, .driver = m.name};
  for (const Row& r : rows) {
    ProfileSummary& s = out[r.profile];
    ++s.files;
    if (r.unstageable) {
      ++s.unstageable;
      // A file the real library cannot take as written is said, with why.
      if (r.unstageable->rfind("set-up failed", 0) == 0) {
        s.disagreements.push_back(r.name + ": not stageable with the library (" + *r.unstageable +
                                  ")");
      }
    } else if (r.agree) {
      ++s.agree;
    } else {
      s.disagreements.push_back(r.name + ": " + r.why);
    }
  }
  return out;
}

std::string profile_table(const std::vector<Row>& rows,
                          const std::vector<DriverManifest>& manifests) {
  std::ostringstream out;
  out << "| profile | real library | driver | catalogue files | agree | disagree | not stageable "
         "| why |\n|---|---|---|---|---|---|---|---|\n";
  const std::map<std::string, ProfileSummary> summary = summarize(rows, manifests);
  for (const LockEntry& entry : lock_entries()) {
    if (entry.kind != LockKind::profile) continue;
    auto it = summary.find(entry.name);
    if (it == summary.end()) {
      const std::optional<std::string> unreachable = unreachable_library(entry.name);
      out << "| " << entry.name << " | - | none | - | - | - | - | not validated: "
          << (unreachable ? *unreachable : std::string("no driver yet")) << " |\n";
      continue;
    }
    const ProfileSummary& s = it->second;
    std::string why;
    for (const std::string& d : s.disagreements)
      why += (why.empty() ? "" : "; ") + d;
    const std::size_t disagree = s.files - s.agree - s.unstageable;
    out << "| " << entry.name << " | " << s.library << " | " << s.driver << " | " << s.files
        << " | " << s.agree << " | " << disagree << " | " << s.unstageable << " | "
        << (why.empty() ? "-" : why) << " |\n";
  }
  return out.str();
}

nlohmann::json profile_json(const std::vector<Row>& rows,
                            const std::vector<DriverManifest>& manifests) {
  nlohmann::json profiles = nlohmann::json::object();
  for (const auto& [name, s] : summarize(rows, manifests)) {
    profiles[name] = {
        {"library", s.library}, {"driver", s.driver},           {"files", s.files},
        {"agree", s.agree},     {"unstageable", s.unstageable}, {"disagreements", s.disagreements}};
  }
  return {{"profiles", profiles}, {"tool", tool_json()}};
}

int run_agree(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim agree [FILES...] [options]");
  options.add_options()("help,h", "show this help")("markdown", po::value<std::string>(),
                                                    "also write the table as Markdown to PATH")(
      "redis-server", po::value<std::string>()->default_value("redis-server"),
      "the redis-server binary (a path, or a name on PATH)")(
      "driver", po::value<std::string>(),
      "stage the clients whose profile this driver of drivers/ covers with the real library")(
      "driver-command", po::value<std::string>(),
      "stage clients with this command instead (a driver of your own; see docs/real-mode.md)")(
      "driver-profiles", po::value<std::string>(),
      "with --driver-command: only the clients of these profiles (comma-separated)")(
      "profiles",
      "validate every profile that has a driver: each catalogue file using it, simulated with the "
      "profile and staged with the real library")(
      "json", po::value<std::string>(), "with --profiles: also write the results as JSON to PATH")(
      "jobs", po::value<unsigned>()->default_value(1),
      "files staged at once (each real run mostly waits on timers; more jobs, more jitter)");
  po::variables_map values;
  if (auto done = parse_with_positionals(
          arguments, options, "agree",
          "Runs each scenario in simulation and staged for real, and prints where they\n"
          "agree (FILES: scenario files, default scenarios/*.json). Exit 0: every stageable\n"
          "file agrees; 1: some disagree; 2: bad input.",
          values, "files", -1))
    return *done;
  if (values.count("markdown")) {
    if (auto failed =
            check_output_file("agree", "--markdown", values["markdown"].as<std::string>()))
      return *failed;
  }
  std::vector<std::string> files;
  if (values.count("files")) {
    files = values["files"].as<std::vector<std::string>>();
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(REDLOCK_SOURCE_DIR "/scenarios"))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
  }
  std::vector<std::pair<std::string, Scenario>> scenarios;
  for (const std::string& file : files) {
    std::optional<Scenario> loaded = load_scenario(file, registry_profile_check());
    if (!loaded) return exit_bad_input;
    scenarios.emplace_back(file, std::move(*loaded));
  }
  real::RealOptions real_options_value;
  if (auto error = real_options(values["redis-server"].as<std::string>(), real_options_value)) {
    return bad_input("agree: " + *error);
  }
  const bool by_profile = values.count("profiles") > 0;
  if (by_profile && (values.count("driver") || values.count("driver-command"))) {
    return bad_input("agree: --profiles runs every driver; it takes no --driver");
  }
  if (!by_profile && values.count("json")) return bad_input("agree: --json goes with --profiles");
  if (auto error = drivers_from_flags(values, real_options_value)) {
    return bad_input("agree: " + *error);
  }

  // The rows: every file; or, with --profiles, every (driver's profile, file using it).
  std::vector<Row> rows;
  std::vector<DriverManifest> manifests;
  if (by_profile) {
    if (auto error = driver_manifests(manifests)) return bad_input("agree: " + *error);
    for (const DriverManifest& manifest : manifests) {
      real::DriverSpec driver;
      if (auto error = driver_by_name(manifest.name, driver)) return bad_input("agree: " + *error);
      for (const std::string& profile : manifest.profiles) {
        real::DriverSpec one = driver;
        one.profiles = {profile};
        // The standard stories re-targeted to the profile (every client runs it; parameters it
        // does not take are dropped), beside the catalogue files that use it.
        for (const char* story : retargeted_stories) {
          const std::string file = std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + story;
          std::optional<Scenario> base = load_scenario(file, registry_profile_check());
          std::string error;
          std::optional<Scenario> swapped =
              base ? swap_lock(*base, *find_lock_entry(profile), error) : std::nullopt;
          if (!swapped) continue;
          scenarios.emplace_back(file + " (as " + profile + ")", std::move(*swapped));
        }
        for (std::size_t i = 0; i < scenarios.size(); ++i) {
          const auto& clients = scenarios[i].second.clients;
          if (std::none_of(clients.begin(), clients.end(),
                           [&](const ClientSpec& c) { return c.profile == profile; })) {
            continue;
          }
          rows.push_back(Row{.file = scenarios[i].first,
                             .name = scenarios[i].second.name,
                             .scenario = i,
                             .driver = one,
                             .profile = profile});
        }
      }
    }
  } else {
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      rows.push_back(
          Row{.file = scenarios[i].first, .name = scenarios[i].second.name, .scenario = i});
  }

  install_real_interrupt_handlers();
  const unsigned jobs = std::max(1u, std::min(values["jobs"].as<unsigned>(), 8u));
  std::atomic<std::size_t> next{0};
  std::mutex output;
  std::optional<std::string> setup_error;
  // Each worker takes the next row; rows keep their order whatever finishes first.
  const auto work_rows = [&] {
    while (true) {
      const std::size_t index = next++;
      if (index >= rows.size() || real_interrupted) return;
      Row& row = rows[index];
      const Scenario& scenario = scenarios[row.scenario].second;
      real::RealOptions options = real_options_value;
      if (row.driver) options.drivers = {*row.driver};
      row.unstageable = real::unstageable_reason(scenario, options.drivers);
      if (!row.unstageable) {
        const auto sim_start = std::chrono::steady_clock::now();
        row.sim = run_scenario(scenario, registry_lock_factory());
        row.sim_us = elapsed_us(sim_start);
        for (int attempt = 0; attempt < 2; ++attempt) {
          std::string error;
          const std::optional<real::RealRun> run = real::run_real(scenario, options, error);
          if (real_interrupted) return;
          if (!run) {
            // This file could not be set up (a driver that refuses its parameters, say): said
            // in its row, and the other files go on.
            row.unstageable = "set-up failed: " + error;
            break;
          }
          row.real = run->result;
          row.real_ms = run->report.wall_ms;
          row.late_us_max = run->report.late_us_max;
          row.failover_events = run->report.failover_events;
          row.agree = compare(row.sim, row.real, row.why);
          if (row.agree) break;
          row.retried = true;
        }
      }
      std::lock_guard<std::mutex> lock(output);
      const std::string label = (row.profile.empty() ? "" : row.profile + ": ") + row.name;
      if (row.unstageable) {
        std::printf("%-58s not stageable: %s\n", label.c_str(), row.unstageable->c_str());
      } else {
        std::printf("%-58s %s\n", label.c_str(),
                    row.agree ? (row.retried ? "agrees (on the retry)" : "agrees")
                              : ("DISAGREES: " + row.why).c_str());
      }
      std::fflush(stdout);
    }
  };
  // No exception may leave a worker thread (std::terminate would skip every clean-up).
  const auto work = [&] {
    try {
      work_rows();
    } catch (const std::exception& error) {
      std::lock_guard<std::mutex> lock(output);
      setup_error = std::string("internal error: ") + error.what();
    }
  };
  run_workers(jobs, work);
  if (real_interrupted) return exit_failed;
  if (setup_error) return bad_input("agree: " + *setup_error);

  const std::string table = by_profile ? profile_table(rows, manifests) : markdown_table(rows);
  std::printf("\n%s", table.c_str());
  if (values.count("markdown") && !write_file(values["markdown"].as<std::string>(), table)) {
    std::fprintf(stderr, "redlock-sim: cannot write %s\n",
                 values["markdown"].as<std::string>().c_str());
    return exit_bad_input;
  }
  if (values.count("json") &&
      !write_file(values["json"].as<std::string>(), profile_json(rows, manifests).dump(2) + "\n")) {
    std::fprintf(stderr, "redlock-sim: cannot write %s\n",
                 values["json"].as<std::string>().c_str());
    return exit_bad_input;
  }
  const bool all =
      std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.unstageable || r.agree; });
  return all ? exit_ok : exit_failed;
}

const Registrar registrar({"agree", "run scenarios in simulation and for real, and compare",
                           &run_agree});

}  // namespace
}  // namespace redlock_sim::cli
