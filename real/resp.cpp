#include "real/resp.hpp"

#include <charconv>
#include <sstream>

namespace redlock_sim::real {

namespace {

// The position just after the CRLF that ends the line starting at `from`, or npos.
std::size_t line_end(std::string_view bytes, std::size_t from) {
  const std::size_t at = bytes.find("\r\n", from);
  return at == std::string_view::npos ? at : at + 2;
}

std::optional<int64_t> number(std::string_view text) {
  int64_t value = 0;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// Parses one value starting at `from`; returns the position after it, or npos if incomplete.
// Malformed input is treated as a one-line frame so the stream can move on.
std::size_t value_end(std::string_view bytes, std::size_t from, int depth) {
  if (from >= bytes.size()) return std::string_view::npos;
  const std::size_t header_end = line_end(bytes, from);
  if (header_end == std::string_view::npos) return header_end;
  const char type = bytes[from];
  const std::string_view header = bytes.substr(from + 1, header_end - 2 - from - 1);
  switch (type) {
    case '+':
    case '-':
    case ':':
      return header_end;
    case '$': {
      const std::optional<int64_t> length = number(header);
      if (!length || *length < 0) return header_end;
      const std::size_t end = header_end + static_cast<std::size_t>(*length) + 2;
      return end <= bytes.size() ? end : std::string_view::npos;
    }
    case '*': {
      const std::optional<int64_t> count = number(header);
      if (!count || *count < 0 || depth > 64) return header_end;
      std::size_t at = header_end;
      for (int64_t i = 0; i < *count; ++i) {
        at = value_end(bytes, at, depth + 1);
        if (at == std::string_view::npos) return at;
      }
      return at;
    }
    default:
      return header_end;  // an inline command
  }
}

}  // namespace

std::optional<std::size_t> resp_frame_length(std::string_view bytes) {
  const std::size_t end = value_end(bytes, 0, 0);
  if (end == std::string_view::npos) return std::nullopt;
  return end;
}

std::vector<std::string> resp_command_words(std::string_view frame) {
  std::vector<std::string> words;
  if (frame.empty()) return words;
  if (frame[0] != '*') {
    std::istringstream in{std::string(frame)};
    std::string word;
    while (in >> word)
      words.push_back(word);
    return words;
  }
  std::size_t at = line_end(frame, 0);
  while (at != std::string_view::npos && at < frame.size() && frame[at] == '$') {
    const std::size_t header_end = line_end(frame, at);
    if (header_end == std::string_view::npos) break;
    const std::optional<int64_t> length = number(frame.substr(at + 1, header_end - 2 - at - 1));
    if (!length || *length < 0 || header_end + *length > frame.size()) break;
    words.emplace_back(frame.substr(header_end, static_cast<std::size_t>(*length)));
    at = header_end + static_cast<std::size_t>(*length) + 2;
  }
  return words;
}

std::string encode_command(const std::vector<std::string>& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& word : argv)
    out += "$" + std::to_string(word.size()) + "\r\n" + word + "\r\n";
  return out;
}

std::string encode_reply(const Reply& reply) {
  switch (reply.type) {
    case ReplyType::status:
      return "+" + reply.text + "\r\n";
    case ReplyType::error:
      return "-" + reply.text + "\r\n";
    case ReplyType::integer:
      return ":" + std::to_string(reply.integer) + "\r\n";
    case ReplyType::bulk:
      return "$" + std::to_string(reply.text.size()) + "\r\n" + reply.text + "\r\n";
    case ReplyType::array: {
      std::string out = "*" + std::to_string(reply.elements.size()) + "\r\n";
      for (const Reply& element : reply.elements)
        out += encode_reply(element);
      return out;
    }
    case ReplyType::nil:
      return "$-1\r\n";
    case ReplyType::nil_array:
      return "*-1\r\n";
  }
  return "$-1\r\n";
}

}  // namespace redlock_sim::real
