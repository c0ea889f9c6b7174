// String commands: GET, SET and its variants, GETDEL, GETEX, INCR/DECR family.
#include <limits>
#include <optional>

#include "sim/redis/engine_internal.hpp"

namespace redlock_sim {

using namespace redis_text;
using namespace engine_internal;

void engine_internal::emit_ttl(RedisEngine::Call& call, bool as_sent_to_replicas,
                               PropagatedCommand absolute) {
  if (as_sent_to_replicas) {
    call.propagate.push_back(Propagated{call.argv, PropagationTarget::replicas});
    call.propagate.push_back(Propagated{std::move(absolute), PropagationTarget::aof});
    return;
  }
  emit(call, std::move(absolute));
}

namespace {

constexpr int set_nx = 1 << 0;
constexpr int set_xx = 1 << 1;
constexpr int set_ex = 1 << 2;
constexpr int set_px = 1 << 3;
constexpr int set_keepttl = 1 << 4;
constexpr int set_get = 1 << 5;
constexpr int set_exat = 1 << 6;
constexpr int set_pxat = 1 << 7;
constexpr int set_persist = 1 << 8;
constexpr int any_expire = set_ex | set_px | set_exat | set_pxat;

enum class StringOption : uint8_t { nx, xx, get, keepttl, persist, ex, px, exat, pxat, other };

// Which option a word names, any case: by its length first, then its folded letters (one pass
// instead of comparing it with each name in turn).
StringOption string_option(std::string_view text) {
  const auto folded = [&](std::size_t i) {
    const char c = text[i];
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  switch (text.size()) {
    case 2:
      if (folded(1) != 'x') return StringOption::other;
      switch (folded(0)) {
        case 'n':
          return StringOption::nx;
        case 'x':
          return StringOption::xx;
        case 'e':
          return StringOption::ex;
        case 'p':
          return StringOption::px;
        default:
          return StringOption::other;
      }
    case 3:
      return equals_ignore_case(text, "get") ? StringOption::get : StringOption::other;
    case 4:
      if (equals_ignore_case(text, "exat")) return StringOption::exat;
      return equals_ignore_case(text, "pxat") ? StringOption::pxat : StringOption::other;
    case 7:
      if (equals_ignore_case(text, "keepttl")) return StringOption::keepttl;
      return equals_ignore_case(text, "persist") ? StringOption::persist : StringOption::other;
    default:
      return StringOption::other;
  }
}

// Redis's parseExtendedStringArgumentsOrReply: the option rules of SET (is_set) and GETEX.
std::optional<Reply> parse_string_options(const Command& argv, bool is_set, int& flags,
                                          const std::string*& expire, bool& seconds) {
  using enum StringOption;
  for (std::size_t j = is_set ? 3 : 2; j < argv.size(); ++j) {
    const StringOption option = string_option(argv[j]);
    const std::string* next = j + 1 < argv.size() ? &argv[j + 1] : nullptr;
    if (option == nx && !(flags & set_xx) && is_set) {
      flags |= set_nx;
    } else if (option == xx && !(flags & set_nx) && is_set) {
      flags |= set_xx;
    } else if (option == get && is_set) {
      flags |= set_get;
    } else if (option == keepttl && !(flags & set_persist) && !(flags & any_expire) && is_set) {
      flags |= set_keepttl;
    } else if (option == persist && !is_set && !(flags & any_expire) && !(flags & set_keepttl)) {
      flags |= set_persist;
    } else if (option == ex && !(flags & set_keepttl) && !(flags & set_persist) &&
               !(flags & (set_exat | set_px | set_pxat)) && next != nullptr) {
      flags |= set_ex;
      expire = next;
      seconds = true;
      ++j;
    } else if (option == px && !(flags & set_keepttl) && !(flags & set_persist) &&
               !(flags & (set_ex | set_exat | set_pxat)) && next != nullptr) {
      flags |= set_px;
      expire = next;
      seconds = false;
      ++j;
    } else if (option == exat && !(flags & set_keepttl) && !(flags & set_persist) &&
               !(flags & (set_ex | set_px | set_pxat)) && next != nullptr) {
      flags |= set_exat;
      expire = next;
      seconds = true;
      ++j;
    } else if (option == pxat && !(flags & set_keepttl) && !(flags & set_persist) &&
               !(flags & (set_ex | set_exat | set_px)) && next != nullptr) {
      flags |= set_pxat;
      expire = next;
      seconds = false;
      ++j;
    } else {
      return Reply::error(syntax_error);
    }
  }
  return std::nullopt;
}

// parse_int64 for an expiry's usual text: 1 to 18 digits, the first not 0, read here (no sign, and
// no overflow is possible); any other text, or a non-digit met, goes to parse_int64, whose answer
// it is. A lock's SET .. PX ms comes here every time; read here, it costs about half the
// instructions of a call to parse_int64.
bool parse_expire_int64(std::string_view text, int64_t& value) {
  const std::size_t size = text.size();
  if (size - 1 < 18 && text[0] >= '1' && text[0] <= '9') {
    uint64_t magnitude = 0;
    std::size_t i = 0;
    for (; i < size; ++i) {
      const auto digit = static_cast<unsigned>(static_cast<unsigned char>(text[i])) - '0';
      if (digit > 9) break;
      magnitude = magnitude * 10 + digit;
    }
    if (i == size) {
      value = static_cast<int64_t>(magnitude);
      return true;
    }
  }
  return parse_int64(text, value);
}

// Redis's getExpireMillisecondsOrReply: the absolute expiry in ms, or the error to reply.
std::optional<Reply> expire_milliseconds(const RedisEngine::Call& call, std::string_view text,
                                         int flags, bool seconds, int64_t& when_ms) {
  if (!parse_expire_int64(text, when_ms)) return not_integer_reply();
  const int64_t max_seconds = std::numeric_limits<int64_t>::max() / 1000;
  if (when_ms <= 0 || (seconds && when_ms > max_seconds)) {
    return error_reply(invalid_expire_time(call.spec->name));
  }
  if (seconds) when_ms *= 1000;
  if ((flags & set_px) || (flags & set_ex)) {
    // Redis adds with wrapping and then refuses a non-positive result.
    when_ms =
        static_cast<int64_t>(static_cast<uint64_t>(when_ms) + static_cast<uint64_t>(call.now_ms));
  }
  if (when_ms <= 0) return error_reply(invalid_expire_time(call.spec->name));
  return std::nullopt;
}

Command without_get_arguments(const Command& argv) {
  Command out;
  for (std::size_t j = 0; j < argv.size(); ++j) {
    if (j >= 3 && equals_ignore_case(argv[j], "get")) continue;
    out.push_back(argv[j]);
  }
  return out;
}

}  // namespace

Reply RedisEngine::cmd_get(Call& call) {
  const Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::nil_reply();
  if (value->type != ValueType::string) return wrong_type_reply();
  return Reply::bulk(value->string);
}

namespace {
// `word` is the two letters `first` `second` (lower case) in any case: OR 0x20 lowers A-Z and
// makes no other byte a lower-case letter.
bool is_two_letters(const std::string& word, char first, char second) {
  return word.size() == 2 && (word[0] | 0x20) == first && (word[1] | 0x20) == second;
}
}  // namespace

// Flattened: set_generic and the option and expiry parsing made in place (a lock's SET NX PX).
[[gnu::flatten]] Reply RedisEngine::cmd_set(Call& call) {
  // SET key value NX PX ms, what lock clients send, read at once as parse_string_options reads
  // it (NX, then PX and its argument, nothing after).
  if (call.argv.size() == 6 && is_two_letters(call.argv[3], 'n', 'x') &&
      is_two_letters(call.argv[4], 'p', 'x')) {
    return set_generic(call, set_nx | set_px, call.argv[5], false, nullptr, nullptr);
  }
  int flags = 0;
  const std::string* expire = nullptr;
  bool seconds = false;
  if (auto error = parse_string_options(call.argv, true, flags, expire, seconds)) return *error;
  return set_generic(call, flags, expire == nullptr ? std::string_view() : *expire, seconds,
                     nullptr, nullptr);
}

Reply RedisEngine::set_generic(Call& call, int flags, std::string_view expire, bool seconds,
                               const Reply* ok_reply, const Reply* abort_reply) {
  const bool has_expire = (flags & any_expire) != 0;
  int64_t when_ms = 0;
  if (has_expire) {
    if (auto error = expire_milliseconds(call, expire, flags, seconds, when_ms)) {
      return *error;
    }
  }
  const std::string& key = call.argv[1];
  Reply old_value = Reply::nil_reply();
  if (flags & set_get) {
    const Value* value = lookup(call, key);
    if (value != nullptr) {
      if (value->type != ValueType::string) return wrong_type_reply();
      old_value = Reply::bulk(value->string);
    }
  }
  Keyspace::iterator place;  // where the key goes when not found
  Value* const existing = lookup_for_store(call, key, place);
  const bool found = existing != nullptr;
  if (((flags & set_nx) && found) || ((flags & set_xx) && !found)) {
    if (flags & set_get) return old_value;
    return abort_reply != nullptr ? *abort_reply : Reply::nil_reply();
  }
  const std::string& new_value = call.argv[call.spec->arity == 4 ? 3 : 2];
  const bool keep_ttl = (flags & set_keepttl) != 0;
  // A key found is overwritten where it lies; one not found (absent, or expired on a replica,
  // which keeps it) goes where the lookup's search left `place`.
  Value& value = found ? overwrite_string(*existing, new_value, keep_ttl)
                       : set_string_at(place, key, new_value, keep_ttl);
  if (has_expire) {
    set_expiry(value, when_ms);
    if (ttls_as_sent_to_replicas_) {
      emit_ttl(call, true, PropagatedCommand::set_pxat(key, new_value, when_ms));
    } else {
      call.propagate.emplace_back().command.make_set_pxat(key, new_value, when_ms);  // emit's
    }
  } else if (flags & set_get) {
    emit(call, without_get_arguments(call.argv));
  } else {
    emit_as_is(call);
  }
  if (flags & set_get) return old_value;
  return ok_reply != nullptr ? *ok_reply : Reply::ok();
}

Reply RedisEngine::cmd_setnx(Call& call) {
  static const Reply one = Reply::integer_reply(1);
  static const Reply zero = Reply::integer_reply(0);
  return set_generic(call, set_nx, {}, false, &one, &zero);
}

Reply RedisEngine::cmd_setex(Call& call) {
  return set_generic(call, set_ex, call.argv[2], true, nullptr, nullptr);
}

Reply RedisEngine::cmd_psetex(Call& call) {
  return set_generic(call, set_px, call.argv[2], false, nullptr, nullptr);
}

Reply RedisEngine::cmd_getdel(Call& call) {
  const std::string& key = call.argv[1];
  const Value* value = lookup(call, key);
  if (value == nullptr) return Reply::nil_reply();
  if (value->type != ValueType::string) return wrong_type_reply();
  Reply reply = Reply::bulk(value->string);
  remove_key(key);
  emit(call, make_command("DEL", key));
  return reply;
}

Reply RedisEngine::cmd_getex(Call& call) {
  int flags = 0;
  const std::string* expire = nullptr;
  bool seconds = false;
  if (auto error = parse_string_options(call.argv, false, flags, expire, seconds)) return *error;
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value == nullptr) return Reply::nil_reply();
  if (value->type != ValueType::string) return wrong_type_reply();
  int64_t when_ms = 0;
  if (expire != nullptr) {
    if (auto error = expire_milliseconds(call, *expire, flags, seconds, when_ms)) return *error;
  }
  Reply reply = Reply::bulk(value->string);
  // An absolute time already past deletes the key (checkAlreadyExpired: `when <= now`).
  if ((flags & (set_pxat | set_exat)) && when_ms <= call.now_ms && !options_.replica) {
    remove_key(key);
    emit(call, make_command(config_.lazyfree_lazy_expire ? "UNLINK" : "DEL", key));
  } else if (expire != nullptr) {
    set_expiry(*value, when_ms);
    emit(call, make_command("PEXPIREAT", key, format_int64(when_ms)));
  } else if ((flags & set_persist) && value->expire_at_ms != no_expiry_ms) {
    clear_expiry(*value);
    emit(call, make_command("PERSIST", key));
  }
  return reply;
}

Reply RedisEngine::incr_decr(Call& call, int64_t increment) {
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  int64_t current = 0;
  if (value != nullptr) {
    if (value->type != ValueType::string) return wrong_type_reply();
    if (!parse_int64(value->string, current)) return not_integer_reply();
  }
  if ((increment < 0 && current < 0 && increment < std::numeric_limits<int64_t>::min() - current) ||
      (increment > 0 && current > 0 && increment > std::numeric_limits<int64_t>::max() - current)) {
    return error_reply(overflow);
  }
  current += increment;
  set_string(key, format_int64(current), true);
  emit_as_is(call);
  return Reply::integer_reply(current);
}

Reply RedisEngine::cmd_incr(Call& call) {
  return incr_decr(call, 1);
}
Reply RedisEngine::cmd_decr(Call& call) {
  return incr_decr(call, -1);
}

Reply RedisEngine::cmd_incrby(Call& call) {
  int64_t increment = 0;
  if (!parse_int64(call.argv[2], increment)) return not_integer_reply();
  return incr_decr(call, increment);
}

Reply RedisEngine::cmd_decrby(Call& call) {
  int64_t decrement = 0;
  if (!parse_int64(call.argv[2], decrement)) return not_integer_reply();
  if (decrement == std::numeric_limits<int64_t>::min()) {
    return error_reply("ERR decrement would overflow");
  }
  return incr_decr(call, -decrement);
}

}  // namespace redlock_sim
