// Proves the `sim` library links on its own (issue 14): it uses LockClient's type information
// (UBSan's vptr checks reference it from every virtual call), which must come from a library
// sim links, not from the lock code it must not link.
#include <cstdio>
#include <typeinfo>

#include "lock_impls/lock.hpp"

int main() {
  std::printf("sim links alone; LockClient is %s\n", typeid(redlock_sim::LockClient).name());
  return 0;
}
