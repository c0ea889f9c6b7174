#include "lock_impls/port/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace redlock_sim::detail {

void assertion_failed(const char* expression, const char* file, int line,
                      const std::string& operands) {
  std::fprintf(stderr, "assertion failed: %s at %s:%d%s%s\n", expression, file, line,
               operands.empty() ? "" : ": ", operands.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace redlock_sim::detail
