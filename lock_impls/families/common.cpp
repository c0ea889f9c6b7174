#include "lock_impls/families/common.hpp"

#include <array>
#include <cstring>
#include <map>
#include <span>

#include "lock_impls/port/assert.hpp"

namespace redlock_sim {

namespace {
constexpr char hex_digits[] = "0123456789abcdef";
constexpr char alnum_digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
constexpr char base64_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t b0 = bytes[i];
    const uint32_t b1 = i + 1 < bytes.size() ? bytes[i + 1] : 0;
    const uint32_t b2 = i + 2 < bytes.size() ? bytes[i + 2] : 0;
    const uint32_t word = (b0 << 16) | (b1 << 8) | b2;
    out += base64_digits[(word >> 18) & 63];
    out += base64_digits[(word >> 12) & 63];
    out += i + 1 < bytes.size() ? base64_digits[(word >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? base64_digits[word & 63] : '=';
  }
  return out;
}

// Each byte's two hex digits, for all 256 bytes.
constexpr std::array<char, 512> hex_pairs = [] {
  std::array<char, 512> pairs{};
  for (std::size_t b = 0; b < 256; ++b) {
    pairs[2 * b] = hex_digits[b >> 4];
    pairs[2 * b + 1] = hex_digits[b & 15];
  }
  return pairs;
}();

// Written into a string of the final size: a token is drawn for every acquisition, and growing
// the string a character at a time reallocated it three times. Each byte's two digits are copied
// from hex_pairs.
std::string hex(std::span<const uint8_t> bytes) {
  std::string out(bytes.size() * 2, '\0');
  char* to = out.data();
  for (const uint8_t b : bytes) {
    std::memcpy(to, &hex_pairs[2 * std::size_t{b}], 2);
    to += 2;
  }
  return out;
}

std::string uuid4(std::span<const uint8_t> raw) {
  std::array<uint8_t, 16> bytes;
  std::copy(raw.begin(), raw.end(), bytes.begin());
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  const std::string h = hex(bytes);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20, 12);
}

uint32_t rotl(uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}
}  // namespace

std::string make_token(Port& port, TokenFormat format, uint32_t size) {
  // The random bytes on the stack for the usual sizes (a uuid's 16, 16 to 22 elsewhere).
  const std::size_t count = format == TokenFormat::uuid ? 16 : size;
  std::array<uint8_t, 64> small;
  std::vector<uint8_t> large;
  std::span<uint8_t> bytes;
  if (count <= small.size()) {
    bytes = std::span<uint8_t>(small.data(), count);
  } else {
    large.resize(count);
    bytes = large;
  }
  port.random_bytes(bytes);
  switch (format) {
    case TokenFormat::hex:
      return hex(bytes);
    case TokenFormat::base64:
      return base64(bytes);
    case TokenFormat::uuid:
      return uuid4(bytes);
    case TokenFormat::alphanumeric: {
      std::string out;
      out.reserve(bytes.size());
      // 62 symbols: the modulo bias is irrelevant to a lock value, and it keeps one byte a char.
      for (uint8_t b : bytes)
        out += alnum_digits[b % 62];
      return out;
    }
  }
  return hex(bytes);
}

uint64_t draw_below_or_equal(Port& port, uint64_t bound) {
  if (bound == 0) return 0;
  return port.random_u64() % (bound + 1);
}

Duration draw_delay(Port& port, const RetryDelay& delay) {
  const int64_t jitter =
      delay.jitter_ms > 0
          ? static_cast<int64_t>(draw_below_or_equal(port, static_cast<uint64_t>(delay.jitter_ms)))
          : 0;
  const int64_t total = delay.min_ms + jitter;
  return Duration::from_ms(total < 0 ? 0 : total);
}

Duration drift_for(Duration ttl, const Drift& drift) {
  const Duration constant = Duration::from_ms(drift.constant_ms);
  switch (drift.rounding) {
    case DriftRounding::exact:
      return Duration::from_ns(ttl.ns() / 1'000'000 * drift.ppm) + constant;
    case DriftRounding::floor_ms:
      return Duration::from_ms(ttl.ms_floor() * drift.ppm / 1'000'000) + constant;
    case DriftRounding::round_ms:
      return Duration::from_ms((ttl.ms_floor() * drift.ppm + 500'000) / 1'000'000) + constant;
  }
  return constant;
}

namespace {
// The scripts are a handful of constant texts: hash each once per thread, not per call.
const std::string& cached_script_sha1(std::string_view text) {
  thread_local std::map<std::string, std::string, std::less<>> cache;
  auto it = cache.find(text);
  if (it == cache.end()) it = cache.emplace(std::string(text), script_sha1(text)).first;
  return it->second;
}
}  // namespace

// SHA-1 (FIPS 180-1), needed for EVALSHA: Redis names a cached script by it.
std::string script_sha1(std::string_view data) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string message(data);
  const uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  message += static_cast<char>(0x80);
  while (message.size() % 64 != 56)
    message += '\0';
  for (int i = 7; i >= 0; --i)
    message += static_cast<char>((bit_length >> (i * 8)) & 0xff);
  for (std::size_t chunk = 0; chunk < message.size(); chunk += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(message.data() + chunk + i * 4);
      w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 80; ++i)
      w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d), k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d, k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d, k = 0xCA62C1D6;
      }
      const uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d, d = c, c = rotl(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  std::string out;
  for (uint32_t word : h) {
    for (int i = 28; i >= 0; i -= 4)
      out += hex_digits[(word >> i) & 15];
  }
  return out;
}

Command eval_command(const Script& script, bool by_sha, const std::vector<std::string>& keys,
                     const std::vector<std::string>& args) {
  Command command;
  command.reserve(3 + keys.size() + args.size());
  command.emplace_back(by_sha ? "EVALSHA" : "EVAL");
  command.emplace_back(by_sha ? cached_script_sha1(script.text) : std::string(script.text));
  command.emplace_back(std::to_string(keys.size()));
  for (const std::string& key : keys)
    command.push_back(key);
  for (const std::string& arg : args)
    command.push_back(arg);
  return command;
}

bool is_noscript(const Outcome& outcome) {
  return outcome.kind == OutcomeKind::ok && outcome.reply.is_error() &&
         outcome.reply.text.rfind("NOSCRIPT", 0) == 0;
}

namespace {
// run_script's body and call_all's parallel round, reading the call and the nodes where the
// caller keeps them (every caller awaits it at once): its argv is built once and shared by the
// requests; by EVALSHA, the nodes that answer NOSCRIPT get EVAL.
Task<std::vector<Outcome>> run_call_on(Port& port, std::span<const NodeId> nodes, const Call& call,
                                       Duration timeout, FanOutOptions options, bool by_sha) {
  std::vector<Outcome> outcomes =
      co_await port.broadcast(call.argv(by_sha), nodes, timeout, options);
  if (!by_sha || call.script() == nullptr) co_return outcomes;
  std::vector<NodeId> again;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!is_noscript(outcomes[i])) continue;
    again.push_back(nodes[i]);
    where.push_back(i);
  }
  if (again.empty()) co_return outcomes;
  const FanOutOptions wait_for_all;
  const Command eval = eval_command(*call.script(), false, call.keys(), call.args());
  std::vector<Outcome> retried = co_await port.broadcast(eval, again, timeout, wait_for_all);
  for (std::size_t i = 0; i < where.size(); ++i)
    outcomes[where[i]] = std::move(retried[i]);
  co_return outcomes;
}

Task<Outcome> run_script_one_on(Port& port, NodeId node, const Script& script,
                                const std::vector<std::string>& keys,
                                const std::vector<std::string>& args, Duration timeout,
                                bool by_sha) {
  Outcome outcome = co_await port.send(node, eval_command(script, by_sha, keys, args), timeout);
  if (by_sha && is_noscript(outcome)) {
    outcome = co_await port.send(node, eval_command(script, false, keys, args), timeout);
  }
  co_return outcome;
}
}  // namespace

Task<std::vector<Outcome>> run_script(Port& port, std::vector<NodeId> nodes, const Script& script,
                                      std::vector<std::string> keys, std::vector<std::string> args,
                                      Duration timeout, FanOutOptions options, bool by_sha) {
  const Call call(script, std::move(keys), std::move(args));
  co_return co_await run_call_on(port, nodes, call, timeout, options, by_sha);
}

Task<Outcome> run_script_one(Port& port, NodeId node, const Script& script,
                             std::vector<std::string> keys, std::vector<std::string> args,
                             Duration timeout, bool by_sha) {
  co_return co_await run_script_one_on(port, node, script, keys, args, timeout, by_sha);
}

const Command& Call::plain() const {
  SIM_ASSERT(script_ == nullptr && argv_ != nullptr);
  return *argv_;
}

void Call::add_key(std::string key) {
  SIM_ASSERT(script_ != nullptr);  // a plain call's argv is all it has: no keys to rebuild from
  keys_.push_back(std::move(key));
  argv_.reset();  // built from the old keys
}

void Call::retoken(std::string_view token) {
  std::size_t at = token_at_;
  if (script_ != nullptr) {
    SIM_ASSERT(!args_.empty());
    args_.front() = token;
    if (argv_ == nullptr) return;
    at = 3 + keys_.size();  // EVAL(SHA), the script or its digest, the key count, the keys
    if (argv_.use_count() != 1) {
      argv_.reset();  // the requests' own: built again when next asked for
      return;
    }
  } else {
    SIM_ASSERT(argv_ != nullptr && token_at_ != 0 && token_at_ < argv_->size());
    if (argv_.use_count() != 1) argv_ = std::make_shared<Command>(*argv_);
  }
  // Held by this call alone, so no request reads it; and the write is defined because every
  // assignment to argv_ (here and in Call::argv) is a make_shared<Command>, a non-const object.
  const_cast<Command&>(*argv_)[at] = token;
}

const std::shared_ptr<const Command>& Call::argv(bool by_sha) const {
  if (script_ == nullptr) {
    SIM_ASSERT(argv_ != nullptr);
    return argv_;
  }
  if (argv_ == nullptr || argv_by_sha_ != by_sha) {
    argv_ = std::make_shared<Command>(eval_command(*script_, by_sha, keys_, args_));
    argv_by_sha_ = by_sha;
  }
  return argv_;
}

Call make_call(const Script& script, std::string key, std::vector<std::string> args) {
  std::vector<std::string> keys;
  keys.push_back(std::move(key));
  return Call(script, std::move(keys), std::move(args));
}

Call plain_call(Command command, std::size_t token_at) {
  return Call(std::move(command), token_at);
}

Task<Outcome> send_call(Port& port, NodeId node, const Call& call, Duration timeout, bool by_sha) {
  if (call.script() == nullptr) co_return co_await port.send(node, call.plain(), timeout);
  co_return co_await run_script_one_on(port, node, *call.script(), call.keys(), call.args(),
                                       timeout, by_sha);
}

namespace {
// Node ids 0..count-1 for a parallel round: a constant table up to its size (no list built per
// round).
constexpr uint32_t node_table_size = CallAllAwaitable::direct_nodes_max;
constexpr std::array<NodeId, node_table_size> node_table = [] {
  std::array<NodeId, node_table_size> table{};
  for (uint32_t n = 0; n < node_table_size; ++n)
    table[n] = n;
  return table;
}();

// call_all's rounds that need a frame of their own: more nodes than the table (their ids live in
// the frame), or one node after another.
Task<std::vector<Outcome>> call_all_in_frame(Port& port, uint32_t node_count, const Call& call,
                                             FanOut fan_out, FanOutOptions fan, Duration timeout,
                                             bool by_sha, bool abort_on_node_error) {
  if (fan_out == FanOut::parallel) {
    const std::vector<NodeId> nodes = all_nodes(node_count);
    co_return co_await run_call_on(port, nodes, call, timeout, fan, by_sha);
  }
  std::vector<Outcome> outcomes(node_count);  // nodes never tried stay `unknown`
  for (NodeId n = 0; n < node_count; ++n) {
    outcomes[n] = co_await send_call(port, n, call, timeout, by_sha);
    if (abort_on_node_error && (!outcomes[n].replied() || outcomes[n].reply.is_error())) break;
  }
  co_return outcomes;
}
}  // namespace

// Not a coroutine: a parallel round on the table's nodes is the broadcast itself when nothing
// follows it (no EVALSHA of a script, whose NOSCRIPT answers get EVAL: run_call_on's task), so
// the caller's frame is the only one.
CallAllAwaitable call_all(Port& port, uint32_t node_count, const Call& call, FanOut fan_out,
                          FanOutOptions fan, Duration timeout, bool by_sha,
                          bool abort_on_node_error) {
  if (fan_out == FanOut::parallel && node_count <= node_table_size) {
    const std::span<const NodeId> nodes(node_table.data(), node_count);
    if (!by_sha || call.script() == nullptr) {
      return CallAllAwaitable(port.broadcast(call.argv(by_sha), nodes, timeout, fan));
    }
    return CallAllAwaitable(run_call_on(port, nodes, call, timeout, fan, by_sha));
  }
  return CallAllAwaitable(call_all_in_frame(port, node_count, call, fan_out, fan, timeout, by_sha,
                                            abort_on_node_error));
}

std::vector<NodeId> all_nodes(uint32_t node_count) {
  std::vector<NodeId> nodes;
  nodes.reserve(node_count);
  for (NodeId n = 0; n < node_count; ++n)
    nodes.push_back(n);
  return nodes;
}

std::string nodes_text(uint32_t nodes, uint32_t node_count) {
  return std::to_string(nodes) + "/" + std::to_string(node_count) + " nodes";
}

std::string ms_text(Duration duration) {
  return std::to_string(Duration::floor_div(duration.ns(), 1'000'000)) + " ms";
}

}  // namespace redlock_sim
