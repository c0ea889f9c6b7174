// How replication data travels in simulated messages: command batches and keyspace snapshots
// flattened into one argv (a Command), plus the RESP length Redis counts replication offsets in.
//
// A message is a Command, so the stream and a full-resync payload are flattened into strings:
//   commands: <count> then, per command, <argc> <arg>...
//   snapshot: <count> then, per key, <key> <type s|h|l> <expire_at_ms> <n> <payload>...
// The encoding is private to sim/cluster: only ClusterNode writes and reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/redis/engine.hpp"

namespace redlock_sim::cluster_wire {

// The bytes a command takes in the replication stream, RESP-encoded as Redis sends it
// (`*<argc>\r\n` then `$<len>\r\n<arg>\r\n` per argument): what replication offsets count.
int64_t resp_length(const Command& command);

void append_int(Command& out, int64_t value);
void append_commands(Command& out, const std::vector<Command>& commands);
void append_snapshot(Command& out, const std::vector<SnapshotEntry>& entries);

// A cursor over an encoded message; every read checks bounds and reports malformed input as
// nullopt (messages are produced by ClusterNode only, so this is a programmer error guard).
class Reader {
 public:
  Reader(const Command& message, std::size_t position) : message_(message), position_(position) {}
  std::optional<int64_t> read_int();
  std::optional<std::string> read_string();
  std::optional<std::vector<Command>> read_commands();
  std::optional<std::vector<SnapshotEntry>> read_snapshot();

 private:
  const Command& message_;
  std::size_t position_;
};

}  // namespace redlock_sim::cluster_wire
