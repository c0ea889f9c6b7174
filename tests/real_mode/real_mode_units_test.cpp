// Real-process mode's parts without redis-server: RESP framing, the clock shim in a real
// process, and the proxy fabric routing by the simulator's network rules.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "real/fabric.hpp"
#include "real/loop.hpp"
#include "real/process.hpp"
#include "real/resp.hpp"

namespace redlock_sim::real {
namespace {

// A frame is complete only when every byte of it has arrived, however it is cut.
TEST(Resp, FramesAreCompleteOnlyWhenWhole) {
  const std::string command = encode_command({"SET", "lock", "v\r\n1", "NX", "PX", "10000"});
  for (std::size_t cut = 0; cut < command.size(); ++cut)
    EXPECT_FALSE(resp_frame_length(command.substr(0, cut)).has_value()) << cut;
  EXPECT_EQ(resp_frame_length(command + "*1\r\n$4\r\nPING\r\n"), command.size());
  EXPECT_EQ(resp_command_words(command),
            (std::vector<std::string>{"SET", "lock", "v\r\n1", "NX", "PX", "10000"}));
  const std::string reply = "*3\r\n:1\r\n$-1\r\n*2\r\n+OK\r\n-ERR x\r\n";
  EXPECT_EQ(resp_frame_length(reply + ":5\r\n"), reply.size());
  EXPECT_EQ(resp_frame_length("PING\r\n"), 6u);  // an inline command
}

// Replies encode as Redis writes them.
TEST(Resp, RepliesEncodeAsRedisWritesThem) {
  EXPECT_EQ(encode_reply(Reply::ok()), "+OK\r\n");
  EXPECT_EQ(encode_reply(Reply::integer_reply(-3)), ":-3\r\n");
  EXPECT_EQ(encode_reply(Reply::error("STALE token 33 is older than 34")),
            "-STALE token 33 is older than 34\r\n");
  EXPECT_EQ(encode_reply(Reply::nil_reply()), "$-1\r\n");
  EXPECT_EQ(encode_reply(Reply::bulk("ab")), "$2\r\nab\r\n");
}

// The shim moves a real process's wall clock by the offset in its file, and only that clock.
TEST(ClockShim, ShiftsTheWallClockOfARealProcess) {
  const std::string shim = std::string(REDLOCK_BINARY_DIR) + "/libredlock-clock-shim.so";
  ASSERT_TRUE(std::filesystem::exists(shim));
  const std::string folder = std::filesystem::temp_directory_path() / "redlock-shim-test";
  std::filesystem::create_directories(folder);
  const std::string clock_file = folder + "/clock";
  {
    std::ofstream out(clock_file, std::ios::binary);
    const int64_t offset_ns = 1'000'000'000'000;  // +1000 s
    out.write(reinterpret_cast<const char*>(&offset_ns), sizeof(offset_ns));
  }
  const std::string command =
      "LD_PRELOAD=" + shim + " REDLOCK_SIM_CLOCK_FILE=" + clock_file + " date +%s; date +%s";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  long long shifted = 0, plain = 0;
  ASSERT_EQ(std::fscanf(pipe, "%lld %lld", &shifted, &plain), 2);
  ::pclose(pipe);
  std::filesystem::remove_all(folder);
  EXPECT_GE(shifted - plain, 999);
  EXPECT_LE(shifted - plain, 1001);
}

// The shim logs every successful fsync of a regular file with the size it made durable.
TEST(ClockShim, LogsWhatEachFsyncMadeDurable) {
  const std::string shim = std::string(REDLOCK_BINARY_DIR) + "/libredlock-clock-shim.so";
  const std::string folder = std::filesystem::temp_directory_path() / "redlock-fsync-test";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const std::string data = folder + "/data";
  const std::string log = folder + "/fsync.log";
  const std::string command =
      "LD_PRELOAD=" + shim + " REDLOCK_SIM_FSYNC_LOG=" + log +
      " python3 -c \"import os; f=os.open('" + data +
      "', os.O_WRONLY|os.O_CREAT); os.write(f, b'abc'); os.fsync(f); os.write(f, b'de')\"";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(log);
  uint64_t inode = 0;
  int64_t size = -1;
  ASSERT_TRUE(in >> inode >> size);
  struct stat info {};
  ASSERT_EQ(::stat(data.c_str(), &info), 0);
  EXPECT_EQ(inode, static_cast<uint64_t>(info.st_ino));
  EXPECT_EQ(size, 3);  // the two bytes written after the fsync are not in the log
  EXPECT_FALSE(in >> inode >> size);
  EXPECT_EQ(std::filesystem::file_size(data), 5u);
  std::filesystem::remove_all(folder);
}

// Sends one command to 127.0.0.1:port and waits up to `wait_ms` for a reply frame, running the
// loop meanwhile; returns the reply, or "" when none came.
std::string exchange(Loop& loop, int port, const std::vector<std::string>& argv, int wait_ms) {
  const int fd = connect_loopback(port, 500);
  EXPECT_GE(fd, 0);
  const std::string request = encode_command(argv);
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string got;
  const int64_t until = monotonic_ns() + int64_t{wait_ms} * 1'000'000;
  while (monotonic_ns() < until) {
    loop.run_once(1'000'000);
    char chunk[256];
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n > 0) got.append(chunk, static_cast<std::size_t>(n));
    if (resp_frame_length(got)) break;
  }
  ::close(fd);
  return got;
}

// The fabric routes by the simulator's rules: the link's delay, a partition drops the command,
// a held message waits until its release.
TEST(Fabric, RoutesByTheSimulatorsNetworkRules) {
  Loop loop;
  Network network(1);
  network.name_process(0, "client");
  network.name_process(1, "node");
  network.set_default_delay(DelaySpec::fixed(Duration::from_ms(20)));
  const int64_t t0 = monotonic_ns();
  network.add_hold(HoldRule{.from = 0,
                            .to = 1,
                            .command = "HOLDME",
                            .active_from = Instant::zero(),
                            .release_at = Instant::from_ms(1000)});
  Fabric fabric(loop, network, t0);
  const int port = fabric.listen_service(0, 1, [](const Command& c, ProcessId, Instant) {
    return Reply::bulk(c.empty() ? "" : c.front());
  });
  ASSERT_GT(port, 0);

  const int64_t sent = monotonic_ns();
  EXPECT_EQ(exchange(loop, port, {"PING"}, 300), "$4\r\nPING\r\n");
  const int64_t round_trip_ms = (monotonic_ns() - sent) / 1'000'000;
  EXPECT_GE(round_trip_ms, 40);  // 20 ms each way

  const int64_t held_sent_ms = (monotonic_ns() - t0) / 1'000'000;
  ASSERT_LT(held_sent_ms, 300);
  EXPECT_EQ(exchange(loop, port, {"HOLDME"}, 1500), "$6\r\nHOLDME\r\n");
  EXPECT_GE((monotonic_ns() - t0) / 1'000'000, 1000 + 20 - 2);

  // A partition drops the command: no reply ever comes.
  Network cut_network(2);
  cut_network.name_process(0, "client");
  cut_network.name_process(1, "node");
  cut_network.add_partition(PartitionRule{.side_a = {0}, .side_b = {1}});
  Fabric cut(loop, cut_network, monotonic_ns());
  const int cut_port =
      cut.listen_service(0, 1, [](const Command&, ProcessId, Instant) { return Reply::ok(); });
  EXPECT_EQ(exchange(loop, cut_port, {"PING"}, 200), "");
  EXPECT_EQ(cut.dropped(), 1u);
}

}  // namespace
}  // namespace redlock_sim::real
