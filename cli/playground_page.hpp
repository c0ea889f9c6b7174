// The playground's page, served by `redlock-sim serve` (cli/serve_command.cpp).
#pragma once

namespace redlock_sim::cli {

extern const char* const playground_page;

}  // namespace redlock_sim::cli
