#include "sim/redis/cli_text.hpp"

#include <cstdio>

#include "sim/redis/text.hpp"

namespace redlock_sim::cli_text {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// One token starting at `p` (not a blank); advances `p`. False on a quoting error.
bool read_token(std::string_view line, std::size_t& p, std::string& token) {
  const auto at = [&](std::size_t i) { return i < line.size() ? line[i] : '\0'; };
  bool in_double = false;
  bool in_single = false;
  for (bool done = false; !done;) {
    const char c = at(p);
    if (in_double) {
      if (c == '\\' && at(p + 1) == 'x' && is_hex(at(p + 2)) && is_hex(at(p + 3))) {
        token.push_back(static_cast<char>(hex_value(at(p + 2)) * 16 + hex_value(at(p + 3))));
        p += 3;
      } else if (c == '\\' && at(p + 1) != '\0') {
        ++p;
        const char e = at(p);
        token.push_back(e == 'n'   ? '\n'
                        : e == 'r' ? '\r'
                        : e == 't' ? '\t'
                        : e == 'b' ? '\b'
                        : e == 'a' ? '\a'
                                   : e);
      } else if (c == '"') {
        if (at(p + 1) != '\0' && !is_space(at(p + 1))) return false;
        done = true;
      } else if (c == '\0') {
        return false;
      } else {
        token.push_back(c);
      }
    } else if (in_single) {
      if (c == '\\' && at(p + 1) == '\'') {
        ++p;
        token.push_back('\'');
      } else if (c == '\'') {
        if (at(p + 1) != '\0' && !is_space(at(p + 1))) return false;
        done = true;
      } else if (c == '\0') {
        return false;
      } else {
        token.push_back(c);
      }
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') {
      done = true;
    } else if (c == '"') {
      in_double = true;
    } else if (c == '\'') {
      in_single = true;
    } else {
      token.push_back(c);
    }
    if (at(p) != '\0') ++p;
  }
  return true;
}

// Everything but a non-empty array, on one line.
void format_single(const Reply& reply, std::string& out) {
  switch (reply.type) {
    case ReplyType::status:
      out += reply.text + "\n";
      return;
    case ReplyType::error:
      out += "(error) " + reply.text + "\n";
      return;
    case ReplyType::integer:
      out += "(integer) " + std::to_string(reply.integer) + "\n";
      return;
    case ReplyType::bulk:
      out += quote(reply.text) + "\n";
      return;
    case ReplyType::nil:
    case ReplyType::nil_array:
      out += "(nil)\n";
      return;
    case ReplyType::array:
      out += "(empty array)\n";
      return;
  }
}

// redis-cli's layout: "N) " before each element, nested elements indented under their parent's
// first. Walks with its own stack (a script's reply may nest 7995 arrays deep).
void format_into(const Reply& root, std::string& out) {
  struct OpenArray {
    const Reply* array;
    std::size_t next;
    std::size_t indent;  // spaces before this array's second and later elements
    std::size_t width;   // digits of its element count
  };
  std::vector<OpenArray> open;
  const Reply* current = &root;
  std::size_t indent = 0;
  while (true) {
    if (current != nullptr) {
      if (current->type != ReplyType::array || current->elements.empty()) {
        format_single(*current, out);
      } else {
        open.push_back({current, 0, indent, std::to_string(current->elements.size()).size()});
      }
      current = nullptr;
    }
    if (open.empty()) return;
    OpenArray& array = open.back();
    if (array.next == array.array->elements.size()) {
      open.pop_back();
      continue;
    }
    const std::size_t i = array.next++;
    const std::string index = std::to_string(i + 1);
    if (i != 0) out.append(array.indent, ' ');
    out.append(array.width - index.size(), ' ');
    out += index + ") ";
    current = &array.array->elements[i];
    indent = array.indent + array.width + 2;
  }
}

}  // namespace

std::optional<std::vector<std::string>> split_arguments(std::string_view line) {
  // sdssplitargs reads a C string: a NUL byte ends the line (an unquoted NUL here used to end
  // a token without consuming it, so the loop pushed empty tokens until memory ran out).
  line = line.substr(0, line.find('\0'));
  std::vector<std::string> arguments;
  std::size_t p = 0;
  while (true) {
    while (p < line.size() && is_space(line[p]))
      ++p;
    if (p >= line.size()) return arguments;
    std::string token;
    if (!read_token(line, p, token)) return std::nullopt;
    arguments.push_back(std::move(token));
  }
}

std::string quote(std::string_view bytes) {
  std::string out = "\"";
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      default:
        if (byte >= 0x20 && byte < 0x7f) {
          out.push_back(c);
        } else {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", byte);
          out += hex;
        }
    }
  }
  return out + "\"";
}

std::string format_reply(const Reply& reply) {
  std::string out;
  format_into(reply, out);
  return out;
}

bool printed_raw(const std::vector<std::string>& arguments) {
  return !arguments.empty() && redis_text::equals_ignore_case(arguments[0], "info");
}

}  // namespace redlock_sim::cli_text
