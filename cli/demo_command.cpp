// `redlock-sim demo`: the kernel demo story (a pause and a clock step) as a timeline.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "sim/stories/kernel_demo.hpp"

namespace redlock_sim::cli {
namespace {

int run_demo(const std::vector<std::string>& arguments) {
  namespace po = boost::program_options;
  po::options_description options("redlock-sim demo [options]");
  uint64_t seed = 1;
  options.add_options()("help,h", "show this help")(
      "seed", po::value<uint64_t>(&seed)->default_value(1), "root seed of the run");
  po::variables_map values;
  try {
    parse_flags(arguments, options, values);
  } catch (const po::error& error) {
    return bad_input(std::string("demo: ") + error.what());
  }
  if (values.count("help")) {
    std::printf("%s\n",
                "Runs the kernel demo: a client pinging a server through a pause and a\n"
                "wall-clock step, printed in true time beside each process's clocks.\n");
    std::cout << options << "\n";
    return exit_ok;
  }
  const KernelDemoResult result = run_kernel_demo(seed);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::printf("%7s  %-7s %15s %9s  %s\n", "true ms", "process", "local wall ms", "local mono",
              "what happened");
  for (const std::string& line : result.timeline)
    std::printf("%s\n", line.c_str());
  std::printf("events %llu, trace digest %s\n", static_cast<unsigned long long>(result.events),
              result.trace_digest.c_str());
  return exit_ok;
}

const Registrar registrar({"demo", "kernel demo: a pause and a clock step, as a timeline",
                           &run_demo});

}  // namespace
}  // namespace redlock_sim::cli
