#include "sim/replication/persistence.hpp"

#include "sim/redis/text.hpp"

namespace redlock_sim {

using redis_text::equals_ignore_case;

const char* stop_kind_name(StopKind kind) {
  switch (kind) {
    case StopKind::kill:
      return "kill";
    case StopKind::power_loss:
      return "power_loss";
    case StopKind::shutdown:
      return "shutdown";
  }
  return "kill";
}

void Persistence::append(const Command& command) {
  if (aof_enabled()) disk_.aof.push_back(command);
}

void Persistence::fsync_if_always() {
  if (aof_enabled() && spec_.appendfsync == AppendFsync::always) fsync();
}

void Persistence::on_whole_second(int64_t monotonic_second) {
  if (!aof_enabled()) return;
  if (spec_.appendfsync == AppendFsync::everysec) fsync();
  // Linux writes dirty pages back after about 30 s (dirty_expire_centisecs).
  if (spec_.appendfsync == AppendFsync::no && monotonic_second % 30 == 0) fsync();
}

void Persistence::rewrite_aof(std::vector<SnapshotEntry> base) {
  if (!aof_enabled()) return;
  disk_.aof_base = std::move(base);
  disk_.aof.clear();
  disk_.aof_fsynced = 0;
}

void Persistence::stop(StopKind kind, const std::vector<SnapshotEntry>& keyspace) {
  switch (kind) {
    case StopKind::kill:
      break;  // the page cache outlives the process
    case StopKind::power_loss:
      disk_.aof.resize(disk_.aof_fsynced);
      break;
    case StopKind::shutdown:
      fsync();
      if (rdb_enabled()) save_rdb(keyspace);
      break;
  }
}

LoadResult Persistence::load(RedisEngine& engine, Instant wall_now, bool master) const {
  if (aof_enabled()) {
    replay_aof(engine, disk_.aof_base, disk_.aof, wall_now);
    return {engine.key_count(), "aof"};
  }
  if (rdb_enabled() && disk_.rdb) {
    engine.restore(*disk_.rdb, wall_now, /*skip_expired=*/master);
    return {engine.key_count(), "rdb"};
  }
  engine.restore({}, wall_now, false);
  return {0, "nothing"};
}

void Persistence::replay_aof(RedisEngine& engine, const std::vector<SnapshotEntry>& base,
                             const std::vector<Command>& commands, Instant wall_now) {
  std::size_t usable = commands.size();
  // Redis refuses a truncated transaction at the end of the AOF and loads what precedes it.
  for (std::size_t i = commands.size(); i-- > 0;) {
    if (equals_ignore_case(commands[i].front(), "exec")) break;
    if (equals_ignore_case(commands[i].front(), "multi")) {
      usable = i;
      break;
    }
  }
  engine.restore(base, wall_now, false);
  const bool was_replica = engine.replica();
  engine.set_replica(true);  // verbatim: nothing expires while loading (F8)
  std::vector<Propagated> ignored;
  const ExecutionContext context{.wall_now = wall_now, .from_master = true};
  for (std::size_t i = 0; i < usable; ++i) {
    const Command& command = commands[i];
    if (equals_ignore_case(command.front(), "multi") ||
        equals_ignore_case(command.front(), "exec")) {
      continue;  // a transaction replays atomically anyway: loading is one step
    }
    engine.execute(command, context, ignored);
    ignored.clear();
  }
  engine.set_replica(was_replica);
}

}  // namespace redlock_sim
