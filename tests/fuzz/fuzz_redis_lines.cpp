// Fuzz target: any bytes as the lines `redlock-sim redis` reads (redis-cli's argument splitting,
// then a command on a simulated Redis 7.0 node, then the reply printed as redis-cli prints it).
// Every line must give a reply or "Invalid argument(s)", never a crash or a hang.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/kernel/random.hpp"
#include "sim/redis/cli_text.hpp"
#include "sim/redis/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace redlock_sim;
  RedisEngine engine(
      EngineOptions{.script_instructions_max = 200'000, .script_memory_bytes_max = 16u << 20});
  std::vector<Propagated> propagated;
  Rng rng = Rng::derive(1, "fuzz-active-expire");
  int64_t now_ms = 1'767'225'600'000;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string line(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
    ++now_ms;  // time moves between lines, so expiry is exercised too
    const auto arguments = cli_text::split_arguments(line);
    if (!arguments || arguments->empty()) continue;
    const Reply reply =
        engine.execute(*arguments, ExecutionContext{Instant::from_ms(now_ms)}, propagated);
    const std::string text = cli_text::format_reply(reply);
    if (text.empty()) __builtin_trap();  // redis-cli prints something for every reply
    engine.active_expire_cycle(ExecutionContext{Instant::from_ms(now_ms)}, rng, propagated);
    propagated.clear();
  }
  return 0;
}
