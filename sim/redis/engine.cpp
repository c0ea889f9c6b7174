// The engine's core: the command table, dispatch (unknown command, arity, replica writes),
// key lookup with logical expiry, propagation of expiries, snapshots and active expiry.
#include "sim/redis/engine.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "sim/redis/scripting.hpp"
#include "sim/redis/sha1.hpp"
#include "sim/redis/text.hpp"

namespace redlock_sim {

using namespace redis_text;

namespace {

// A spare node (RedisEngine::keep_spare) is kept only while its strings hold at most this.
constexpr std::size_t spare_room_max = 256;

using E = RedisEngine;
// Sorted by name (find_command looks names up through CommandIndex).
const E::CommandSpec command_table[] = {
    {"blpop", -3, command_write | command_noscript, &E::cmd_blpop},
    {"config", -2, command_noscript, &E::cmd_config},
    {"dbsize", 1, 0, &E::cmd_dbsize},
    {"decr", 2, command_write, &E::cmd_decr},
    {"decrby", 3, command_write, &E::cmd_decrby},
    {"del", -2, command_write, &E::cmd_del},
    {"echo", 2, 0, &E::cmd_echo},
    {"eval", -3, command_noscript, &E::cmd_eval},
    {"evalsha", -3, command_noscript, &E::cmd_evalsha},
    {"exists", -2, 0, &E::cmd_exists},
    {"expire", -3, command_write, &E::cmd_expire},
    {"expireat", -3, command_write, &E::cmd_expireat},
    {"expiretime", 2, 0, &E::cmd_expiretime},
    {"flushall", -1, command_write, &E::cmd_flushall},
    {"get", 2, 0, &E::cmd_get},
    {"getdel", 2, command_write, &E::cmd_getdel},
    {"getex", -2, command_write, &E::cmd_getex},
    {"hdel", -3, command_write, &E::cmd_hdel},
    {"hexists", 3, 0, &E::cmd_hexists},
    {"hget", 3, 0, &E::cmd_hget},
    {"hgetall", 2, 0, &E::cmd_hgetall},
    {"hincrby", 4, command_write, &E::cmd_hincrby},
    {"hlen", 2, 0, &E::cmd_hlen},
    {"hset", -4, command_write, &E::cmd_hset},
    {"incr", 2, command_write, &E::cmd_incr},
    {"incrby", 3, command_write, &E::cmd_incrby},
    {"info", -1, 0, &E::cmd_info},
    {"llen", 2, 0, &E::cmd_llen},
    {"lpop", -2, command_write, &E::cmd_lpop},
    {"lpush", -3, command_write, &E::cmd_lpush},
    {"lrange", 4, 0, &E::cmd_lrange},
    {"persist", 2, command_write, &E::cmd_persist},
    {"pexpire", -3, command_write, &E::cmd_pexpire},
    {"pexpireat", -3, command_write, &E::cmd_pexpireat},
    {"pexpiretime", 2, 0, &E::cmd_pexpiretime},
    {"ping", -1, 0, &E::cmd_ping},
    {"psetex", 4, command_write, &E::cmd_psetex},
    {"pttl", 2, 0, &E::cmd_pttl},
    {"publish", 3, 0, &E::cmd_publish},
    {"role", 1, command_noscript, &E::cmd_role},
    {"rpop", -2, command_write, &E::cmd_rpop},
    {"rpush", -3, command_write, &E::cmd_rpush},
    {"script", -2, command_noscript, &E::cmd_script},
    {"set", -3, command_write, &E::cmd_set},
    {"setex", 4, command_write, &E::cmd_setex},
    {"setnx", 3, command_write, &E::cmd_setnx},
    {"shutdown", -1, command_noscript, &E::cmd_shutdown},
    {"time", 1, 0, &E::cmd_time},
    {"ttl", 2, 0, &E::cmd_ttl},
    {"type", 2, 0, &E::cmd_type},
    {"unlink", -2, command_write, &E::cmd_del},
    {"wait", 3, command_noscript, &E::cmd_wait},
};

// Out of line: execute, flattened, would otherwise take it in (a cold path).
[[gnu::noinline, gnu::cold]] std::string unknown_command_error(const Command& argv) {
  std::string args;
  for (std::size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    args += "'" + argv[i].substr(0, 128 - args.size()) + "' ";
  }
  std::string text =
      "ERR unknown command '" + argv[0].substr(0, 128) + "', with args beginning with: " + args;
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

}  // namespace

namespace {

// The command table bucketed by name length and first letter, so that a lookup compares at most
// a few names: find_command runs for every command and every redis.call, and its binary search
// with case folding cost about 340 instructions a lookup (3.7% of an exploration). A name is
// compared as two 8-byte words of its bytes each OR 0x20, which lowers A-Z and turns no other
// byte into a lowercase letter: for the table's names (lowercase letters only) the words are
// equal exactly when the names are, in any case (a character-by-character comparison cost about
// 100 instructions a lookup; building the words a byte at a time, about 80 a lookup in all).
class CommandIndex {
 public:
  static constexpr std::size_t length_max = 15;
  static constexpr std::size_t bucket_size = 6;
  // Out of line: built once, and inlined it would make every lookup save registers for it.
  [[gnu::noinline, gnu::cold]] CommandIndex() {
    for (std::size_t i = 0; i < std::size(command_table); ++i) {
      const std::string_view name = command_table[i].name;
      if (name.size() > length_max) std::abort();
      for (const char c : name) {
        if (c < 'a' || c > 'z') std::abort();  // the folded comparison needs letters only
      }
      auto& bucket = buckets_[bucket_of(name.size(), name[0])];
      std::size_t free = 0;
      while (free < bucket_size && bucket[free] != 0)
        ++free;
      if (free == bucket_size) std::abort();  // widen bucket_size
      bucket[free] = static_cast<uint8_t>(i + 1);
      keys_[i] = key_of(name);
    }
  }
  const E::CommandSpec* find(std::string_view name) const {
    if (name.empty() || name.size() > length_max) return nullptr;
    const Key key = key_of(name);
    const auto first = static_cast<char>(key.words[0] & 0xff);
    if (first < 'a' || first > 'z') return nullptr;
    for (const uint8_t entry : buckets_[bucket_of(name.size(), first)]) {
      if (entry == 0) break;
      const Key& candidate = keys_[entry - 1];
      if (candidate.words[0] == key.words[0] && candidate.words[1] == key.words[1]) {
        return &command_table[entry - 1];
      }
    }
    return nullptr;
  }

 private:
  struct Key {
    std::array<uint64_t, 2> words{};
  };
  // The first byte of a name is the low byte of its first word (find reads it so).
  static_assert(std::endian::native == std::endian::little);
  // Every byte of the name, OR 0x20, in two words: the first and last 8 bytes (overlapping
  // for 8 to 15 bytes), the first and last 4 (4 to 7), or bytes 0, n/2 and n-1 (1 to 3). Names
  // compared by key have the same length (a bucket's), so equal keys mean equal folded names.
  static Key key_of(std::string_view name) {  // 1 <= name.size() <= length_max
    constexpr uint64_t fold = 0x2020202020202020ULL;
    const char* text = name.data();
    const std::size_t size = name.size();
    Key key;
    if (size >= 8) {
      std::memcpy(&key.words[0], text, 8);
      std::memcpy(&key.words[1], text + size - 8, 8);
    } else if (size >= 4) {
      uint32_t head = 0;
      uint32_t tail = 0;
      std::memcpy(&head, text, 4);
      std::memcpy(&tail, text + size - 4, 4);
      key.words[0] = head;
      key.words[1] = tail;
    } else {
      key.words[0] = static_cast<unsigned char>(text[0]) |
                     uint64_t{static_cast<unsigned char>(text[size / 2])} << 8 |
                     uint64_t{static_cast<unsigned char>(text[size - 1])} << 16;
    }
    key.words[0] |= fold;
    key.words[1] |= fold;
    return key;
  }
  static std::size_t bucket_of(std::size_t length, char lower_first) {
    return (length - 1) * 26 + static_cast<std::size_t>(lower_first - 'a');
  }
  std::array<std::array<uint8_t, bucket_size>, length_max * 26> buckets_{};  // entry + 1; 0 = none
  std::array<Key, std::size(command_table)> keys_{};
};

}  // namespace

namespace {

int64_t decimal_digits(uint64_t value) {
  // The digits of 2^bit_width - 1 less one, then one more at or past the power of ten (about a
  // dozen instructions for a 13-digit time, a division a digit in a loop).
  static constexpr std::array<uint64_t, 20> powers = [] {
    std::array<uint64_t, 20> table{};
    uint64_t power = 1;
    for (uint64_t& entry : table) {
      entry = power;
      if (power <= UINT64_MAX / 10) power *= 10;
    }
    return table;
  }();
  value |= 1;  // the same digits (0 has one)
  const auto guess = static_cast<std::size_t>((std::bit_width(value) * 1233) >> 12);
  return static_cast<int64_t>(guess) + (value >= powers[guess] ? 1 : 0);
}

// The characters format_int64 writes.
int64_t formatted_length(int64_t value) {
  const uint64_t magnitude =
      value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return decimal_digits(magnitude) + (value < 0 ? 1 : 0);
}

// `$<size>\r\n<bytes>\r\n` (a compact command's words have one or two digits of size).
int64_t bulk_length(std::size_t size) {
  const int64_t digits = size < 10 ? 1 : size < 100 ? 2 : decimal_digits(size);
  return 1 + digits + 2 + static_cast<int64_t>(size) + 2;
}

// `*<argc>\r\n`
int64_t header_length(std::size_t argc) {
  return 1 + decimal_digits(argc) + 2;
}

// a == b, a key against a stored one (the last entry found, the insertion place, the spare
// node's): up to 16 bytes compared in place as two overlapping words (the last entry found is
// compared for nearly every command, and a lock's key is short), longer ones by memcmp. The same
// answer as std::string's ==.
// The `size` bytes at x and y (size of 1 to 2 words) compared as their first and last words,
// which overlap when size is under two words and together cover every byte.
template <typename Word>
bool same_words(const char* x, const char* y, std::size_t size) {
  Word x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  std::memcpy(&x0, x, sizeof(Word));
  std::memcpy(&y0, y, sizeof(Word));
  std::memcpy(&x1, x + size - sizeof(Word), sizeof(Word));
  std::memcpy(&y1, y + size - sizeof(Word), sizeof(Word));
  return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}

bool same_key(std::string_view a, std::string_view b) {
  const std::size_t size = a.size();
  if (size != b.size()) return false;
  if (size >= 8 && size <= 16) return same_words<uint64_t>(a.data(), b.data(), size);
  if (size >= 4 && size < 8) return same_words<uint32_t>(a.data(), b.data(), size);
  return size == 0 || std::memcmp(a.data(), b.data(), size) == 0;
}

}  // namespace

bool PropagatedCommand::hold(std::string_view first, std::string_view second) {
  if (first.size() + second.size() > text_max) return false;
  std::memcpy(text_.data(), first.data(), first.size());
  std::memcpy(text_.data() + first.size(), second.data(), second.size());
  first_size_ = static_cast<uint8_t>(first.size());
  second_size_ = static_cast<uint8_t>(second.size());
  return true;
}

void PropagatedCommand::make_pair(std::string_view name, std::string_view key) {
  if (hold(name, key)) {
    form_ = Form::pair;
  } else {
    argv_ = make_command(name, key);
  }
}

void PropagatedCommand::make_set_pxat(std::string_view key, std::string_view value,
                                      int64_t when_ms) {
  if (hold(key, value)) {
    form_ = Form::set_pxat;
    when_ms_ = when_ms;
  } else {
    argv_ = make_command("SET", key, value, "PXAT", format_int64(when_ms));
  }
}

PropagatedCommand PropagatedCommand::pair(std::string_view name, std::string_view key) {
  PropagatedCommand command;
  command.make_pair(name, key);
  return command;
}

PropagatedCommand PropagatedCommand::set_pxat(std::string_view key, std::string_view value,
                                              int64_t when_ms) {
  PropagatedCommand command;
  command.make_set_pxat(key, value, when_ms);
  return command;
}

void PropagatedCommand::write_out() const {
  switch (form_) {
    case Form::argv:
      return;
    case Form::pair:
      argv_ = make_command(first(), second());
      break;
    case Form::set_pxat:
      argv_ = make_command("SET", first(), second(), "PXAT", format_int64(when_ms_));
      break;
  }
  form_ = Form::argv;
}

Command PropagatedCommand::take() && {
  if (form_ != Form::argv) write_out();
  return std::move(argv_);
}

int64_t PropagatedCommand::resp_length(const Command& argv) {
  int64_t length = header_length(argv.size());
  for (const std::string& argument : argv)
    length += bulk_length(argument.size());
  return length;
}

int64_t PropagatedCommand::resp_length() const {
  switch (form_) {
    case Form::argv:
      break;
    case Form::pair:
      return header_length(2) + bulk_length(first_size_) + bulk_length(second_size_);
    case Form::set_pxat:
      return header_length(5) + bulk_length(3) + bulk_length(first_size_) +
             bulk_length(second_size_) + bulk_length(4) +
             bulk_length(static_cast<std::size_t>(formatted_length(when_ms_)));
  }
  return resp_length(argv_);
}

namespace {
// Built when the program starts (command_table is constant): a lookup checks no guard. No
// initializer of another file's statics looks a command up.
const CommandIndex command_index;
}  // namespace

const RedisEngine::CommandSpec* RedisEngine::find_command(std::string_view name) {
  return command_index.find(name);
}

const char* RedisEngine::replica_readonly_error() {
  return "READONLY You can't write against a read only replica.";
}

RedisEngine::RedisEngine(EngineOptions options)
    : options_(std::move(options)), scripts_(std::make_unique<ScriptRunner>(*this)) {
  // The option is the starting value; CONFIG SET busy-reply-threshold changes it.
  config_.busy_reply_threshold_ms = options_.busy_reply_threshold_ms;
  ttls_as_sent_to_replicas_ = options_.version == "6.2";
  // A fixed replication id: the real one is random, the model's must be reproducible. Hashed
  // once, not once an engine.
  static const std::string replication_id = sha1_hex("redlock-sim replication id");
  replication_id_ = replication_id;
}

RedisEngine::~RedisEngine() = default;

// Flattened: dispatch (called only from here) is made in place, one call less a command.
[[gnu::flatten]] Reply RedisEngine::execute(const Command& command, const ExecutionContext& context,
                                            std::vector<Propagated>& propagate) {
  Call call{command,  context.wall_now.ms_floor(), context.wall_now, context.from_master, false,
            propagate};
  script_run_ = ScriptRun{};
  return dispatch(call);
}

uint64_t RedisEngine::busy_instructions() const {
  const auto threshold_ms =
      static_cast<uint64_t>(std::max<int64_t>(0, config_.busy_reply_threshold_ms));
  const unsigned __int128 product =
      static_cast<unsigned __int128>(threshold_ms) * options_.script_instructions_per_ms;
  return product > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(product);
}

Duration RedisEngine::script_duration(uint64_t instructions) const {
  const uint64_t per_ms = std::max<uint64_t>(1, options_.script_instructions_per_ms);
  const unsigned __int128 ns =
      (static_cast<unsigned __int128>(instructions) * 1'000'000 + per_ms - 1) / per_ms;
  constexpr auto ns_max = static_cast<unsigned __int128>(INT64_MAX / 4);  // far past any run
  return Duration::from_ns(static_cast<int64_t>(std::min(ns, ns_max)));
}

Reply RedisEngine::kill_script(uint64_t instructions, std::vector<Propagated>& propagate) {
  ++script_limits_.script_kill;
  return scripts_->kill_last(instructions, propagate);
}

bool RedisEngine::is_script_kill(const Command& command) {
  return command.size() == 2 && equals_ignore_case(command[0], "script") &&
         equals_ignore_case(command[1], "kill");
}

namespace {
const char* const busy_text =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
}  // namespace

std::optional<Reply> RedisEngine::shutdown_refusal(const Command& command, bool busy) {
  bool nosave = false, save = false, now_or_force = false, abort = false;
  for (std::size_t i = 1; i < command.size(); ++i) {
    if (equals_ignore_case(command[i], "nosave")) {
      nosave = true;
    } else if (equals_ignore_case(command[i], "save")) {
      save = true;
    } else if (equals_ignore_case(command[i], "now") || equals_ignore_case(command[i], "force")) {
      now_or_force = true;
    } else if (equals_ignore_case(command[i], "abort")) {
      abort = true;
    } else {
      return Reply::error("ERR syntax error");
    }
  }
  if ((abort && (nosave || save || now_or_force)) || (nosave && save)) {
    return Reply::error("ERR syntax error");
  }
  // The model never has a shutdown in progress (it stops at once: no replica wait).
  if (abort) return Reply::error("ERR No shutdown in progress.");
  if (busy && !nosave) return Reply::error(busy_text);
  return std::nullopt;
}

bool RedisEngine::is_shutdown(const Command& command) {
  return !command.empty() && equals_ignore_case(command[0], "shutdown");
}

Reply RedisEngine::cmd_shutdown(Call& call) {
  if (std::optional<Reply> refusal = shutdown_refusal(call.argv, false)) return *refusal;
  // The server stops without a reply: the node (or the CLI) takes the request and stops.
  shutdown_requested_ = true;
  return Reply::ok();
}

Reply RedisEngine::busy_reply(const Command& command) const {
  if (command.empty()) return Reply::error("ERR empty command");
  const CommandSpec* spec = find_command(command[0]);
  if (spec == nullptr) return Reply::error(unknown_command_error(command));
  const auto argc = static_cast<int>(command.size());
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    return Reply::error(wrong_arity(spec->name));
  }
  if (equals_ignore_case(command[0], "script")) {
    // Subcommands are looked up (and their arity checked) before the BUSY check too.
    const std::string& sub = command[1];
    struct Sub {
      const char* name;
      int arity;
    };
    constexpr Sub subs[] = {{"exists", -3}, {"flush", -2}, {"help", 2}, {"kill", 2}, {"load", 3}};
    const Sub* found = nullptr;
    for (const Sub& candidate : subs) {
      if (equals_ignore_case(sub, candidate.name)) found = &candidate;
    }
    if (found == nullptr) {
      return Reply::error("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try SCRIPT HELP.");
    }
    if ((found->arity > 0 && argc != found->arity) || argc < -found->arity) {
      return Reply::error(wrong_arity(std::string("script|") + found->name));
    }
  }
  if (options_.replica && (spec->flags & command_write) != 0) {
    return Reply::error(replica_readonly_error());
  }
  if (equals_ignore_case(spec->name, "shutdown")) {
    // SHUTDOWN is allowed while busy (CMD_ALLOW_BUSY): its own errors, BUSY without NOSAVE.
    if (std::optional<Reply> refusal = shutdown_refusal(command, true)) return *refusal;
  }
  return Reply::error(busy_text);
}

Reply RedisEngine::dispatch(Call& call) {
  if (call.argv.empty()) return Reply::error("ERR empty command");
  const CommandSpec* spec = command_index.find(call.argv[0]);  // find_command, inline
  if (spec == nullptr) return Reply::error(unknown_command_error(call.argv));
  const auto argc = static_cast<int>(call.argv.size());
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    return Reply::error(wrong_arity(spec->name));
  }
  if (options_.replica && !call.from_master && (spec->flags & command_write) != 0) {
    return Reply::error(replica_readonly_error());
  }
  call.spec = spec;
  return (this->*(spec->handler))(call);
}

// lookup, find_live, lookup_for_store and erase_key are flattened: their steps (the last entry
// compared, a descent, an expired key's deletion, a spare node kept) are made in place, as each
// runs for nearly every command.
[[gnu::flatten]] Value* RedisEngine::lookup(Call& call, std::string_view key) {
  const auto it = find_live(call, key);
  return it == keys_.end() ? nullptr : &it->second;
}

RedisEngine::Keyspace::iterator RedisEngine::find_key(std::string_view key) {
  if (last_found_ != keys_.end() && same_key(last_found_->first, key)) return last_found_;
  const auto it = keys_.find(key);
  if (it != keys_.end()) last_found_ = it;
  return it;
}

[[gnu::flatten]] RedisEngine::Keyspace::iterator RedisEngine::find_live(Call& call,
                                                                        std::string_view key) {
  const auto it = find_key(key);
  if (it == keys_.end() || !logically_expired(it->second, call.now_ms)) return it;
  // A replica applies its master's stream verbatim and never deletes on its own; its clients
  // just see the key as missing (F4, F5).
  if (options_.replica) return call.from_master ? it : keys_.end();
  delete_expired(call, it);
  return keys_.end();
}

[[gnu::flatten]] Value* RedisEngine::lookup_for_store(Call& call, std::string_view key,
                                                      Keyspace::iterator& place) {
  auto it = last_found_;
  if (it == keys_.end() || !same_key(it->first, key)) {
    it = keys_.lower_bound(key);
    place = it;
    if (it == keys_.end() || !same_key(it->first, key)) return nullptr;
    last_found_ = it;
  }
  place = it;
  if (!logically_expired(it->second, call.now_ms)) return &it->second;
  // As find_live: a replica keeps the key (and stores over it), a master deletes it first.
  if (options_.replica) return call.from_master ? &it->second : nullptr;
  place = std::next(it);
  delete_expired(call, it);
  return nullptr;
}

void RedisEngine::delete_expired(Call& call, Keyspace::iterator it) {
  if (call.in_script) scripts_->note_expired(it->first, it->second);
  call.propagate.emplace_back().command.make_pair(config_.lazyfree_lazy_expire ? "UNLINK" : "DEL",
                                                  it->first);
  erase_key(it);  // it has a TTL: counted in volatile_count_
  ++expired_keys_;
}

bool RedisEngine::remove_key(std::string_view key) {
  const auto it = find_key(key);
  if (it == keys_.end()) return false;
  erase_key(it);
  return true;
}

[[gnu::flatten]] void RedisEngine::erase_key(Keyspace::iterator it) {
  if (it->second.expire_at_ms != no_expiry_ms) --volatile_count_;
  if (it == last_found_) last_found_ = keys_.end();
  keep_spare(keys_.extract(it));
}

void RedisEngine::keep_spare(Keyspace::node_type node) {
  const Value& value = node.mapped();
  if (node.key().capacity() <= spare_room_max && value.string.capacity() <= spare_room_max &&
      value.hash.capacity() == 0 && value.list.capacity() == 0) {
    spare_key_ = std::move(node);
  }
}

Value& RedisEngine::set_string(std::string_view key, std::string_view value, bool keep_ttl) {
  // One descent of the tree whether the key is new or not (find, then emplace, made two).
  return set_string_at(keys_.lower_bound(key), key, value, keep_ttl);
}

// Flattened: the spare node's reuse and the insertion made in place (a lock key set anew).
[[gnu::flatten]] Value& RedisEngine::set_string_at(Keyspace::iterator place, std::string_view key,
                                                   std::string_view value, bool keep_ttl) {
  if (place == keys_.end() || !same_key(place->first, key)) {
    if (!spare_key_.empty()) {
      // The spare node, made what a new node is (Value{}) with this key and string.
      // Most often the same key again (a lock's key, set after it was deleted).
      if (!same_key(spare_key_.key(), key)) spare_key_.key().assign(key);
      Value& fresh = spare_key_.mapped();
      fresh.type = ValueType::string;
      fresh.string.assign(value);
      fresh.hash.clear();
      fresh.list.clear();
      fresh.expire_at_ms = no_expiry_ms;
      last_found_ = keys_.insert(place, std::move(spare_key_));
      return last_found_->second;
    }
    place = keys_.emplace_hint(place, std::string(key), Value{});
    place->second.string.assign(value);
    last_found_ = place;
    return place->second;
  }
  return overwrite_string(place->second, value, keep_ttl);
}

Value& RedisEngine::overwrite_string(Value& existing, std::string_view value, bool keep_ttl) {
  const int64_t expire_at_ms = existing.expire_at_ms;
  existing = Value{};
  if (keep_ttl) {
    existing.expire_at_ms = expire_at_ms;
  } else if (expire_at_ms != no_expiry_ms) {
    --volatile_count_;
  }
  existing.type = ValueType::string;
  existing.string.assign(value);
  return existing;
}

void RedisEngine::set_expiry(Value& value, int64_t when_ms) {
  if (value.expire_at_ms == no_expiry_ms) ++volatile_count_;
  value.expire_at_ms = when_ms;
}

void RedisEngine::clear_expiry(Value& value) {
  if (value.expire_at_ms == no_expiry_ms) return;
  --volatile_count_;
  value.expire_at_ms = no_expiry_ms;
}

const Value* RedisEngine::peek(std::string_view key) const {
  const auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

std::vector<SnapshotEntry> RedisEngine::snapshot() const {
  std::vector<SnapshotEntry> entries;
  entries.reserve(keys_.size());
  for (const auto& [key, value] : keys_)
    entries.push_back(SnapshotEntry{key, value});
  return entries;
}

void RedisEngine::restore(const std::vector<SnapshotEntry>& entries, Instant wall_now,
                          bool skip_expired) {
  keys_.clear();
  last_found_ = keys_.end();
  volatile_count_ = 0;
  const int64_t now_ms = wall_now.ms_floor();
  for (const SnapshotEntry& entry : entries) {
    if (skip_expired && logically_expired(entry.value, now_ms)) continue;
    keys_.insert_or_assign(entry.key, entry.value);
  }
  for (const auto& [key, value] : keys_) {
    if (value.expire_at_ms != no_expiry_ms) ++volatile_count_;
  }
}

void RedisEngine::flush_scripts() {
  scripts_->flush();
}

std::size_t RedisEngine::owed_script_runs() const {
  return scripts_->owed_runs();
}

std::size_t RedisEngine::script_memory_after_catch_up() {
  scripts_->catch_up();
  return scripts_->memory_bytes;
}

// Flattened: the sampling and the deletions made in place (hz times a second while keys expire).
[[gnu::flatten]] void RedisEngine::active_expire_cycle(const ExecutionContext& context, Rng& rng,
                                                       std::vector<Propagated>& propagate) {
  if (options_.replica) return;
  // Redis's slow cycle samples 20 keys with a TTL per loop and loops again while more than 10%
  // of the sample was expired; the loop bound stands in for its CPU-time limit. Sampling walks
  // the keys with a TTL in key order from a drawn starting point, so a seed fixes what is
  // deleted.
  constexpr int sample_size = 20;
  constexpr int loops_max = 16;
  const Command no_arguments;
  Call call{no_arguments, context.wall_now.ms_floor(), context.wall_now, false, false, propagate};
  const auto has_ttl = [](const Keyspace::value_type& entry) {
    return entry.second.expire_at_ms != no_expiry_ms;
  };
  for (int loop = 0; loop < loops_max && volatile_count_ != 0; ++loop) {
    const uint64_t start = rng.below(volatile_count_);
    // The start-th key with a TTL, in key order.
    auto it = std::find_if(keys_.begin(), keys_.end(), has_ttl);
    for (uint64_t skipped = 0; skipped < start; ++skipped)
      it = std::find_if(std::next(it), keys_.end(), has_ttl);
    std::vector<Keyspace::iterator> expired;  // an erasure leaves the others where they are
    const int sampled = std::min<int>(sample_size, static_cast<int>(volatile_count_));
    for (int i = 0; i < sampled; ++i) {
      if (i != 0) {  // the next key with a TTL, after the last one from the first
        it = std::find_if(std::next(it), keys_.end(), has_ttl);
        if (it == keys_.end()) it = std::find_if(keys_.begin(), keys_.end(), has_ttl);
      }
      if (logically_expired(it->second, call.now_ms)) expired.push_back(it);
    }
    for (const Keyspace::iterator& key : expired)
      delete_expired(call, key);
    if (static_cast<int>(expired.size()) * 100 <= sampled * 10) break;
  }
}

}  // namespace redlock_sim
