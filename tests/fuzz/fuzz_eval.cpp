// Fuzz target: any bytes as the body of `EVAL body 0` on a simulated Redis 7.0 node, with a small
// instruction and memory budget. The script must end with a reply (its result, Redis's error, or
// the kill reply at the budget), never a crash or a hang, and the node must keep answering.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/redis/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace redlock_sim;
  RedisEngine engine(
      EngineOptions{.script_instructions_max = 200'000, .script_memory_bytes_max = 16u << 20});
  std::vector<Propagated> propagated;
  const ExecutionContext context{Instant::from_ms(1'767'225'600'000)};
  const std::string body(reinterpret_cast<const char*>(data), size);
  engine.execute(make_command("EVAL", body, "1", "key", "argument"), context, propagated);
  // One script must not change what the next sees: the node still answers a plain script.
  const Reply after = engine.execute(make_command("EVAL", "return 1", "0"), context, propagated);
  if (!after.is_integer(1)) {
    // A script that wrote and then ran out of budget is UNKILLABLE in Redis; the model answers
    // and goes on, so any other answer here is a defect.
    __builtin_trap();
  }
  return 0;
}
