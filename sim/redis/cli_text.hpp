// redis-cli's text conventions, for the `redlock-sim redis` subcommand and the differential
// tests: how redis-cli splits a typed line into arguments (sdssplitargs) and how it prints a
// reply with --no-raw (cliFormatReplyTTY).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/port/reply.hpp"

namespace redlock_sim::cli_text {

// The arguments of one line, or nullopt when redis-cli would print "Invalid argument(s)"
// (unbalanced quotes, or a closing quote not followed by a space).
std::optional<std::vector<std::string>> split_arguments(std::string_view line);

// A bulk string as redis-cli quotes it: printable bytes as-is, \n \r \t \a \b \" \\ escaped,
// anything else as \xHH.
std::string quote(std::string_view bytes);

// The reply as `redis-cli --no-raw` prints it, including the final newline.
std::string format_reply(const Reply& reply);

// Whether redis-cli prints this command's reply raw (INFO is printed as the bare bulk text).
bool printed_raw(const std::vector<std::string>& arguments);

}  // namespace redlock_sim::cli_text
