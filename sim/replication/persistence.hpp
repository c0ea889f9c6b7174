// The files a Redis node keeps on disk (AOF and RDB) and what each kind of stop leaves of them.
//
// The model (docs/cluster-model.md):
// - AOF: every propagated write is appended to the file at once (Redis writes in beforeSleep,
//   before replies go out), so it sits in the OS page cache: a kill -9 keeps it. What survives
//   a power loss is the prefix that was fsynced: `always` fsyncs before the reply, `everysec` at
//   every whole second of the node's monotonic clock, `no` when the OS flushes (every 30 s).
// - RDB: a snapshot every interval; a completed snapshot is durable (Redis fsyncs it and renames
//   it into place), so every kind of stop keeps the last one.
// - A full resync rewrites a replica's AOF from the received data (the rewrite's base is durable).
// - Loading replays the AOF if AOF is on, else the RDB; nothing expires while loading; a master
//   skips keys already expired in an RDB (F8); a trailing MULTI without EXEC is discarded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/redis/engine.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// StopKind (how a process stops) is in the scenario model.
const char* stop_kind_name(StopKind kind);

struct DiskState {
  std::vector<SnapshotEntry> aof_base;            // the AOF's base (a rewrite's preamble); durable
  std::vector<Command> aof;                       // commands written after the base (page cache)
  std::size_t aof_fsynced = 0;                    // how many of them reached the disk
  std::optional<std::vector<SnapshotEntry>> rdb;  // the last completed snapshot
};

struct LoadResult {
  std::size_t keys = 0;
  std::string source;  // "aof", "rdb" or "nothing"
};

class Persistence {
 public:
  explicit Persistence(PersistenceSpec spec) : spec_(spec) {}

  const PersistenceSpec& spec() const { return spec_; }
  bool aof_enabled() const { return spec_.mode == PersistenceMode::aof; }
  bool rdb_enabled() const { return spec_.mode == PersistenceMode::rdb; }
  const DiskState& disk() const { return disk_; }
  DiskState& disk() { return disk_; }

  // A write reached the AOF file (no-op without AOF). Call fsync_if_always() after each batch.
  void append(const Command& command);
  void fsync_if_always();
  void fsync() { disk_.aof_fsynced = disk_.aof.size(); }
  // The once-a-second cron: `everysec` fsyncs at every whole second, `no` every 30 s (the OS).
  void on_whole_second(int64_t monotonic_second);
  void save_rdb(std::vector<SnapshotEntry> snapshot) { disk_.rdb = std::move(snapshot); }
  // After a full resync a replica's AOF is rewritten from the received data.
  void rewrite_aof(std::vector<SnapshotEntry> base);
  // What a stop of this kind leaves on disk; `keyspace` is the live data (for a shutdown save).
  void stop(StopKind kind, const std::vector<SnapshotEntry>& keyspace);
  // Loads what the disk holds into `engine` at `wall_now` (a master skips expired RDB keys).
  LoadResult load(RedisEngine& engine, Instant wall_now, bool master) const;

  // Replays AOF commands verbatim with nothing expiring (the engine in replica mode, commands
  // as from a master), after dropping a trailing MULTI block that has no EXEC.
  static void replay_aof(RedisEngine& engine, const std::vector<SnapshotEntry>& base,
                         const std::vector<Command>& commands, Instant wall_now);

 private:
  PersistenceSpec spec_;
  DiskState disk_;
};

}  // namespace redlock_sim
