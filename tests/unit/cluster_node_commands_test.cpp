// Unit tests of ClusterNode's own commands (ROLE, INFO replication, REPLICAOF/SLAVEOF) as it picks
// them out of the requests by the length of their name and then their letters, in any case;
// every other command, of the same lengths too, goes to the engine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/cluster_world.hpp"

namespace redlock_sim {
namespace {

using namespace cluster_test;

TEST(ClusterNodeCommands, ItsOwnInAnyCaseAndTheRestToTheEngine) {
  ClusterWorld world({master_spec("M"), master_spec("N")});
  const std::vector<Command> commands = {
      make_command("rOlE"),                       // 0: ClusterNode's ROLE
      make_command("ROLE", "x"),                  // 1: the engine's arity error
      make_command("Info", "replication"),        // 2: ClusterNode's INFO text
      make_command("PING"),                       // 3: four letters, the engine's
      make_command("ECHO", "e"),                  // 4
      make_command("rpush", "l", "a"),            // 5: five letters (r...)
      make_command("ILEN"),                       // 6: four letters (i...), unknown
      make_command("REPLICAOF", "M", "6379"),     // 7: nine letters, not a known master (itself)
      make_command("replicaof", "nowhere", "1"),  // 8
      make_command("SlaveOf", "NO", "ONE"),       // 9: seven letters, already a master
      make_command("SLAVEOF", "NO"),              // 10: its arity
      make_command("PERSIST", "l"),               // 11: seven letters, the engine's
      make_command("expireat", "l", "1"),         // 12: eight
  };
  auto answers = world.send_at(0, "M", commands);
  world.run_until(1000);
  ASSERT_EQ(answers->size(), commands.size());
  // Before any write: offset 0.
  EXPECT_EQ(describe(reply_of(answers, 0)),
            describe(Reply::array(
                {Reply::bulk("master"), Reply::integer_reply(0), Reply::array(ReplyList{})})));
  EXPECT_EQ(reply_of(answers, 1), Reply::error("ERR wrong number of arguments for 'role' command"));
  const Reply info = reply_of(answers, 2);
  EXPECT_EQ(info.type, ReplyType::bulk);
  EXPECT_NE(info.text.find("# Replication\r\nrole:master\r\n"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("master_replid:" + world.node("M").replication_id()), std::string::npos);
  EXPECT_EQ(reply_of(answers, 3), Reply::status("PONG"));
  EXPECT_EQ(reply_of(answers, 4), Reply::bulk("e"));
  EXPECT_EQ(reply_of(answers, 5), Reply::integer_reply(1));
  EXPECT_EQ(reply_of(answers, 6).type, ReplyType::error);
  EXPECT_NE(reply_of(answers, 6).text.find("unknown command 'ILEN'"), std::string::npos);
  EXPECT_EQ(reply_of(answers, 7), Reply::error("ERR Invalid master address"));
  EXPECT_EQ(reply_of(answers, 8), Reply::error("ERR Invalid master address"));
  EXPECT_EQ(reply_of(answers, 9), Reply::ok());
  EXPECT_EQ(reply_of(answers, 10),
            Reply::error("ERR wrong number of arguments for 'slaveof' command"));
  EXPECT_EQ(reply_of(answers, 11), Reply::integer_reply(0));
  EXPECT_EQ(reply_of(answers, 12), Reply::integer_reply(1));
  EXPECT_TRUE(world.node("M").is_master());
}

}  // namespace
}  // namespace redlock_sim
