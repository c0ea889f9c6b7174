// Keyspace commands: DEL/UNLINK, EXISTS, TYPE, the EXPIRE and TTL families, PERSIST.
#include <limits>

#include "sim/redis/engine_internal.hpp"

namespace redlock_sim {

using namespace redis_text;
using namespace engine_internal;

Reply RedisEngine::cmd_del(Call& call) {
  int64_t deleted = 0;
  for (std::size_t j = 1; j < call.argv.size(); ++j) {
    // The lookup deletes (and propagates) a logically-expired key first, as expireIfNeeded does,
    // so it does not count as deleted by this command.
    const auto it = find_live(call, call.argv[j]);
    if (it == keys_.end()) continue;
    erase_key(it);
    ++deleted;
  }
  if (deleted > 0) emit_as_is(call);
  return Reply::integer_reply(deleted);
}

// Flattened: the propagated DEL made in place (a lock's release).
[[gnu::flatten]] int64_t RedisEngine::delete_one(Call& call, std::string_view name,
                                                 std::string_view key) {
  // cmd_del's steps for a single key.
  const auto it = find_live(call, key);
  if (it == keys_.end()) return 0;
  erase_key(it);
  call.propagate.emplace_back().command.make_pair(name, key);  // emit_as_is's
  return 1;
}

Reply RedisEngine::cmd_exists(Call& call) {
  int64_t count = 0;
  for (std::size_t j = 1; j < call.argv.size(); ++j) {
    if (lookup(call, call.argv[j]) != nullptr) ++count;
  }
  return Reply::integer_reply(count);
}

Reply RedisEngine::cmd_type(Call& call) {
  const Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::status("none");
  switch (value->type) {
    case ValueType::string:
      return Reply::status("string");
    case ValueType::hash:
      return Reply::status("hash");
    case ValueType::list:
      return Reply::status("list");
  }
  return Reply::status("none");
}

namespace {

constexpr int expire_nx = 1;
constexpr int expire_xx = 2;
constexpr int expire_gt = 4;
constexpr int expire_lt = 8;

std::optional<Reply> parse_expire_flags(const Command& argv, int& flags) {
  for (std::size_t j = 3; j < argv.size(); ++j) {
    const std::string& option = argv[j];
    if (equals_ignore_case(option, "nx")) {
      flags |= expire_nx;
    } else if (equals_ignore_case(option, "xx")) {
      flags |= expire_xx;
    } else if (equals_ignore_case(option, "gt")) {
      flags |= expire_gt;
    } else if (equals_ignore_case(option, "lt")) {
      flags |= expire_lt;
    } else {
      return Reply::error("ERR Unsupported option " + option);
    }
  }
  if ((flags & expire_nx) && (flags & (expire_xx | expire_gt | expire_lt))) {
    return Reply::error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if ((flags & expire_gt) && (flags & expire_lt)) {
    return Reply::error("ERR GT and LT options at the same time are not compatible");
  }
  return std::nullopt;
}

// Whether the NX/XX/GT/LT condition refuses the new expiry.
bool expire_refused(int flags, int64_t current_ms, int64_t when_ms) {
  if ((flags & expire_nx) && current_ms != no_expiry_ms) return true;
  if ((flags & expire_xx) && current_ms == no_expiry_ms) return true;
  // No TTL counts as infinite: GT always fails on it, LT always passes.
  if ((flags & expire_gt) && (when_ms <= current_ms || current_ms == no_expiry_ms)) return true;
  if ((flags & expire_lt) && current_ms != no_expiry_ms && when_ms >= current_ms) return true;
  return false;
}

}  // namespace

Reply RedisEngine::expire_generic(Call& call, int64_t base_ms, bool seconds) {
  const std::string& key = call.argv[1];
  int flags = 0;
  if (auto error = parse_expire_flags(call.argv, flags)) return *error;
  int64_t when_ms = 0;
  if (!parse_int64(call.argv[2], when_ms)) return not_integer_reply();
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  constexpr int64_t min = std::numeric_limits<int64_t>::min();
  if (seconds) {
    if (when_ms > max / 1000 || when_ms < min / 1000) {
      return error_reply(invalid_expire_time(call.spec->name));
    }
    when_ms *= 1000;
  }
  if (when_ms > max - base_ms) return error_reply(invalid_expire_time(call.spec->name));
  when_ms += base_ms;
  Value* value = lookup(call, key);
  if (value == nullptr) return Reply::integer_reply(0);
  if (flags != 0 && expire_refused(flags, value->expire_at_ms, when_ms)) {
    return Reply::integer_reply(0);
  }
  // A time already past deletes the key, and the deletion is what propagates (F20).
  if (when_ms <= call.now_ms && !options_.replica) {
    remove_key(key);
    emit(call, make_command(config_.lazyfree_lazy_expire ? "UNLINK" : "DEL", key));
    return Reply::integer_reply(1);
  }
  set_expiry(*value, when_ms);
  Command absolute = call.argv;
  absolute[0] = equals_ignore_case(call.argv[0], "pexpireat") ? call.argv[0] : "PEXPIREAT";
  if (base_ms != 0 || seconds) absolute[2] = format_int64(when_ms);
  emit_ttl(call, ttls_as_sent_to_replicas_, std::move(absolute));
  return Reply::integer_reply(1);
}

Reply RedisEngine::cmd_expire(Call& call) {
  return expire_generic(call, call.now_ms, true);
}
Reply RedisEngine::cmd_pexpire(Call& call) {
  return expire_generic(call, call.now_ms, false);
}
Reply RedisEngine::cmd_expireat(Call& call) {
  return expire_generic(call, 0, true);
}
Reply RedisEngine::cmd_pexpireat(Call& call) {
  return expire_generic(call, 0, false);
}

Reply RedisEngine::ttl_generic(Call& call, bool milliseconds, bool absolute) {
  const Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::integer_reply(-2);
  if (value->expire_at_ms == no_expiry_ms) return Reply::integer_reply(-1);
  int64_t ttl_ms = absolute ? value->expire_at_ms : value->expire_at_ms - call.now_ms;
  if (ttl_ms < 0) ttl_ms = 0;
  return Reply::integer_reply(milliseconds ? ttl_ms : (ttl_ms + 500) / 1000);
}

Reply RedisEngine::cmd_ttl(Call& call) {
  return ttl_generic(call, false, false);
}
Reply RedisEngine::cmd_pttl(Call& call) {
  return ttl_generic(call, true, false);
}
Reply RedisEngine::cmd_expiretime(Call& call) {
  return ttl_generic(call, false, true);
}
Reply RedisEngine::cmd_pexpiretime(Call& call) {
  return ttl_generic(call, true, true);
}

Reply RedisEngine::cmd_persist(Call& call) {
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value == nullptr || value->expire_at_ms == no_expiry_ms) return Reply::integer_reply(0);
  clear_expiry(*value);
  emit_as_is(call);
  return Reply::integer_reply(1);
}

}  // namespace redlock_sim
