// What the `real` and `agree` commands share: where the client program and the clock shim are,
// the flags that point the harness at a redis-server, and the text of a real run's timings.
#pragma once

#include <csignal>
#include <optional>
#include <string>

#include "real/harness.hpp"

namespace redlock_sim::cli {

// Set by SIGINT/SIGTERM while a real run is under way; the harness stops and cleans up.
extern volatile std::sig_atomic_t real_interrupted;
void install_real_interrupt_handlers();

// The harness's options from the executable's own location (the shim is built beside it) and
// the redis-server binary; an error text (for exit 2) when something is missing.
std::optional<std::string> real_options(const std::string& redis_server, real::RealOptions& out);

// "Real run: 12 scheduled actions, late by 0.21 ms median, 1.9 ms at most; ..." and warnings.
std::string real_timing_text(const real::RealReport& report);

}  // namespace redlock_sim::cli
