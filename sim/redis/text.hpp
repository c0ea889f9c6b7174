// Small text helpers shared by the Redis engine: Redis's strict integer parsing (string2ll),
// case-insensitive comparison and the shared error texts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace redlock_sim::redis_text {

// Redis's string2ll: optional '-', no '+', no spaces, no leading zeros, no "-0", fits int64.
bool parse_int64(std::string_view text, int64_t& value);
std::string format_int64(int64_t value);
bool equals_ignore_case(std::string_view a, std::string_view b);
std::string to_lower(std::string_view text);

inline constexpr const char* not_integer = "ERR value is not an integer or out of range";
inline constexpr const char* syntax_error = "ERR syntax error";
inline constexpr const char* wrong_type =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr const char* overflow = "ERR increment or decrement would overflow";

std::string invalid_expire_time(std::string_view command_name);
std::string wrong_arity(std::string_view command_name);

}  // namespace redlock_sim::redis_text
