// A Redis command and its RESP2 reply, as the lock code sees them.
//
// The same types travel through the simulated network and come back from the real backend, so
// lock code never knows which one it talks to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redlock_sim {

// argv exactly as sent on the wire: command name first, every argument a binary-safe string.
using Command = std::vector<std::string>;

// Builds a command from any string-like arguments. Use it instead of `Command{"GET", key}` inside
// a co_await expression: g++ 12 rejects braced initializer_list temporaries there ("array used as
// initializer").
template <typename... Args>
Command make_command(Args&&... args) {
  Command command;
  command.reserve(sizeof...(args));
  (command.emplace_back(std::forward<Args>(args)), ...);
  return command;
}

enum class ReplyType : uint8_t {
  status,     // +OK
  error,      // -ERR ...
  integer,    // :1
  bulk,       // $3 foo
  nil,        // $-1 (null bulk string)
  array,      // *2 ...
  nil_array,  // *-1 (null array)
};

struct Reply {
  ReplyType type = ReplyType::nil;
  std::string text;  // status text, error text (without the leading '-'), or bulk bytes
  int64_t integer = 0;
  std::vector<Reply> elements;

  static Reply status(std::string_view s) {
    return Reply{ReplyType::status, std::string(s), 0, {}};
  }
  static Reply ok() { return status("OK"); }
  static Reply error(std::string_view s) { return Reply{ReplyType::error, std::string(s), 0, {}}; }
  static Reply integer_reply(int64_t v) { return Reply{ReplyType::integer, {}, v, {}}; }
  static Reply bulk(std::string_view s) { return Reply{ReplyType::bulk, std::string(s), 0, {}}; }
  static Reply nil_reply() { return Reply{}; }
  static Reply nil_array_reply() { return Reply{ReplyType::nil_array, {}, 0, {}}; }
  static Reply array(std::vector<Reply> items) {
    return Reply{ReplyType::array, {}, 0, std::move(items)};
  }

  bool is_ok() const { return type == ReplyType::status && text == "OK"; }
  bool is_error() const { return type == ReplyType::error; }
  bool is_nil() const { return type == ReplyType::nil || type == ReplyType::nil_array; }
  bool is_integer(int64_t v) const { return type == ReplyType::integer && integer == v; }

  friend bool operator==(const Reply&, const Reply&) = default;
};

// How one request ended, from the caller's side. `unknown` means the caller stopped waiting: the
// command may or may not have run on the server, now or later (FoundationDB's
// commit_unknown_result). `refused` means it certainly did not run.
enum class OutcomeKind : uint8_t { ok, refused, unknown };

struct Outcome {
  OutcomeKind kind = OutcomeKind::unknown;
  Reply reply;  // meaningful only when kind == ok; may itself be an error reply

  bool replied() const { return kind == OutcomeKind::ok; }
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// Renders a reply for logs and traces: `OK`, `(nil)`, `(integer) 1`, `"v"`, `(error) ERR ...`.
std::string describe(const Reply& reply);
std::string describe(const Command& command);

}  // namespace redlock_sim
