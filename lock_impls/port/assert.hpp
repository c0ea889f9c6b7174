// Assertions that stay on in every build and print their operands (FoundationDB's ASSERT_*,
// TigerBeetle's paired assertions). A failed assertion is a programmer error: it aborts the run.
// They live beside the port so that lock code (lock_impls/) may assert too; the simulator
// includes them through sim/kernel/assert.hpp.
#pragma once

#include <sstream>
#include <string>

namespace redlock_sim::detail {
[[noreturn]] void assertion_failed(const char* expression, const char* file, int line,
                                   const std::string& operands);

template <typename A, typename B>
std::string describe_operands(const A& a, const B& b) {
  std::ostringstream out;
  out << "left = " << a << ", right = " << b;
  return out.str();
}
}  // namespace redlock_sim::detail

#define SIM_ASSERT(condition)                                                      \
  do {                                                                             \
    if (!(condition)) {                                                            \
      ::redlock_sim::detail::assertion_failed(#condition, __FILE__, __LINE__, {}); \
    }                                                                              \
  } while (false)

#define SIM_ASSERT_OP(a, op, b)                                                  \
  do {                                                                           \
    const auto& sim_assert_a = (a);                                              \
    const auto& sim_assert_b = (b);                                              \
    if (!(sim_assert_a op sim_assert_b)) {                                       \
      ::redlock_sim::detail::assertion_failed(                                   \
          #a " " #op " " #b, __FILE__, __LINE__,                                 \
          ::redlock_sim::detail::describe_operands(sim_assert_a, sim_assert_b)); \
    }                                                                            \
  } while (false)

#define SIM_ASSERT_EQ(a, b) SIM_ASSERT_OP(a, ==, b)
#define SIM_ASSERT_LE(a, b) SIM_ASSERT_OP(a, <=, b)
#define SIM_ASSERT_LT(a, b) SIM_ASSERT_OP(a, <, b)
