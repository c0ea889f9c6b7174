// Helpers shared by the engine's command files (not part of the public API).
#pragma once

#include <optional>

#include "sim/redis/engine.hpp"
#include "sim/redis/text.hpp"

namespace redlock_sim::engine_internal {

inline Reply error_reply(std::string_view text) {
  return Reply::error(text);
}
inline Reply wrong_type_reply() {
  return Reply::error(redis_text::wrong_type);
}
inline Reply not_integer_reply() {
  return Reply::error(redis_text::not_integer);
}

// Propagates a command to both the AOF and the replicas.
inline void emit(RedisEngine::Call& call, PropagatedCommand command) {
  call.propagate.push_back(Propagated{std::move(command), PropagationTarget::all});
}

// Propagates the original command unchanged (two words, DEL key most often, kept compact).
inline void emit_as_is(RedisEngine::Call& call) {
  if (call.argv.size() == 2) {
    call.propagate.emplace_back().command.make_pair(call.argv[0], call.argv[1]);
  } else {
    emit(call, call.argv);
  }
}

// Propagates a TTL-carrying write. 7.0 sends the absolute form everywhere (#8474); 6.2 sends
// the command as the client wrote it to replicas and only the AOF gets the absolute form.
// `as_sent_to_replicas`: the engine models 6.2 (RedisEngine::ttls_as_sent_to_replicas_).
void emit_ttl(RedisEngine::Call& call, bool as_sent_to_replicas, PropagatedCommand absolute);

}  // namespace redlock_sim::engine_internal
