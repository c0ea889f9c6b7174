// Just enough RESP (the Redis protocol) for the harness: where one complete frame ends in a
// byte stream, a command's words, and the encodings of commands and replies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/port/reply.hpp"

namespace redlock_sim::real {

// The length of the first complete RESP value in `bytes`, or nullopt while it is incomplete.
// Inline commands (a line of words) count as one frame too.
std::optional<std::size_t> resp_frame_length(std::string_view bytes);
// The words of one command frame (an array of bulk strings, or an inline command).
std::vector<std::string> resp_command_words(std::string_view frame);
std::string encode_command(const std::vector<std::string>& argv);
std::string encode_reply(const Reply& reply);

}  // namespace redlock_sim::real
