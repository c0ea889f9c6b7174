// The resource service: fencing modes and the CAS mode, and the external counter.
#include <gtest/gtest.h>

#include "sim/kernel/task_process.hpp"
#include "sim/resource/resource.hpp"

namespace redlock_sim {
namespace {

struct World {
  Simulator simulator{3};
  ResourceProcess& resource;
  TaskProcess& client = simulator.add_process<TaskProcess>("client");
  explicit World(FencingMode mode)
      : resource(simulator.add_process<ResourceProcess>(
            "resource", ResourceProcess::Options{.fencing = mode})) {
    client.set_endpoints({resource.id()});
  }
  std::vector<Reply> run(std::vector<Command> commands) {
    std::vector<Reply> replies;
    auto body = [&]() -> Task<void> {
      for (Command& command : commands) {
        Outcome outcome = co_await client.send(0, std::move(command), Duration::from_ms(50));
        replies.push_back(outcome.reply);
      }
    };
    client.spawn(body());
    simulator.run();
    return replies;
  }
};

// Fence-writes: a write with token 33 after one with 34 is refused; reads are not checked.
TEST(Resource, FenceWritesRejectsOlderTokens) {
  World world(FencingMode::fence_writes);
  auto replies = world.run({make_command("WRITE", "r", "1", "34", "GRANT", "2"),
                            make_command("WRITE", "r", "5", "33", "GRANT", "1"),
                            make_command("READ", "r"), make_command("WRITE", "r", "2", "34")});
  EXPECT_TRUE(replies[0].is_ok());
  EXPECT_TRUE(replies[1].is_error());
  EXPECT_EQ(replies[2], Reply::integer_reply(1));
  EXPECT_TRUE(replies[3].is_ok());  // the same holder may write again with its token
  EXPECT_EQ(world.resource.value("r"), 2);
  EXPECT_EQ(world.resource.rejected_count(), 1u);
  EXPECT_EQ(world.resource.log()[0].grant_id, 2u);
}

// The trailing `GRANT <id>` pair is the simulator's metadata, never the request's own words: a
// fenced write with no token before it has none (GRANT is not read as its token), a request of
// the pair alone is a bad request, and the store reads it where it lies (the request is not
// copied to cut it off).
TEST(Resource, GrantMetadataIsNotPartOfTheRequest) {
  World world(FencingMode::fence_writes);
  auto replies = world.run({make_command("WRITE", "r", "7", "GRANT", "3"),
                            make_command("GRANT", "4"), make_command("READ", "GRANT")});
  EXPECT_EQ(replies[0], Reply::error("STALE missing fencing token"));
  EXPECT_EQ(replies[1], Reply::error("ERR resource: bad request"));
  EXPECT_EQ(replies[2], Reply::integer_reply(0));  // READ of the register named "GRANT"
  ASSERT_EQ(world.resource.log().size(), 2u);
  EXPECT_EQ(world.resource.log()[0].grant_id, 3u);
  EXPECT_EQ(world.resource.log()[1].resource, "GRANT");
  EXPECT_EQ(world.resource.log()[1].grant_id, 0u);
  EXPECT_EQ(world.resource.value("r"), 0);
}

// Fence-all: a read with a newer token makes an older token's read fail as well.
TEST(Resource, FenceAllChecksReadsToo) {
  World world(FencingMode::fence_all);
  auto replies = world.run({make_command("READ", "r", "34"), make_command("READ", "r", "33")});
  EXPECT_EQ(replies[0], Reply::integer_reply(0));
  EXPECT_TRUE(replies[1].is_error());
}

// No fencing: everything is applied, last writer wins.
TEST(Resource, NoFencingAppliesEverything) {
  World world(FencingMode::none);
  world.run({make_command("WRITE", "r", "1"), make_command("WRITE", "r", "1")});
  EXPECT_EQ(world.resource.value("r"), 1);
  EXPECT_EQ(world.resource.rejected_count(), 0u);
}

// S09: compare-and-set on the random token refuses a writer that is no longer the owner.
TEST(Resource, CompareAndSetRefusesFormerOwner) {
  World world(FencingMode::compare_and_set);
  auto replies = world.run(
      {make_command("SETOWNER", "r", "tA"), make_command("SETOWNER", "r", "tB"),
       make_command("WRITEIFOWNER", "r", "tA", "1"), make_command("WRITEIFOWNER", "r", "tB", "1")});
  EXPECT_TRUE(replies[2].is_error());
  EXPECT_TRUE(replies[3].is_ok());
  EXPECT_EQ(world.resource.value("r"), 1);
}

// The external counter hands out strictly increasing tokens from its start value.
TEST(Resource, CounterServiceIncrements) {
  Simulator simulator(1);
  auto& counter = simulator.add_process<CounterService>("zk", 32);
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints({counter.id()});
  std::vector<int64_t> tokens;
  auto body = [&]() -> Task<void> {
    for (int i = 0; i < 2; ++i) {
      Outcome outcome =
          co_await client.send(0, make_command("INCR", "fence"), Duration::from_ms(50));
      tokens.push_back(outcome.reply.integer);
    }
  };
  client.spawn(body());
  simulator.run();
  EXPECT_EQ(tokens, (std::vector<int64_t>{33, 34}));
}

// The argv a client sends in each mode: the request's words, the token where the mode fences
// that operation, then `GRANT <id>`.
TEST(Resource, RequestsCarryTheirTokenOnlyWhereTheModeFencesThem) {
  ResourceRequest request{.fencing = FencingMode::none,
                          .resource = "account",
                          .owner = "tok-1",
                          .token = 34,
                          .grant_id = 7};
  using C = Command;
  EXPECT_FALSE(resource_set_owner_command(request));
  EXPECT_EQ(resource_read_command(request), (C{"READ", "account", "GRANT", "7"}));
  EXPECT_EQ(resource_write_command(request, -12), (C{"WRITE", "account", "-12", "GRANT", "7"}));
  request.fencing = FencingMode::fence_writes;
  EXPECT_EQ(resource_read_command(request), (C{"READ", "account", "GRANT", "7"}));
  EXPECT_EQ(resource_write_command(request, 5), (C{"WRITE", "account", "5", "34", "GRANT", "7"}));
  request.fencing = FencingMode::fence_all;
  EXPECT_EQ(resource_read_command(request), (C{"READ", "account", "34", "GRANT", "7"}));
  EXPECT_EQ(resource_write_command(request, 5), (C{"WRITE", "account", "5", "34", "GRANT", "7"}));
  request.token.reset();  // a lock without tokens sends none, fenced or not
  EXPECT_EQ(resource_read_command(request), (C{"READ", "account", "GRANT", "7"}));
  request.fencing = FencingMode::compare_and_set;
  request.token = 34;
  EXPECT_EQ(*resource_set_owner_command(request),
            (C{"SETOWNER", "account", "tok-1", "GRANT", "7"}));
  EXPECT_EQ(resource_read_command(request), (C{"READ", "account", "GRANT", "7"}));
  EXPECT_EQ(resource_write_command(request, 9),
            (C{"WRITEIFOWNER", "account", "tok-1", "9", "GRANT", "7"}));
}

}  // namespace
}  // namespace redlock_sim
