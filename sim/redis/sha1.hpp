// SHA-1 (FIPS 180-4), for the script cache's keys and redis.sha1hex.
#pragma once

#include <string>
#include <string_view>

namespace redlock_sim {

// Lowercase hex digest of `data`, 40 characters.
std::string sha1_hex(std::string_view data);

}  // namespace redlock_sim
