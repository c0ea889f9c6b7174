// List pops and BLPOP's non-blocking half (python-redis-lock waits on its signal list with BLPOP).
// Whether a BLPOP blocks is decided here; parking the client, waking it when a push makes a key
// ready and timing it out belong to the node (sim/redis/node.cpp), as in Redis's blocked.c.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "sim/redis/engine_internal.hpp"

namespace redlock_sim {

using namespace engine_internal;
using namespace redis_text;

namespace {

// Redis 7.0's string2ld: strtold over the whole argument, no leading space, no NaN, and an
// underflow or overflow to zero or infinity refused. Parsing an argument is the one place the
// engine reads a floating-point number; it only chooses the integer millisecond timeout below.
bool parse_long_double(const std::string& text, long double& value) {
  constexpr std::size_t max_long_double_chars = 5 * 1024;
  if (text.empty() || text.size() >= max_long_double_chars) return false;
  if (std::isspace(static_cast<unsigned char>(text[0])) != 0) return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || value == 0.0L)) {
    return false;
  }
  return !std::isnan(value);
}

// Redis 7.0's getTimeoutFromObjectOrReply in seconds: `(long long)(seconds * 1000.0)`, so the
// milliseconds are truncated (0.0009 is 0: for ever) and a value past int64 is, on the x86-64
// Redis runs on, LLONG_MIN: "timeout is negative" (as `inf` and `1e400` answer). nullopt with
// `error` set on bad input; 0 means block for ever.
std::optional<int64_t> parse_timeout_ms(const std::string& text, std::string& error) {
  long double seconds = 0;
  if (!parse_long_double(text, seconds)) {
    error = "ERR timeout is not a float or out of range";
    return std::nullopt;
  }
  const long double ms = seconds * 1000.0L;
  if (!(ms > -9.2e18L && ms < 9.2e18L) || static_cast<int64_t>(ms) < 0) {
    error = "ERR timeout is negative";
    return std::nullopt;
  }
  return static_cast<int64_t>(ms);
}

// Redis's getPositiveLongFromObjectOrReply for LPOP/RPOP's count.
bool parse_count(const std::string& text, int64_t& count) {
  return parse_int64(text, count) && count >= 0;
}

}  // namespace

void RedisEngine::signal_key_as_ready(const std::string& key) {
  for (const std::string& ready : ready_keys_) {
    if (ready == key) return;
  }
  ready_keys_.push_back(key);
}

// LPOP/RPOP key [count] (Redis 7.0 popGenericCommand): without a count the element or nil, with
// one an array (nil array for a missing key, empty for a count of 0); an emptied list is deleted.
Reply RedisEngine::pop_generic(Call& call, bool left) {
  const std::string name = left ? "lpop" : "rpop";
  if (call.argv.size() > 3) return error_reply(wrong_arity(name));
  int64_t count = 1;
  const bool has_count = call.argv.size() == 3;
  if (has_count && !parse_count(call.argv[2], count)) {
    return error_reply("ERR value is out of range, must be positive");
  }
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value == nullptr) return has_count ? Reply::nil_array_reply() : Reply::nil_reply();
  if (value->type != ValueType::list) return wrong_type_reply();
  if (has_count && count == 0) return Reply::array({});
  ReplyList items;
  while (count > 0 && !value->list.empty()) {
    if (left) {
      items.push_back(Reply::bulk(value->list.front()));
      value->list.erase(value->list.begin());
    } else {
      items.push_back(Reply::bulk(value->list.back()));
      value->list.pop_back();
    }
    --count;
  }
  emit_as_is(call);
  if (value->list.empty()) remove_key(key);
  if (!has_count) return std::move(items.front());
  return Reply::array(std::move(items));
}

Reply RedisEngine::cmd_lpop(Call& call) {
  return pop_generic(call, true);
}
Reply RedisEngine::cmd_rpop(Call& call) {
  return pop_generic(call, false);
}

// BLPOP key [key ...] timeout (Redis 7.0 blockingPopGenericCommand): the timeout is parsed
// first; the first key holding a non-empty list is popped at once and the pop propagated as
// LPOP; a key of another type is WRONGTYPE. With every key empty the reply is a nil array, and
// outside a script the node blocks the client instead of sending it (take_block_request).
Reply RedisEngine::cmd_blpop(Call& call) {
  std::string error;
  const std::optional<int64_t> timeout_ms = parse_timeout_ms(call.argv.back(), error);
  if (!timeout_ms) return error_reply(error);
  const std::size_t key_end = call.argv.size() - 1;
  for (std::size_t j = 1; j < key_end; ++j) {
    Value* value = lookup(call, call.argv[j]);
    if (value == nullptr) continue;
    if (value->type != ValueType::list) return wrong_type_reply();
    if (value->list.empty()) continue;
    const std::string key = call.argv[j];
    Reply element = Reply::bulk(value->list.front());
    value->list.erase(value->list.begin());
    emit(call, make_command("LPOP", key));
    if (value->list.empty()) remove_key(key);
    return Reply::array({Reply::bulk(key), std::move(element)});
  }
  if (!call.in_script && !call.from_master) {
    BlockRequest request{.keys = {}, .timeout_at_ms = 0};
    for (std::size_t j = 1; j < key_end; ++j)
      request.keys.push_back(call.argv[j]);
    if (*timeout_ms > 0) {
      // Past int64 Redis's own addition overflows; the model blocks for ever instead.
      const int64_t room = INT64_MAX - call.now_ms;
      request.timeout_at_ms = *timeout_ms > room ? 0 : call.now_ms + *timeout_ms;
    }
    block_request_ = std::move(request);
  }
  return Reply::nil_array_reply();
}

}  // namespace redlock_sim
