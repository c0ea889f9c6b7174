// Unit tests of propagation's compact commands (PropagatedCommand): a compact DEL key or SET key
// value PXAT ms reads as the argv the general form holds, byte for byte, and counts the same RESP
// bytes in the replication offset; of a script's effects, made where its caller's go; and of
// active expiry walking the keys with a TTL in the keyspace itself, as a set of them would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/kernel/random.hpp"
#include "sim/redis/engine.hpp"
#include "sim/redis/text.hpp"
#include "sim/replication/wire.hpp"
#include "tests/unit/cluster_world.hpp"

namespace redlock_sim {
namespace {

constexpr int64_t base_ms = 1'767'225'600'000;

// The RESP bytes of `argv`, written out as Redis writes them.
std::string resp_of(const Command& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& word : argv)
    out += "$" + std::to_string(word.size()) + "\r\n" + word + "\r\n";
  return out;
}

TEST(PropagatedCommand, CompactFormsReadAsTheirArgv) {
  const std::string token = "89f057a7577780f4df2591972185f230e365f347";
  PropagatedCommand del = PropagatedCommand::pair("DEL", "lock");
  EXPECT_TRUE(del.compact());
  EXPECT_EQ(del, make_command("DEL", "lock"));
  EXPECT_FALSE(del.compact());  // written out when read
  for (const int64_t when :
       {int64_t{1}, int64_t{9}, int64_t{10}, base_ms, INT64_MAX, int64_t{-5}}) {
    const PropagatedCommand set = PropagatedCommand::set_pxat("lock", token, when);
    EXPECT_TRUE(set.compact());
    EXPECT_EQ(set.argv(), make_command("SET", "lock", token, "PXAT", std::to_string(when)));
  }
  // Any case and any bytes, as sent.
  EXPECT_EQ(PropagatedCommand::pair("unlink", std::string("k\0\r\n", 4)),
            make_command("unlink", std::string("k\0\r\n", 4)));
}

TEST(PropagatedCommand, WordsPastItsRoomAreHeldAsAnArgv) {
  const std::string long_key(100, 'k');
  const PropagatedCommand del = PropagatedCommand::pair("DEL", long_key);
  EXPECT_FALSE(del.compact());
  EXPECT_EQ(del, make_command("DEL", long_key));
  const PropagatedCommand set = PropagatedCommand::set_pxat("lock", long_key, 7);
  EXPECT_FALSE(set.compact());
  EXPECT_EQ(set, make_command("SET", "lock", long_key, "PXAT", "7"));
  // Exactly at the room: compact.
  EXPECT_TRUE(PropagatedCommand::pair(std::string(40, 'n'), std::string(40, 'k')).compact());
  EXPECT_FALSE(PropagatedCommand::pair(std::string(40, 'n'), std::string(41, 'k')).compact());
}

TEST(PropagatedCommand, RespLengthIsTheWrittenOutArgvsWithoutWritingItOut) {
  // Lengths either side of each digit-count boundary, and times of every digit count.
  for (const std::size_t key_size : {0u, 1u, 9u, 10u, 11u, 39u}) {
    for (const std::size_t value_size : {0u, 9u, 10u, 40u}) {
      for (const int64_t when :
           {int64_t{1}, int64_t{99}, int64_t{100}, base_ms, INT64_MAX, int64_t{-1}, INT64_MIN}) {
        const std::string key(key_size, 'k');
        const std::string value(value_size, 'v');
        const PropagatedCommand set = PropagatedCommand::set_pxat(key, value, when);
        const PropagatedCommand del = PropagatedCommand::pair("DEL", key);
        ASSERT_TRUE(set.compact() && del.compact());
        const auto set_length = static_cast<int64_t>(
            resp_of(make_command("SET", key, value, "PXAT", std::to_string(when))).size());
        EXPECT_EQ(set.resp_length(), set_length) << key_size << " " << value_size << " " << when;
        EXPECT_EQ(del.resp_length(),
                  static_cast<int64_t>(resp_of(make_command("DEL", key)).size()));
        EXPECT_TRUE(set.compact() && del.compact());  // not written out
        EXPECT_EQ(cluster_wire::resp_length(set.argv()), set_length);
      }
    }
  }
  // The general form, too, with words of every length to five digits and as many words.
  for (const std::size_t size : {0u, 9u, 10u, 99u, 100u, 999u, 1000u, 9999u, 10000u, 12345u}) {
    const Command argv = make_command("SET", "a", std::string(size, 'x'), "PX", "100");
    EXPECT_EQ(PropagatedCommand(argv).resp_length(), static_cast<int64_t>(resp_of(argv).size()));
    const Command words(size / 10 + 1, "w");
    EXPECT_EQ(PropagatedCommand(words).resp_length(), static_cast<int64_t>(resp_of(words).size()));
  }
}

TEST(PropagatedCommand, TakeMovesTheArgvOut) {
  PropagatedCommand set = PropagatedCommand::set_pxat("lock", "token", 42);
  EXPECT_EQ(std::move(set).take(), make_command("SET", "lock", "token", "PXAT", "42"));
  PropagatedCommand general(make_command("INCR", "n", "x"));
  EXPECT_EQ(std::move(general).take(), make_command("INCR", "n", "x"));
}

struct Harness {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  Reply run(int64_t now_ms, const Command& command) {
    return engine.execute(command, ExecutionContext{Instant::from_ms(now_ms)}, propagated);
  }
};

// The engine keeps lock traffic's writes compact: SET .. PX (as SET .. PXAT), a two-word DEL
// (the client's and a script's) and an expired key's DEL; what has more words, as its argv.
TEST(PropagatedCommand, TheEngineKeepsLockWritesCompact) {
  Harness h;
  ASSERT_TRUE(h.run(base_ms, make_command("set", "lock", "tok", "nx", "px", "100")).is_ok());
  ASSERT_TRUE(h.run(base_ms, make_command("del", "lock")).integer == 1);
  ASSERT_TRUE(h.run(base_ms, make_command("SET", "gone", "v", "PX", "5")).is_ok());
  ASSERT_TRUE(h.run(base_ms + 10, make_command("GET", "gone")).is_nil());
  ASSERT_TRUE(h.run(base_ms, make_command("SET", "a", "1")).is_ok());
  ASSERT_EQ(h.run(base_ms, make_command("DEL", "a", "b")).integer, 1);
  ASSERT_TRUE(h.run(base_ms, make_command("EVAL", "return redis.call('del', KEYS[1])", "1", "lock"))
                  .integer == 0);
  ASSERT_TRUE(h.run(base_ms, make_command("SET", "lock", "tok")).is_ok());
  ASSERT_EQ(h.run(base_ms, make_command("EVAL", "return redis.call('del', KEYS[1])", "1", "lock"))
                .integer,
            1);
  const std::vector<Command> expected = {
      make_command("SET", "lock", "tok", "PXAT", std::to_string(base_ms + 100)),
      make_command("del", "lock"),
      make_command("SET", "gone", "v", "PXAT", std::to_string(base_ms + 5)),
      make_command("DEL", "gone"),
      make_command("SET", "a", "1"),
      make_command("DEL", "a", "b"),
      make_command("SET", "lock", "tok"),
      make_command("del", "lock"),
  };
  const std::vector<bool> compact = {true, true, true, true, false, false, false, true};
  ASSERT_EQ(h.propagated.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(h.propagated[i].command.compact(), compact[i]) << i;
    EXPECT_EQ(h.propagated[i].command, expected[i]) << i;
    EXPECT_EQ(h.propagated[i].target, PropagationTarget::all);
  }
}

// A script's effects follow what the caller's list already holds: MULTI before the first of
// them (not before the list's start), EXEC after; redis.set_repl gives each its target, and
// REPL_NONE leaves it out.
TEST(ScriptEffects, GoAfterTheCallersWithTheirTargetsInMultiExec) {
  Harness h;
  h.propagated.push_back(Propagated{make_command("PING")});
  const char* body =
      "redis.call('set', 'a', '1'); redis.set_repl(redis.REPL_AOF); redis.call('set', 'b', '2'); "
      "redis.set_repl(redis.REPL_NONE); redis.call('set', 'c', '3'); "
      "redis.set_repl(redis.REPL_REPLICA); redis.call('del', 'a'); return 1";
  ASSERT_EQ(h.run(base_ms, make_command("EVAL", body, "0")).integer, 1);
  const std::vector<Propagated> expected = {
      Propagated{make_command("PING")},
      Propagated{make_command("MULTI")},
      Propagated{make_command("set", "a", "1")},
      Propagated{make_command("set", "b", "2"), PropagationTarget::aof},
      Propagated{make_command("del", "a"), PropagationTarget::replicas},
      Propagated{make_command("EXEC")},
  };
  EXPECT_EQ(h.propagated, expected);
  // One effect: no MULTI/EXEC; none: nothing.
  h.propagated.clear();
  ASSERT_EQ(h.run(base_ms, make_command("EVAL", "return redis.call('set', 'x', 'y')", "0")).text,
            "OK");
  ASSERT_EQ(h.run(base_ms, make_command("EVAL",
                                        "redis.set_repl(redis.REPL_NONE); "
                                        "return redis.call('set', 'x', 'z')",
                                        "0"))
                .text,
            "OK");
  ASSERT_EQ(h.propagated.size(), 1u);
  EXPECT_EQ(h.propagated[0].command, make_command("set", "x", "y"));
}

// A master without replicas moves only its offset, by the RESP bytes of what it propagates, read
// from the compact commands without writing them out.
TEST(PropagatedCommand, AMasterWithoutReplicasCountsTheirRespBytes) {
  using namespace cluster_test;
  ClusterWorld world({master_spec("M")});
  const std::string token(40, 't');
  world.send_at(0, "M",
                std::vector<Command>{make_command("SET", "lock", token, "NX", "PX", "2000"),
                                     make_command("DEL", "lock"), make_command("SET", "a", "1")});
  world.run_until(100);
  // The PXAT time has 13 digits (the node's wall clock is near the epoch it starts at).
  const int64_t expected =
      static_cast<int64_t>(
          resp_of(make_command("SET", "lock", token, "PXAT", std::string(13, '1'))).size()) +
      static_cast<int64_t>(resp_of(make_command("DEL", "lock")).size()) +
      static_cast<int64_t>(resp_of(make_command("SET", "a", "1")).size());
  EXPECT_EQ(world.node("M").replication_offset(), expected);
}

// Only what goes to replicas moves the offset: a script's writes for the AOF alone
// (redis.set_repl) do not, with the AOF off or on.
TEST(PropagatedCommand, AMasterWithoutReplicasCountsOnlyWhatGoesToReplicas) {
  using namespace cluster_test;
  for (const bool aof : {false, true}) {
    ClusterWorld world(
        {aof ? master_spec("M", cluster_test::aof(AppendFsync::always)) : master_spec("M")});
    const std::string body =
        "redis.set_repl(redis.REPL_AOF); redis.call('set', 'a', '1'); "
        "redis.set_repl(redis.REPL_REPLICA); redis.call('del', 'a'); return 1";
    world.send_at(0, "M", make_command("EVAL", body, "0"));
    world.run_until(100);
    // MULTI, DEL a and EXEC go to replicas; SET a 1 to the AOF only.
    const int64_t expected = static_cast<int64_t>(resp_of(make_command("MULTI")).size() +
                                                  resp_of(make_command("del", "a")).size() +
                                                  resp_of(make_command("EXEC")).size());
    EXPECT_EQ(world.node("M").replication_offset(), expected) << aof;
    if (aof) {
      const std::vector<Command> written = {make_command("MULTI"), make_command("set", "a", "1"),
                                            make_command("EXEC")};
      EXPECT_EQ(world.node("M").persistence().disk().aof, written);
    }
  }
}

// The keys active expiry deletes, as the engine chose them with a sorted set of the keys with a
// TTL beside the keyspace: a loop draws a start in the set, samples 20 from there on (around
// to the start of the set), deletes the expired ones and goes on while more than a tenth were.
std::vector<std::string> expired_by_a_set(const std::vector<SnapshotEntry>& keyspace,
                                          int64_t now_ms, Rng& rng) {
  std::set<std::string> with_ttl;
  std::vector<std::string> deleted;
  for (const SnapshotEntry& entry : keyspace) {
    if (entry.value.expire_at_ms != no_expiry_ms) with_ttl.insert(entry.key);
  }
  const auto expire_at = [&](const std::string& key) {
    return std::find_if(keyspace.begin(), keyspace.end(),
                        [&](const SnapshotEntry& entry) { return entry.key == key; })
        ->value.expire_at_ms;
  };
  for (int loop = 0; loop < 16 && !with_ttl.empty(); ++loop) {
    auto it = std::next(with_ttl.begin(), static_cast<std::ptrdiff_t>(rng.below(with_ttl.size())));
    std::vector<std::string> expired;
    const int sampled = std::min<int>(20, static_cast<int>(with_ttl.size()));
    for (int i = 0; i < sampled; ++i) {
      if (it == with_ttl.end()) it = with_ttl.begin();
      if (now_ms > expire_at(*it)) expired.push_back(*it);
      ++it;
    }
    for (const std::string& key : expired) {
      with_ttl.erase(key);
      deleted.push_back(key);
    }
    if (static_cast<int>(expired.size()) * 100 <= sampled * 10) break;
  }
  return deleted;
}

// Keys with and without a TTL mixed, some expired, more and fewer than a sample: the cycle
// deletes the same keys in the same order as with the set, and counts what is left.
TEST(ActiveExpiry, WalksTheKeysWithATtlInKeyOrderAsASetOfThemWould) {
  std::size_t deleted_in_all = 0;
  std::size_t cycles_past_a_loop = 0;  // more than one sample deleted (more than 20 keys seen)
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng plan(seed);
    Harness h;
    const int keys = static_cast<int>(plan.between(1, 70));
    for (int k = 0; k < keys; ++k) {
      const std::string key = "k" + std::to_string(plan.below(1000));
      switch (plan.below(4)) {
        case 0:
          h.run(base_ms, make_command("SET", key, "v"));
          break;
        case 1:  // expired at the cycle
          h.run(base_ms, make_command("SET", key, "v", "PX", std::to_string(plan.between(1, 50))));
          break;
        case 2:  // not expired at the cycle
          h.run(base_ms, make_command("SET", key, "v", "PX", "5000"));
          break;
        default:  // a TTL taken away or a key deleted
          h.run(base_ms, make_command(plan.chance(1, 2) ? "PERSIST" : "DEL", key));
          break;
      }
    }
    const std::vector<SnapshotEntry> before = h.engine.snapshot();
    const auto with_ttl = static_cast<std::size_t>(std::count_if(
        before.begin(), before.end(),
        [](const SnapshotEntry& entry) { return entry.value.expire_at_ms != no_expiry_ms; }));
    ASSERT_EQ(h.engine.keys_with_expiry(), with_ttl) << seed;
    Rng reference_rng(seed * 31);
    const std::vector<std::string> expected =
        expired_by_a_set(before, base_ms + 100, reference_rng);
    Rng rng(seed * 31);
    h.propagated.clear();
    h.engine.active_expire_cycle(ExecutionContext{Instant::from_ms(base_ms + 100)}, rng,
                                 h.propagated);
    std::vector<std::string> deleted;
    for (const Propagated& effect : h.propagated)
      deleted.push_back(effect.command[1]);
    EXPECT_EQ(deleted, expected) << seed;
    EXPECT_EQ(h.engine.keys_with_expiry(), with_ttl - expected.size()) << seed;
    deleted_in_all += deleted.size();
    cycles_past_a_loop += deleted.size() > 20 ? 1 : 0;
  }
  EXPECT_GT(deleted_in_all, 200u);
  EXPECT_GT(cycles_past_a_loop, 0u);
}

// The count of keys with a TTL follows every way a TTL comes and goes.
TEST(ActiveExpiry, CountsTheKeysWithATtlThroughEveryChange) {
  Harness h;
  const auto counted = [&] {
    std::size_t count = 0;
    for (const SnapshotEntry& entry : h.engine.snapshot())
      count += entry.value.expire_at_ms != no_expiry_ms ? 1 : 0;
    return count;
  };
  const std::vector<Command> steps = {
      make_command("SET", "a", "1", "PX", "100"),
      make_command("SET", "a", "2", "KEEPTTL"),
      make_command("SET", "a", "3"),
      make_command("EXPIRE", "a", "10"),
      make_command("PEXPIRE", "a", "20"),
      make_command("PERSIST", "a"),
      make_command("SETEX", "b", "5", "x"),
      make_command("GETEX", "b", "PERSIST"),
      make_command("GETEX", "b", "PX", "30"),
      make_command("GETDEL", "b"),
      make_command("PSETEX", "c", "40", "y"),
      make_command("INCR", "c"),
      make_command("SET", "c", "z", "EX", "1"),
      make_command("EXPIRE", "c", "-1"),
      make_command("SET", "d", "1", "PX", "1"),
      make_command("RPUSH", "l", "e"),
      make_command("PEXPIRE", "l", "100"),
      make_command("LPOP", "l"),
      make_command("HSET", "h", "f", "v"),
      make_command("PEXPIRE", "h", "100"),
      make_command("SET", "e", "1", "PX", "5"),
      make_command("FLUSHALL"),
      make_command("SET", "f", "1", "PX", "5"),
  };
  for (const Command& step : steps) {
    h.run(base_ms, step);
    EXPECT_EQ(h.engine.keys_with_expiry(), counted()) << describe(step);
  }
  // An expired key's deletion on access, and a restore.
  h.run(base_ms + 10, make_command("GET", "f"));
  EXPECT_EQ(h.engine.keys_with_expiry(), 0u);
  h.engine.restore({{"x", Value{.string = "1", .expire_at_ms = base_ms + 5}},
                    {"y", Value{.string = "2"}},
                    {"z", Value{.string = "3", .expire_at_ms = base_ms + 500}}},
                   Instant::from_ms(base_ms + 10), /*skip_expired=*/true);
  EXPECT_EQ(h.engine.keys_with_expiry(), 1u);
}

}  // namespace
}  // namespace redlock_sim
