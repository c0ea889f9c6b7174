// Hash commands (Redisson's lock layout) and the few list commands lock libraries touch.
#include <algorithm>
#include <limits>

#include "sim/redis/engine_internal.hpp"

namespace redlock_sim {

using namespace redis_text;
using namespace engine_internal;

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields::iterator find_field(Fields& fields, std::string_view name) {
  return std::find_if(fields.begin(), fields.end(),
                      [name](const auto& field) { return field.first == name; });
}

}  // namespace

Reply RedisEngine::cmd_hset(Call& call) {
  if (call.argv.size() % 2 == 1) return error_reply(wrong_arity("hset"));
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value != nullptr && value->type != ValueType::hash) return wrong_type_reply();
  if (value == nullptr) {
    value = &keys_.emplace(key, Value{}).first->second;
    value->type = ValueType::hash;
  }
  int64_t created = 0;
  for (std::size_t j = 2; j < call.argv.size(); j += 2) {
    const auto field = find_field(value->hash, call.argv[j]);
    if (field == value->hash.end()) {
      value->hash.emplace_back(call.argv[j], call.argv[j + 1]);
      ++created;
    } else {
      field->second = call.argv[j + 1];
    }
  }
  emit_as_is(call);
  return Reply::integer_reply(created);
}

Reply RedisEngine::cmd_hget(Call& call) {
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::nil_reply();
  if (value->type != ValueType::hash) return wrong_type_reply();
  const auto field = find_field(value->hash, call.argv[2]);
  return field == value->hash.end() ? Reply::nil_reply() : Reply::bulk(field->second);
}

Reply RedisEngine::cmd_hdel(Call& call) {
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value == nullptr) return Reply::integer_reply(0);
  if (value->type != ValueType::hash) return wrong_type_reply();
  int64_t deleted = 0;
  for (std::size_t j = 2; j < call.argv.size(); ++j) {
    const auto field = find_field(value->hash, call.argv[j]);
    if (field == value->hash.end()) continue;
    value->hash.erase(field);
    ++deleted;
    if (value->hash.empty()) {
      remove_key(key);
      break;
    }
  }
  if (deleted > 0) emit_as_is(call);
  return Reply::integer_reply(deleted);
}

Reply RedisEngine::cmd_hexists(Call& call) {
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::integer_reply(0);
  if (value->type != ValueType::hash) return wrong_type_reply();
  return Reply::integer_reply(find_field(value->hash, call.argv[2]) != value->hash.end() ? 1 : 0);
}

Reply RedisEngine::cmd_hincrby(Call& call) {
  int64_t increment = 0;
  if (!parse_int64(call.argv[3], increment)) return not_integer_reply();
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value != nullptr && value->type != ValueType::hash) return wrong_type_reply();
  int64_t current = 0;
  Fields::iterator field;
  if (value != nullptr && (field = find_field(value->hash, call.argv[2])) != value->hash.end()) {
    if (!parse_int64(field->second, current))
      return error_reply("ERR hash value is not an integer");
  }
  if ((increment < 0 && current < 0 && increment < std::numeric_limits<int64_t>::min() - current) ||
      (increment > 0 && current > 0 && increment > std::numeric_limits<int64_t>::max() - current)) {
    return error_reply(overflow);
  }
  current += increment;
  if (value == nullptr) {
    value = &keys_.emplace(key, Value{}).first->second;
    value->type = ValueType::hash;
  }
  field = find_field(value->hash, call.argv[2]);
  if (field == value->hash.end()) {
    value->hash.emplace_back(call.argv[2], format_int64(current));
  } else {
    field->second = format_int64(current);
  }
  emit_as_is(call);
  return Reply::integer_reply(current);
}

Reply RedisEngine::cmd_hgetall(Call& call) {
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::array({});
  if (value->type != ValueType::hash) return wrong_type_reply();
  ReplyList items;
  items.reserve(value->hash.size() * 2);
  for (const auto& [name, field_value] : value->hash) {
    items.push_back(Reply::bulk(name));
    items.push_back(Reply::bulk(field_value));
  }
  return Reply::array(std::move(items));
}

Reply RedisEngine::cmd_hlen(Call& call) {
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::integer_reply(0);
  if (value->type != ValueType::hash) return wrong_type_reply();
  return Reply::integer_reply(static_cast<int64_t>(value->hash.size()));
}

Reply RedisEngine::push_generic(Call& call, bool left) {
  const std::string& key = call.argv[1];
  Value* value = lookup(call, key);
  if (value != nullptr && value->type != ValueType::list) return wrong_type_reply();
  if (value == nullptr) {
    value = &keys_.emplace(key, Value{}).first->second;
    value->type = ValueType::list;
  }
  for (std::size_t j = 2; j < call.argv.size(); ++j) {
    if (left) {
      value->list.insert(value->list.begin(), call.argv[j]);
    } else {
      value->list.push_back(call.argv[j]);
    }
  }
  emit_as_is(call);
  signal_key_as_ready(key);
  return Reply::integer_reply(static_cast<int64_t>(value->list.size()));
}

Reply RedisEngine::cmd_lpush(Call& call) {
  return push_generic(call, true);
}
Reply RedisEngine::cmd_rpush(Call& call) {
  return push_generic(call, false);
}

Reply RedisEngine::cmd_llen(Call& call) {
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::integer_reply(0);
  if (value->type != ValueType::list) return wrong_type_reply();
  return Reply::integer_reply(static_cast<int64_t>(value->list.size()));
}

Reply RedisEngine::cmd_lrange(Call& call) {
  int64_t start = 0;
  int64_t end = 0;
  if (!parse_int64(call.argv[2], start) || !parse_int64(call.argv[3], end)) {
    return not_integer_reply();
  }
  Value* value = lookup(call, call.argv[1]);
  if (value == nullptr) return Reply::array({});
  if (value->type != ValueType::list) return wrong_type_reply();
  const auto length = static_cast<int64_t>(value->list.size());
  if (start < 0) start = std::max<int64_t>(length + start, 0);
  if (end < 0) end = length + end;
  if (end >= length) end = length - 1;
  ReplyList items;
  for (int64_t i = start; i <= end && start < length; ++i) {
    items.push_back(Reply::bulk(value->list[static_cast<std::size_t>(i)]));
  }
  return Reply::array(std::move(items));
}

}  // namespace redlock_sim
