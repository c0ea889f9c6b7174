// `redlock-sim redis`: one simulated Redis 7.0 node (no persistence) driven by redis-cli-style
// lines on stdin, each reply printed as `redis-cli --no-raw` prints it. Time is virtual: the
// node's wall clock starts at --epoch-ms and moves only with `.advance` and `.clock-step`.
#include <unistd.h>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "sim/kernel/simulator.hpp"
#include "sim/redis/cli_text.hpp"
#include "sim/redis/node.hpp"
#include "sim/redis/text.hpp"

namespace redlock_sim::cli {
namespace {

struct Session {
  Simulator simulator;
  RedisNode& node;
  explicit Session(uint64_t seed)
      : simulator(seed), node(simulator.add_process<RedisNode>("redis")) {}
};

// From 1970 to 2255: clocks count int64 nanoseconds, which end in April 2262.
constexpr int64_t epoch_ms_max = 9'000'000'000'000;
// Virtual time a session may run, as the scenario format's time bound (about 31 years).
constexpr int64_t session_ms_max = 1'000'000'000'000;

// Handles `.advance MS` and `.clock-step MS`; returns false (with a message) on bad input. Both
// keep virtual time in [0, session_ms_max] and the wall clock in [0, epoch_ms_max], so int64
// nanoseconds never overflow.
bool run_directive(Session& session, const std::vector<std::string>& words, std::size_t line,
                   std::string& message) {
  int64_t amount_ms = 0;
  const bool valid = words.size() == 2 && redis_text::parse_int64(words[1], amount_ms);
  const std::string at = "line " + std::to_string(line) + ": ";
  const int64_t now_ms = session.simulator.now().ms_floor();
  const int64_t wall_ms = session.node.wall_now().ms_floor();
  if (words[0] == ".advance") {
    if (!valid || amount_ms < 0) {
      message = at + "expected `.advance MS` with MS >= 0";
      return false;
    }
    if (amount_ms > session_ms_max - now_ms || amount_ms > epoch_ms_max - wall_ms) {
      message = at + "`.advance " + words[1] + "` runs past the session's range: virtual time " +
                "at most " + std::to_string(session_ms_max) + " ms, the wall clock at most " +
                std::to_string(epoch_ms_max) + " ms (now " + std::to_string(now_ms) + " and " +
                std::to_string(wall_ms) + ")";
      return false;
    }
    session.simulator.run(session.simulator.now() + Duration::from_ms(amount_ms));
    return true;
  }
  if (words[0] == ".clock-step") {
    if (!valid) {
      message = at + "expected `.clock-step MS` (MS may be negative)";
      return false;
    }
    if (amount_ms < -wall_ms || amount_ms > epoch_ms_max - wall_ms) {
      message = at + "`.clock-step " + words[1] + "` moves the wall clock out of [0, " +
                std::to_string(epoch_ms_max) + "] ms (now " + std::to_string(wall_ms) + ")";
      return false;
    }
    session.simulator.step_wall_clock(session.node.id(), Duration::from_ms(amount_ms));
    return true;
  }
  message = "line " + std::to_string(line) + ": unknown directive " + words[0] +
            " (known: .advance MS, .clock-step MS, .help)";
  return false;
}

constexpr const char* session_help =
    "Lines are Redis commands (SET k v NX PX 10000, GET k, EVAL ..., as redis-cli takes them)\n"
    "run by one simulated Redis 7.0 node. Time is virtual and moves only when you say:\n"
    "  .advance MS      advance virtual time (the node's clocks and its active expiry)\n"
    "  .clock-step MS   step the node's wall clock (negative allowed): keys expire by it\n"
    "  .help            this text ('help' too, at a terminal)\n"
    "  # ...            a comment\n"
    "End with Ctrl-D.\n";

// At a terminal a person types: a prompt, `help`, and a mistake that is said and forgiven. Fed a
// file, the session is a script: a bad directive ends it with exit 2, and the commands are
// echoed after the prompt when the replies go to a terminal, so the transcript reads.
struct Interaction {
  bool prompt = false;     // print a prompt before each line
  bool echo = false;       // print the line read after the prompt (input is not a terminal)
  bool forgiving = false;  // a bad directive is reported and the session goes on
};

constexpr const char* prompt_text = "sim-redis> ";

void print_reply(const std::vector<std::string>& arguments, const Reply& reply) {
  if (cli_text::printed_raw(arguments) && reply.type == ReplyType::bulk) {
    std::fwrite(reply.text.data(), 1, reply.text.size(), stdout);
    return;
  }
  const std::string text = cli_text::format_reply(reply);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

int run_lines(Session& session, const Interaction& interaction) {
  std::string line;
  std::size_t line_number = 0;
  for (;;) {
    if (interaction.prompt) {
      std::fputs(prompt_text, stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) {
      if (interaction.prompt) std::fputs("\n", stdout);
      break;
    }
    ++line_number;
    if (interaction.echo) std::printf("%s\n", line.c_str());
    if (line == ".help" || (interaction.forgiving && line == "help")) {
      std::fputs(session_help, stdout);
      continue;
    }
    // redis-cli reads its lines as C strings; a NUL byte would silently cut or merge arguments.
    if (line.find('\0') != std::string::npos) {
      std::fflush(stdout);
      return bad_input("redis: line " + std::to_string(line_number) +
                       ": a NUL byte (write it as \"\\x00\" inside double quotes)");
    }
    if (!line.empty() && line[0] == '#') continue;
    if (!line.empty() && line[0] == '.') {
      const auto words = cli_text::split_arguments(line);
      std::string message;
      if (!words || !run_directive(session, *words, line_number, message)) {
        std::fflush(stdout);
        if (interaction.forgiving) {
          std::fprintf(stderr, "redlock-sim: redis: %s\n",
                       words ? message.c_str() : "unbalanced quotes");
          continue;
        }
        return bad_input(
            "redis: " +
            (words ? message : "line " + std::to_string(line_number) + ": unbalanced quotes"));
      }
      continue;
    }
    const auto arguments = cli_text::split_arguments(line);
    if (!arguments) {
      std::fputs("Invalid argument(s)\n", stdout);
      continue;
    }
    if (arguments->empty()) continue;
    Reply reply = session.node.execute(*arguments);
    if (session.node.engine().take_shutdown_request()) {
      // The node stops without a reply; redis-cli prints nothing for it, then cannot connect
      // for any later line. The session ends here, successfully, as redis-cli's exit status is.
      std::fflush(stdout);
      std::fprintf(stderr,
                   "redlock-sim: redis: line %zu: the node shut down (SHUTDOWN, nothing saved); "
                   "the session ends\n",
                   line_number);
      return exit_ok;
    }
    const ScriptRun& script = session.node.engine().last_script_run();
    if (script.capped) {
      // Real Redis would run it until a SCRIPT KILL (or SHUTDOWN NOSAVE once it has written),
      // answering others BUSY; this session is its only client, so nothing after this line
      // could match a real server: the session ends at the reported limit.
      const EngineOptions& options = session.node.engine().options();
      std::fflush(stdout);
      std::fprintf(
          stderr,
          "redlock-sim: redis: line %zu: limit: script_limit: the script still ran after the "
          "model's %llu Lua instructions (%lld ms of virtual time at %llu per ms); real Redis "
          "7.0 answers other clients BUSY after lua-time-limit (%lld ms) and runs it until "
          "%s (this session is its only client)\n",
          line_number, static_cast<unsigned long long>(options.script_instructions_max),
          static_cast<long long>(
              session.node.engine().script_duration(options.script_instructions_max).ms_floor()),
          static_cast<unsigned long long>(options.script_instructions_per_ms),
          static_cast<long long>(session.node.engine().config().busy_reply_threshold_ms),
          script.wrote_at != ScriptRun::never
              ? "SHUTDOWN NOSAVE (it has written: SCRIPT KILL gets UNKILLABLE)"
              : "SCRIPT KILL or SHUTDOWN NOSAVE");
      return exit_failed;
    }
    if (script.busy) {
      // A script past lua-time-limit that ends: redis-cli waits for it, so the session's
      // virtual time moves on by the script's time.
      session.simulator.run(session.simulator.now() +
                            session.node.engine().script_duration(script.instructions));
    }
    if (const auto block = session.node.engine().take_block_request()) {
      // A BLPOP on empty lists: this session is the node's only client, so nothing can push;
      // it waits out its timeout as redis-cli would, or would wait for ever.
      if (block->timeout_at_ms == 0) {
        std::fflush(stdout);
        return bad_input("redis: line " + std::to_string(line_number) +
                         ": BLPOP on empty lists with timeout 0 would block for ever (this "
                         "session is the only client; give a timeout)");
      }
      const int64_t wait_ms = block->timeout_at_ms + 1 - session.node.wall_now().ms_floor();
      const int64_t now_ms = session.simulator.now().ms_floor();
      if (wait_ms > session_ms_max - now_ms) {
        std::fflush(stdout);
        return bad_input("redis: line " + std::to_string(line_number) +
                         ": BLPOP's timeout runs past the session's range (virtual time at most " +
                         std::to_string(session_ms_max) + " ms)");
      }
      if (wait_ms > 0) session.simulator.run(session.simulator.now() + Duration::from_ms(wait_ms));
    }
    print_reply(*arguments, reply);
  }
  std::fflush(stdout);
  return exit_ok;
}

int run_redis(const std::vector<std::string>& arguments) {
  namespace po = boost::program_options;
  po::options_description options("redlock-sim redis [options] < commands");
  int64_t epoch_ms = default_epoch_ms;
  uint64_t seed = 1;
  options.add_options()("help,h", "show this help")(
      "epoch-ms", po::value<int64_t>(&epoch_ms)->default_value(default_epoch_ms),
      "the node's wall clock at start, unix ms")(
      "seed", po::value<uint64_t>(&seed)->default_value(1), "seed of the active-expire sampling")(
      "interactive",
      "behave as at a terminal (prompt, 'help', a bad directive goes on) even "
      "when standard input is not one");
  po::variables_map values;
  try {
    parse_flags(arguments, options, values);
  } catch (const po::error& error) {
    return bad_input(std::string("redis: ") + error.what());
  }
  if (values.count("help")) {
    std::printf("%s\n",
                "Runs one simulated Redis 7.0 node. Reads redis-cli-style lines on stdin and\n"
                "prints each reply as `redis-cli --no-raw` would. Lines starting with # are\n"
                "comments. Directives: `.advance MS` advances virtual time (the node's clocks\n"
                "and its active expiry move with it); `.clock-step MS` steps the node's wall\n"
                "clock (negative allowed); `.help` lists them. At a terminal (or with\n"
                "--interactive) it prompts, takes `help`, and a bad directive is reported\n"
                "and the session goes on; fed a file, a bad directive ends it (exit 2).\n");
    std::cout << options << "\n";
    return exit_ok;
  }
  if (epoch_ms < 0 || epoch_ms > epoch_ms_max) {
    return bad_input("redis: --epoch-ms must be in [0, " + std::to_string(epoch_ms_max) + "]");
  }
  Session session(seed);
  session.simulator.step_wall_clock(session.node.id(),
                                    Duration::from_ms(epoch_ms - default_epoch_ms));
  const bool typed = values.count("interactive") || isatty(STDIN_FILENO) != 0;
  const Interaction interaction{.prompt = typed || isatty(STDOUT_FILENO) != 0,
                                .echo = !typed && isatty(STDOUT_FILENO) != 0,
                                .forgiving = typed};
  return run_lines(session, interaction);
}

const Registrar registrar({"redis", "a simulated Redis 7.0 node fed redis-cli lines on stdin",
                           &run_redis});

}  // namespace
}  // namespace redlock_sim::cli
