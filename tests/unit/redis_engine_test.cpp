// Unit tests of the Redis engine's semantics (docs/catalogue.md: F2, F3,
// F5 (replica read side), F6 and F20), its propagation rewrites, snapshots, the node and the CLI's
// `.clock-step`.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "sim/kernel/simulator.hpp"
#include "sim/redis/cli_text.hpp"
#include "sim/redis/engine.hpp"
#include "sim/redis/node.hpp"
#include "sim/redis/sha1.hpp"
#include "sim/redis/text.hpp"

namespace redlock_sim {
namespace {

constexpr int64_t base_ms = 1'767'225'600'000;

struct Harness {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  explicit Harness(EngineOptions options = {}) : engine(std::move(options)) {}
  Reply run(int64_t now_ms, const Command& command, bool from_master = false) {
    return engine.execute(command, ExecutionContext{Instant::from_ms(now_ms), from_master},
                          propagated);
  }
};

const char* release_script =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 "
    "end";

TEST(RedisText, FormatInt64WritesWhatToStringWrites) {
  // format_int64 writes digits two at a time: every digit count, both signs and both ends.
  std::vector<int64_t> values = {INT64_MIN, INT64_MIN + 1, INT64_MAX, 0, base_ms, -base_ms};
  for (int64_t power = 1; power <= 1'000'000'000'000'000'000; power *= 10) {
    for (const int64_t value : {power - 1, power, power + 1}) {
      values.push_back(value);
      values.push_back(-value);
    }
    if (power == 1'000'000'000'000'000'000) break;
  }
  for (const int64_t value : values)
    EXPECT_EQ(redis_text::format_int64(value), std::to_string(value));
}

TEST(RedisText, ParseInt64TakesWhatRedisTakesAtEveryLength) {
  // Up to 19 digits no overflow check runs; 20 digits are checked against the range.
  const auto parsed = [](std::string_view text) -> std::optional<int64_t> {
    int64_t value = 0;
    if (!redis_text::parse_int64(text, value)) return std::nullopt;
    return value;
  };
  EXPECT_EQ(parsed("0"), 0);
  EXPECT_EQ(parsed("7"), 7);
  EXPECT_EQ(parsed("-7"), -7);
  EXPECT_EQ(parsed("1767225600000"), 1'767'225'600'000);
  EXPECT_EQ(parsed("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parsed("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parsed("9999999999999999999"), std::nullopt);    // 19 digits, past INT64_MAX
  EXPECT_EQ(parsed("9223372036854775808"), std::nullopt);    // INT64_MAX + 1
  EXPECT_EQ(parsed("-9223372036854775809"), std::nullopt);   // INT64_MIN - 1
  EXPECT_EQ(parsed("-18446744073709551615"), std::nullopt);  // 20 digits, UINT64_MAX
  EXPECT_EQ(parsed("-18446744073709551616"), std::nullopt);  // 20 digits, past UINT64_MAX
  EXPECT_EQ(parsed("-99999999999999999999"), std::nullopt);
  for (const char* bad : {"", "-", "01", "-0", "+1", " 1", "1 ", "1a", "12:", "1/", "1.5",
                          "123456789012345678901", "1\xff"}) {
    EXPECT_EQ(parsed(bad), std::nullopt) << bad;
  }
  for (int64_t power = 1; power <= 1'000'000'000'000'000'000; power *= 10) {
    for (const int64_t value : {power - 1, power, power + 1, -power}) {
      EXPECT_EQ(parsed(std::to_string(value)), value);
    }
    if (power == 1'000'000'000'000'000'000) break;
  }
}

TEST(RedisEngine, SetOptionsAreReadInAnyCaseAndNearMissesAreSyntaxErrors) {
  // SET's options are classified by length and folded letters: names in mixed case are options,
  // words one letter off are not.
  Harness h;
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "a", "pX", "100", "Nx")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "b", "nX")).is_nil());
  EXPECT_EQ(h.run(base_ms, make_command("SET", "k", "c", "xX", "gEt")), Reply::bulk("a"));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "t", "a", "Px", "100")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "t", "d", "KeepTtl")).is_ok());
  EXPECT_EQ(h.run(base_ms, make_command("PTTL", "t")), Reply::integer_reply(100));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "e", "eXaT", "4102444800")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "f", "PxAt", "4102444800000")).is_ok());
  for (const char* word : {"nz", "zx", "px1", "ge", "gets", "exa", "pxa", "keepttx", "persist"}) {
    const Reply reply = h.run(base_ms, make_command("SET", "k", "v", word));
    EXPECT_TRUE(reply.is_error()) << word;
    EXPECT_EQ(reply.text, "ERR syntax error") << word;
  }
}

// Proves item 1: a key with when = W is readable at clock W and gone at W + 1.
TEST(RedisEngine, KeyReadableAtExpiryInstantAndGoneOneMillisecondLater) {
  Harness h;
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "v", "PX", "100")).is_ok());
  EXPECT_EQ(h.run(base_ms + 100, make_command("GET", "k")), Reply::bulk("v"));
  EXPECT_TRUE(h.run(base_ms + 101, make_command("GET", "k")).is_nil());
}

// Proves item 2: SET NX succeeds on a logically-expired key not yet physically deleted.
TEST(RedisEngine, SetNxSucceedsOnLogicallyExpiredKey) {
  Harness h;
  h.run(base_ms, make_command("SET", "k", "a", "PX", "10"));
  ASSERT_NE(h.engine.peek("k"), nullptr);  // still physically present
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "k", "b", "NX", "PX", "10")).is_ok());
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "k")), Reply::bulk("b"));
}

// A deleted key's node (and its entry among the keys with a TTL) is kept for the next new key
// (RedisEngine::keep_spare): what is stored there is the new key and value alone, with no TTL,
// type or element of the key before, and keys with a TTL are counted and expired as before.
TEST(RedisEngine, AKeyStoredInADeletedKeysNodeIsStoredWhole) {
  Harness h;
  const std::string token(40, 't');
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "lock:a", token, "PX", "100")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("DEL", "lock:a")).is_integer(1));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "b", "v")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("PTTL", "b")).is_integer(-1));
  EXPECT_EQ(h.engine.keys_with_expiry(), 0u);
  std::vector<SnapshotEntry> expected = {{"b", Value{.string = "v"}}};
  EXPECT_EQ(h.engine.snapshot(), expected);
  // A hash's node is not kept; a big value's neither; both go as before.
  h.run(base_ms, make_command("HSET", "h", "f", "x"));
  h.run(base_ms, make_command("DEL", "h"));
  h.run(base_ms, make_command("SET", "big", std::string(1000, 'b')));
  h.run(base_ms, make_command("DEL", "big"));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "c", "w", "PX", "50")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("DEL", "b", "c")).is_integer(2));
  EXPECT_EQ(h.engine.keys_with_expiry(), 0u);
  // Two keys with a TTL, one in the kept nodes: both counted, both expired by the cycle.
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "d", "x", "PX", "10")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "e", "y", "PX", "10")).is_ok());
  EXPECT_EQ(h.engine.keys_with_expiry(), 2u);
  expected = {{"d", Value{.string = "x", .expire_at_ms = base_ms + 10}},
              {"e", Value{.string = "y", .expire_at_ms = base_ms + 10}}};
  EXPECT_EQ(h.engine.snapshot(), expected);
  Rng rng(7);
  h.engine.active_expire_cycle(ExecutionContext{Instant::from_ms(base_ms + 11)}, rng, h.propagated);
  EXPECT_EQ(h.engine.key_count(), 0u);
  EXPECT_EQ(h.engine.keys_with_expiry(), 0u);
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "d", "z", "NX")).is_ok());
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "d")), Reply::bulk("z"));
  EXPECT_TRUE(h.run(base_ms + 11, make_command("PTTL", "d")).is_integer(-1));
}

// EVAL takes the last body's function without comparing digests only while that function was
// the last one run: after an EVALSHA of another, a body that failed to compile or a SCRIPT FLUSH,
// the body runs its own script.
TEST(RedisEngine, EvalRunsItsBodysScriptAfterOthersRan) {
  Harness h;
  const std::string a = "return 1";
  const std::string b = "return 2";
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", a, "0")).is_integer(1));
  EXPECT_EQ(h.run(base_ms, make_command("SCRIPT", "LOAD", b)), Reply::bulk(sha1_hex(b)));
  EXPECT_TRUE(h.run(base_ms, make_command("EVALSHA", sha1_hex(b), "0")).is_integer(2));
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", a, "0")).is_integer(1));
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", "return (", "0")).is_error());
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", a, "0")).is_integer(1));
  EXPECT_TRUE(h.run(base_ms, make_command("SCRIPT", "FLUSH")).is_ok());
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", a, "0")).is_integer(1));
  EXPECT_TRUE(h.run(base_ms, make_command("EVALSHA", sha1_hex(b), "0")).is_error());
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", b, "0")).is_integer(2));
  EXPECT_TRUE(h.run(base_ms, make_command("EVAL", a, "0")).is_integer(1));
}

// SET key value NX PX ms is read at once (cmd_set); in any case it is what the options' parser
// makes of it, and words one letter off, or a value that is no time, are still refused.
TEST(RedisEngine, SetNxPxInAnyCaseIsReadAsItsOptions) {
  Harness h;
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "a", "nX", "Px", "100")).is_ok());
  EXPECT_EQ(h.propagated.back().command,
            make_command("SET", "k", "a", "PXAT", std::to_string(base_ms + 100)));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "b", "NX", "PX", "100")).is_nil());
  EXPECT_EQ(h.run(base_ms, make_command("PTTL", "k")), Reply::integer_reply(100));
  EXPECT_TRUE(h.run(base_ms + 101, make_command("SET", "k", "c", "nx", "px", "5")).is_ok());
  EXPECT_EQ(h.run(base_ms + 101, make_command("GET", "k")), Reply::bulk("c"));
  for (const auto& [nx, px] : {std::pair{"nz", "px"}, {"nx", "pz"}, {"mx", "px"}, {"nx", "xx"}}) {
    const Reply reply = h.run(base_ms, make_command("SET", "k", "v", nx, px, "100"));
    EXPECT_EQ(reply, Reply::error("ERR syntax error")) << nx << " " << px;
  }
  EXPECT_EQ(h.run(base_ms, make_command("SET", "j", "v", "NX", "PX", "0")),
            Reply::error("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(h.run(base_ms, make_command("SET", "j", "v", "NX", "PX", "1x")),
            Reply::error("ERR value is not an integer or out of range"));
  EXPECT_EQ(h.run(base_ms, make_command("SET", "j", "v", "NX", "EX", "1")), Reply::ok());
  EXPECT_EQ(h.run(base_ms, make_command("PTTL", "j")), Reply::integer_reply(1000));
}

// An expiry's text is read as parse_int64 reads it, on both sides of the short digits-only form
// read in place (engine_strings.cpp): 1 and 18 digits, and 19; a leading zero, a sign, a
// non-digit at either end.
TEST(RedisEngine, ExpiryTextsAreReadAsIntegersAtTheEdgesOfTheShortForm) {
  Harness h;
  const Reply not_integer = Reply::error("ERR value is not an integer or out of range");
  const Reply invalid = Reply::error("ERR invalid expire time in 'set' command");
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "a", "v", "PX", "7")).is_ok());
  EXPECT_EQ(h.run(base_ms, make_command("PTTL", "a")), Reply::integer_reply(7));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "b", "v", "PX", "100000000000000000")).is_ok());
  EXPECT_EQ(h.run(base_ms, make_command("PTTL", "b")),
            Reply::integer_reply(100'000'000'000'000'000));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "c", "v", "PXAT", "1000000000000000000")).is_ok());
  EXPECT_EQ(h.run(base_ms, make_command("PEXPIRETIME", "c")),
            Reply::integer_reply(1'000'000'000'000'000'000));
  EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "PX", "0")), invalid);
  EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "PX", "-5")), invalid);
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "e", "v", "PX", "999999999999999999")).is_ok());
  // Past 18 digits parse_int64 reads: int64's maximum (whose sum with the time overflows), one
  // more and 2^64 (out of range); EX's largest second count and one more.
  EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "PX", "9223372036854775807")), invalid);
  EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "EX", "9223372036854776")), invalid);
  for (const char* text : {"07", "+7", "7x", "x7", "1 ", "", "12345678901234567x", "1:", "1/",
                           "9223372036854775808", "18446744073709551616"}) {
    EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "PX", text)), not_integer) << text;
    // The form lock clients send (SET key value NX PX ms) reads it the same way.
    EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "NX", "PX", text)), not_integer) << text;
  }
  EXPECT_EQ(h.run(base_ms, make_command("SET", "d", "v", "PX", std::string("1\0", 2))),
            not_integer);
  EXPECT_EQ(h.run(base_ms, make_command("EXISTS", "d")), Reply::integer_reply(0));
}

// Keys of 1 to 20 bytes that differ in one byte only (first, middle or last), each set and read
// right after another: the last entry found, the insertion place and the spare node's key are
// compared word-wise up to 16 bytes (same_key in engine.cpp), and no key is taken for another.
TEST(RedisEngine, KeysOneByteApartAreDifferentKeysAtEveryLength) {
  Harness h;
  for (std::size_t size = 1; size <= 20; ++size) {
    const std::string base(size, 'k');
    for (const std::size_t at : {std::size_t{0}, size / 2, size - 1}) {
      std::string other = base;
      other[at] = 'j';
      EXPECT_TRUE(h.run(base_ms, make_command("SET", base, "b")).is_ok());
      EXPECT_TRUE(h.run(base_ms, make_command("SET", other, "o", "NX")).is_ok()) << size << at;
      EXPECT_EQ(h.run(base_ms, make_command("GET", base)), Reply::bulk("b")) << size << at;
      EXPECT_EQ(h.run(base_ms, make_command("GET", other)), Reply::bulk("o")) << size << at;
      // base deleted first: the spare node then holds `other`, one byte apart from the base set
      // next (same_key on the spare node's key).
      EXPECT_EQ(h.run(base_ms, make_command("DEL", base)), Reply::integer_reply(1));
      EXPECT_TRUE(h.run(base_ms, make_command("GET", base)).is_nil()) << size << at;
      EXPECT_EQ(h.run(base_ms, make_command("DEL", other)), Reply::integer_reply(1));
      EXPECT_TRUE(h.run(base_ms, make_command("GET", other)).is_nil()) << size << at;
      EXPECT_TRUE(h.run(base_ms, make_command("SET", base, "b")).is_ok());
      EXPECT_TRUE(h.run(base_ms, make_command("GET", other)).is_nil()) << size << at;
      EXPECT_EQ(h.run(base_ms, make_command("DEL", base)), Reply::integer_reply(1));
    }
  }
  EXPECT_EQ(h.run(base_ms, make_command("DBSIZE")), Reply::integer_reply(0));
}

// A body's digest is remembered on the thread (body_sha1_hex in scripting.cpp), across engines
// and past the 64 bodies at which that memory is emptied: each body is still cached under its
// own SHA-1.
TEST(RedisEngine, EveryEngineCachesABodyUnderItsOwnDigest) {
  for (int engine = 0; engine < 2; ++engine) {
    Harness h;
    for (int i = 0; i < 70; ++i) {
      const std::string body = "return " + std::to_string(i);
      EXPECT_TRUE(h.run(base_ms, make_command("EVAL", body, "0")).is_integer(i)) << body;
      EXPECT_TRUE(h.run(base_ms, make_command("EVALSHA", sha1_hex(body), "0")).is_integer(i));
    }
  }
}

// The entry found last is compared before the tree is searched (RedisEngine::last_found_): a key
// deleted, expired, flushed or restored away is not found through it, and a key stored again
// is found with its new value.
TEST(RedisEngine, TheKeyFoundLastIsForgottenWhenItGoes) {
  Harness h;
  h.run(base_ms, make_command("SET", "k", "a"));
  EXPECT_EQ(h.run(base_ms, make_command("GET", "k")), Reply::bulk("a"));
  EXPECT_TRUE(h.run(base_ms, make_command("DEL", "k")).is_integer(1));
  EXPECT_TRUE(h.run(base_ms, make_command("GET", "k")).is_nil());
  EXPECT_TRUE(h.run(base_ms, make_command("DEL", "k")).is_integer(0));
  EXPECT_TRUE(h.run(base_ms, make_command("SET", "k", "b", "NX", "PX", "10")).is_ok());
  EXPECT_EQ(h.run(base_ms, make_command("GET", "k")), Reply::bulk("b"));
  EXPECT_TRUE(h.run(base_ms + 11, make_command("GET", "k")).is_nil());  // expired, deleted
  EXPECT_EQ(h.engine.key_count(), 0u);
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "k", "c", "NX")).is_ok());
  h.run(base_ms + 11, make_command("SET", "j", "d"));
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "k")), Reply::bulk("c"));
  EXPECT_TRUE(h.run(base_ms + 11, make_command("FLUSHALL")).is_ok());
  EXPECT_TRUE(h.run(base_ms + 11, make_command("GET", "k")).is_nil());
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "k", "e", "NX")).is_ok());
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "k")), Reply::bulk("e"));
  h.engine.restore({{"j", Value{.string = "f"}}}, Instant::from_ms(base_ms + 11), true);
  EXPECT_TRUE(h.run(base_ms + 11, make_command("GET", "k")).is_nil());
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "k", "g", "NX")).is_ok());
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "j")), Reply::bulk("f"));
  h.run(base_ms + 11, make_command("LPUSH", "l", "x"));
  EXPECT_EQ(h.run(base_ms + 11, make_command("LPOP", "l")), Reply::bulk("x"));  // l emptied
  EXPECT_TRUE(h.run(base_ms + 11, make_command("SET", "l", "h", "NX")).is_ok());
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "l")), Reply::bulk("h"));
  EXPECT_EQ(h.run(base_ms + 11, make_command("GET", "k")), Reply::bulk("g"));
  EXPECT_EQ(h.engine.key_count(), 3u);
}

// Proves item 3: active expiry and passive access give the same observable lock behaviour.
TEST(RedisEngine, ActiveAndPassiveExpiryLookTheSame) {
  Harness passive;
  Harness active;
  for (Harness* h : {&passive, &active})
    h->run(base_ms, make_command("SET", "l", "a", "PX", "5"));
  Rng rng(7);
  active.engine.active_expire_cycle(ExecutionContext{Instant::from_ms(base_ms + 6)}, rng,
                                    active.propagated);
  EXPECT_EQ(active.engine.peek("l"), nullptr);
  EXPECT_NE(passive.engine.peek("l"), nullptr);
  for (Harness* h : {&passive, &active}) {
    EXPECT_TRUE(h->run(base_ms + 6, make_command("SET", "l", "b", "NX", "PX", "5")).is_ok());
    EXPECT_EQ(h->propagated.back().command,
              make_command("SET", "l", "b", "PXAT", std::to_string(base_ms + 11)));
  }
  // Both emitted exactly one DEL for the expiry.
  for (Harness* h : {&passive, &active}) {
    EXPECT_EQ(h->propagated[1].command, make_command("DEL", "l"));
  }
}

// Proves the active cycle deletes nothing that is live and is reproducible from its seed.
TEST(RedisEngine, ActiveExpireCycleIsDeterministic) {
  const auto survivors = [](uint64_t seed) {
    Harness h;
    for (int i = 0; i < 200; ++i) {
      const std::string ttl = std::to_string(i % 2 == 0 ? 5 : 100000);
      h.run(base_ms, make_command("SET", "k" + std::to_string(i), "v", "PX", ttl));
    }
    Rng rng(seed);
    h.engine.active_expire_cycle(ExecutionContext{Instant::from_ms(base_ms + 10)}, rng,
                                 h.propagated);
    return h.engine.snapshot();
  };
  const auto first = survivors(3);
  EXPECT_EQ(first, survivors(3));
  EXPECT_GE(first.size(), 100u);
}

// Proves item 4 (read side): a replica keeps an expired key but its reads say it is missing,
// and it deletes it only when the master's DEL arrives.
TEST(RedisEngine, ReplicaReadsExpiredKeyAsMissingButKeepsIt) {
  Harness replica(EngineOptions{.replica = true});
  replica.run(base_ms, make_command("SET", "k", "v", "PXAT", std::to_string(base_ms + 10)), true);
  EXPECT_EQ(replica.run(base_ms + 10, make_command("GET", "k")), Reply::bulk("v"));
  EXPECT_TRUE(replica.run(base_ms + 11, make_command("GET", "k")).is_nil());
  EXPECT_TRUE(replica.run(base_ms + 11, make_command("EXISTS", "k")).is_integer(0));
  Rng rng(1);
  replica.propagated.clear();
  replica.engine.active_expire_cycle(ExecutionContext{Instant::from_ms(base_ms + 50)}, rng,
                                     replica.propagated);
  EXPECT_NE(replica.engine.peek("k"), nullptr);
  EXPECT_TRUE(replica.propagated.empty());
  EXPECT_TRUE(replica.run(base_ms + 50, make_command("DEL", "k"), true).is_integer(1));
  EXPECT_EQ(replica.engine.peek("k"), nullptr);
  EXPECT_EQ(replica.run(base_ms, make_command("SET", "x", "1")).text,
            "READONLY You can't write against a read only replica.");
}

// Proves item 7: time is frozen inside a script, so compare-and-delete is atomic with expiry.
TEST(RedisEngine, TimeIsFrozenInsideAScript) {
  Harness h;
  h.run(base_ms, make_command("SET", "lock", "me", "PX", "100"));
  // At exactly `when` the key is live for the whole script: GET sees it and DEL deletes it.
  EXPECT_TRUE(
      h.run(base_ms + 100, make_command("EVAL", release_script, "1", "lock", "me")).is_integer(1));
  h.run(base_ms, make_command("SET", "lock", "me", "PX", "100"));
  EXPECT_TRUE(
      h.run(base_ms + 101, make_command("EVAL", release_script, "1", "lock", "me")).is_integer(0));
  const Reply times = h.run(base_ms, make_command("EVAL",
                                                  "local a = redis.call('TIME') "
                                                  "local b = redis.call('TIME') "
                                                  "return a[2] == b[2] and a[1] == b[1]",
                                                  "0"));
  EXPECT_TRUE(times.is_integer(1));
}

// Proves item 14: EXPIRE with a non-positive TTL deletes the key and propagates DEL.
TEST(RedisEngine, NonPositiveExpireDeletesTheKey) {
  Harness h;
  for (const char* ttl : {"0", "-5"}) {
    h.run(base_ms, make_command("SET", "k", "v"));
    h.propagated.clear();
    EXPECT_TRUE(h.run(base_ms, make_command("EXPIRE", "k", ttl)).is_integer(1));
    EXPECT_EQ(h.engine.peek("k"), nullptr);
    ASSERT_EQ(h.propagated.size(), 1u);
    EXPECT_EQ(h.propagated[0].command, make_command("DEL", "k"));
  }
}

// Proves writes propagate as Redis 7.0 rewrites them (absolute TTLs, DEL, PERSIST, MULTI/EXEC).
TEST(RedisEngine, PropagationRewritesLikeRedis70) {
  Harness h;
  const std::string when = std::to_string(base_ms + 5000);
  h.run(base_ms, make_command("SET", "a", "v", "NX", "EX", "5"));
  h.run(base_ms, make_command("PEXPIRE", "a", "5000", "XX"));
  h.run(base_ms, make_command("GETEX", "a", "PERSIST"));
  h.run(base_ms, make_command("SET", "a", "w", "GET"));
  h.run(base_ms, make_command("GETDEL", "a"));
  h.run(base_ms, make_command("EVAL",
                              "redis.call('set', KEYS[1], 'x', 'px', 5000) "
                              "redis.call('incr', KEYS[2]) return 1",
                              "2", "s", "n"));
  const std::vector<Command> expected = {make_command("SET", "a", "v", "PXAT", when),
                                         make_command("PEXPIREAT", "a", when, "XX"),
                                         make_command("PERSIST", "a"),
                                         make_command("SET", "a", "w"),
                                         make_command("DEL", "a"),
                                         make_command("MULTI"),
                                         make_command("SET", "s", "x", "PXAT", when),
                                         make_command("incr", "n"),
                                         make_command("EXEC")};
  ASSERT_EQ(h.propagated.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(h.propagated[i].command, expected[i]);
}

// Proves version 6.2 sends relative TTLs to replicas and absolute ones to the AOF.
TEST(RedisEngine, Version62PropagatesRelativeTtlToReplicas) {
  Harness h(EngineOptions{.version = "6.2"});
  h.run(base_ms, make_command("SET", "a", "v", "PX", "100"));
  ASSERT_EQ(h.propagated.size(), 2u);
  EXPECT_EQ(h.propagated[0].command, make_command("SET", "a", "v", "PX", "100"));
  EXPECT_EQ(h.propagated[0].target, PropagationTarget::replicas);
  EXPECT_EQ(h.propagated[1].command,
            make_command("SET", "a", "v", "PXAT", std::to_string(base_ms + 100)));
  EXPECT_EQ(h.propagated[1].target, PropagationTarget::aof);
}

// Proves a snapshot restored on a master skips expired keys and keeps them on a replica.
TEST(RedisEngine, RestoreSkipsExpiredKeysOnlyWhenAsked) {
  Harness h;
  h.run(base_ms, make_command("SET", "short", "v", "PX", "10"));
  h.run(base_ms, make_command("SET", "long", "v", "PX", "100000"));
  h.run(base_ms, make_command("HSET", "h", "f", "1"));
  const auto snapshot = h.engine.snapshot();
  ASSERT_EQ(snapshot.size(), 3u);
  EXPECT_EQ(snapshot[0].key, "h");
  RedisEngine master;
  master.restore(snapshot, Instant::from_ms(base_ms + 20), true);
  EXPECT_EQ(master.key_count(), 2u);
  RedisEngine replica(EngineOptions{.replica = true});
  replica.restore(snapshot, Instant::from_ms(base_ms + 20), false);
  EXPECT_EQ(replica.key_count(), 3u);
  EXPECT_EQ(replica.keys_with_expiry(), 2u);
}

// Command names are found in any case, and only when every byte matches: the lookup folds case
// with a bit (OR 0x20), which must not make a non-letter byte match a letter.
TEST(RedisEngine, FindCommandFoldsCaseOfLettersOnly) {
  const RedisEngine::CommandSpec* evalsha = RedisEngine::find_command("evalsha");
  ASSERT_NE(evalsha, nullptr);
  EXPECT_EQ(RedisEngine::find_command("EVALSHA"), evalsha);
  EXPECT_EQ(RedisEngine::find_command("EvalSha"), evalsha);
  ASSERT_NE(RedisEngine::find_command("pexpiretime"), nullptr);
  EXPECT_EQ(RedisEngine::find_command("PEXPIRETIME"), RedisEngine::find_command("pexpiretime"));
  EXPECT_STREQ(RedisEngine::find_command("GET")->name, "get");
  // '@' | 0x20 is '`', '[' | 0x20 is '{', 0xC7 | 0x20 is 0xE7: none becomes a letter.
  for (const std::string& name : std::vector<std::string>{
           "evalsh@", "evalsh[", "g\xc7t", "ge", "gett", "get ", std::string("get\0", 4),
           std::string("\0et", 3), "", "@et", "0et", "pexpiretimes", "xpexpiretime"}) {
    EXPECT_EQ(RedisEngine::find_command(name), nullptr) << name;
  }
}

// redis.call's arguments pass through a buffer the runner keeps: a call with fewer arguments, or
// shorter ones, after a longer call sees only its own (a big value is not kept either).
TEST(RedisEngine, ScriptCallsSeeOnlyTheirOwnArguments) {
  Harness h;
  const Reply reply = h.run(
      base_ms, make_command("EVAL",
                            "redis.call('set', 'big', string.rep('x', 10000), 'PX', '100000')\n"
                            "redis.call('set', 'small', 'y')\n"
                            "return {redis.call('get', 'small'), #redis.call('get', 'big'),"
                            " redis.call('pttl', 'small')}",
                            "0"));
  ASSERT_EQ(reply.type, ReplyType::array) << reply.text;
  EXPECT_EQ(reply.elements[0], Reply::bulk("y"));
  EXPECT_EQ(reply.elements[1], Reply::integer_reply(10000));
  EXPECT_EQ(reply.elements[2], Reply::integer_reply(-1));  // the second SET had no PX
}

// Proves the SHA-1 and the script cache: EVALSHA after EVAL, NOSCRIPT after SCRIPT FLUSH.
TEST(RedisEngine, ScriptCacheBySha1) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex(std::string(1000, 'a')), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
  Harness h;
  const std::string sha = sha1_hex("return 42");
  EXPECT_EQ(h.run(base_ms, make_command("SCRIPT", "LOAD", "return 42")), Reply::bulk(sha));
  EXPECT_TRUE(h.run(base_ms, make_command("EVALSHA", sha, "0")).is_integer(42));
  // A digest in capitals names the same script, as in Redis (the engine lowers it).
  std::string upper = sha;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(h.run(base_ms, make_command("EVALSHA", upper, "0")).is_integer(42));
  h.run(base_ms, make_command("SCRIPT", "FLUSH"));
  EXPECT_EQ(h.run(base_ms, make_command("EVALSHA", sha, "0")).text,
            "NOSCRIPT No matching script. Please use EVAL.");
}

// Proves INFO replication and ROLE describe a standalone master or a replica.
TEST(RedisEngine, RoleAndInfoReplication) {
  Harness master;
  EXPECT_EQ(master.run(base_ms, make_command("ROLE")).elements[0], Reply::bulk("master"));
  EXPECT_NE(master.run(base_ms, make_command("INFO", "replication")).text.find("role:master"),
            std::string::npos);
  Harness replica(EngineOptions{.replica = true});
  EXPECT_EQ(replica.run(base_ms, make_command("ROLE")).elements[0], Reply::bulk("slave"));
  EXPECT_TRUE(replica.run(base_ms, make_command("WAIT", "0", "0")).is_error());
}

// Proves a RedisNode runs commands on its own wall clock: a clock step expires a lock early.
TEST(RedisNode, WallClockStepExpiresKeys) {
  Simulator simulator(1);
  RedisNode& node = simulator.add_process<RedisNode>("n1");
  std::vector<Command> sunk;
  node.set_propagation_sink([&](RedisNode&, std::vector<Propagated>& effects) {
    for (const auto& effect : effects)
      sunk.push_back(effect.command);
  });
  EXPECT_TRUE(node.execute(make_command("SET", "lock", "a", "NX", "PX", "10000")).is_ok());
  simulator.step_wall_clock(node.id(), Duration::from_ms(10001));
  EXPECT_TRUE(node.execute(make_command("SET", "lock", "b", "NX", "PX", "10000")).is_ok());
  ASSERT_EQ(sunk.size(), 3u);
  EXPECT_EQ(sunk[1], make_command("DEL", "lock"));
  // The active-expire timer runs while volatile keys exist, then the world goes idle.
  simulator.run(simulator.now() + Duration::from_s(11));
  EXPECT_EQ(node.engine().key_count(), 0u);
  EXPECT_EQ(simulator.run().stop, RunStop::idle);
}

// Proves a crash without persistence empties the node, scripts included.
TEST(RedisNode, CrashLosesKeysAndScripts) {
  Simulator simulator(1);
  RedisNode& node = simulator.add_process<RedisNode>("n1");
  node.execute(make_command("SET", "k", "v"));
  node.execute(make_command("SCRIPT", "LOAD", "return 1"));
  simulator.crash(node.id());
  simulator.restart(node.id());
  EXPECT_TRUE(node.execute(make_command("GET", "k")).is_nil());
  EXPECT_TRUE(node.execute(make_command("EVALSHA", sha1_hex("return 1"), "0")).is_error());
}

std::string run_cli(const std::string& input) {
  const std::string path = ::testing::TempDir() + "/redis_cli_input.txt";
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(input.c_str(), file);
  std::fclose(file);
  std::string output;
  FILE* pipe =
      popen((std::string(REDLOCK_BINARY_DIR) + "/redlock-sim redis < " + path).c_str(), "r");
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    output.append(buffer, n);
  pclose(pipe);
  return output;
}

// Proves `.clock-step` moves the node's wall clock both ways, and `.advance` moves time.
TEST(RedisCli, ClockStepAndAdvance) {
  const std::string output = run_cli(
      "set k v PX 1000\n.clock-step 999\npttl k\n.clock-step 2\nget k\n"
      "set j v PX 1000\n.clock-step -5000\npttl j\n.advance 2000\npttl j\n"
      "time\n# a comment\n\nset t v EXAT 1767225601\n.clock-step 5000\nttl t\n");
  EXPECT_EQ(output,
            "OK\n(integer) 1\n(nil)\nOK\n(integer) 6000\n(integer) 4000\n"
            "1) \"1767225598\"\n2) \"1000\"\nOK\n(integer) -2\n");
}

// Proves the CLI's epoch flag and its bad-flag exit code.
TEST(RedisCli, EpochFlagAndBadFlags) {
  const std::string path = ::testing::TempDir() + "/empty.txt";
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs("time\n", file);
  std::fclose(file);
  const std::string binary = std::string(REDLOCK_BINARY_DIR) + "/redlock-sim redis";
  FILE* pipe = popen((binary + " --epoch-ms 1000500 < " + path).c_str(), "r");
  char buffer[256] = {};
  const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, pipe);
  pclose(pipe);
  EXPECT_EQ(std::string(buffer, n), "1) \"1000\"\n2) \"500000\"\n");
  const int status = std::system((binary + " --nonsense < " + path + " 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

// Proves redis-cli's argument splitting and reply formatting rules.
TEST(RedisCliText, SplitAndFormat) {
  const auto args = cli_text::split_arguments(R"(set "a b\x41\n" 'it\'s' x)");
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(*args, (std::vector<std::string>{"set", "a bA\n", "it's", "x"}));
  EXPECT_FALSE(cli_text::split_arguments("\"open").has_value());
  EXPECT_FALSE(cli_text::split_arguments("\"a\"b").has_value());
  ReplyList items;
  for (int i = 0; i < 10; ++i)
    items.push_back(Reply::integer_reply(i));
  items.push_back(Reply::array({Reply::bulk("x"), Reply::array({})}));
  EXPECT_EQ(cli_text::format_reply(Reply::array(items)).substr(0, 14), " 1) (integer) ");
  EXPECT_NE(cli_text::format_reply(Reply::array(items)).find("11) 1) \"x\"\n    2) (empty array)"),
            std::string::npos);
  EXPECT_EQ(cli_text::quote("\x01\"\\"), "\"\\x01\\\"\\\\\"");
}

// A raw NUL byte ends the line as it ends redis-cli's C string (found by fuzz_redis_lines: an
// unquoted NUL made the splitter push empty arguments until memory ran out).
TEST(RedisCliText, NulByteEndsTheLine) {
  using namespace std::string_literals;
  EXPECT_EQ(cli_text::split_arguments("getex g PXAT \0 9"s),
            (std::vector<std::string>{"getex", "g", "PXAT"}));
  EXPECT_EQ(cli_text::split_arguments("get a\0b"s), (std::vector<std::string>{"get", "a"}));
  EXPECT_FALSE(cli_text::split_arguments("get \"a\0\""s).has_value());  // unbalanced quotes
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// CONFIG GET's patterns: '*' and '?' as Redis's stringmatch, case-insensitive, in time
// proportional to pattern x name (the recursive form took minutes on this fuzzer-found input).
TEST(RedisEngine, ConfigGetPatternsMatchWithoutBacktrackingBlowUp) {
  Harness h;
  const Reply hz = h.run(base_ms, make_command("CONFIG", "GET", "h?"));
  ASSERT_EQ(hz.type, ReplyType::array);
  ASSERT_EQ(hz.elements.size(), 2u);
  EXPECT_EQ(hz.elements[0], Reply::bulk("hz"));
  const Reply hostile = h.run(
      base_ms, make_command("CONFIG", "GET", "min-repset g ***************************, GETDEL"));
  ASSERT_EQ(hostile.type, ReplyType::array);
  EXPECT_TRUE(hostile.elements.empty());
  const Reply stars =
      h.run(base_ms, make_command("CONFIG", "GET", "****************************#"));
  ASSERT_EQ(stars.type, ReplyType::array);
  EXPECT_TRUE(stars.elements.empty());
}

}  // namespace
}  // namespace redlock_sim
