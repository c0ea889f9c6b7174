// Connection and server commands: PING, ECHO, PUBLISH, DBSIZE, FLUSHALL, TIME, WAIT, ROLE,
// INFO replication, CONFIG GET/SET, and the scripting entry points.
#include <algorithm>

#include "sim/redis/engine_internal.hpp"
#include "sim/redis/scripting.hpp"

namespace redlock_sim {

using namespace redis_text;
using namespace engine_internal;

Reply RedisEngine::cmd_ping(Call& call) {
  if (call.argv.size() > 2) return error_reply(wrong_arity("ping"));
  return call.argv.size() == 1 ? Reply::status("PONG") : Reply::bulk(call.argv[1]);
}

Reply RedisEngine::cmd_echo(Call& call) {
  return Reply::bulk(call.argv[1]);
}

Reply RedisEngine::cmd_publish(Call& call) {
  // No subscribers are modelled. Redis forwards PUBLISH to replicas only, never to the AOF.
  call.propagate.push_back(Propagated{call.argv, PropagationTarget::replicas});
  return Reply::integer_reply(0);
}

Reply RedisEngine::cmd_dbsize(Call& /*call*/) {
  return Reply::integer_reply(static_cast<int64_t>(keys_.size()));
}

Reply RedisEngine::cmd_flushall(Call& call) {
  if (call.argv.size() > 2 || (call.argv.size() == 2 && !equals_ignore_case(call.argv[1], "sync") &&
                               !equals_ignore_case(call.argv[1], "async"))) {
    return error_reply(syntax_error);
  }
  keys_.clear();
  last_found_ = keys_.end();
  volatile_count_ = 0;
  emit_as_is(call);
  return Reply::ok();
}

Reply RedisEngine::cmd_time(Call& call) {
  const int64_t micros = Duration::floor_div(call.wall_now.ns(), 1000);
  const int64_t seconds = Duration::floor_div(micros, 1'000'000);
  return Reply::array({Reply::bulk(format_int64(seconds)),
                       Reply::bulk(format_int64(micros - seconds * 1'000'000))});
}

Reply RedisEngine::cmd_wait(Call& call) {
  if (options_.replica) {
    return error_reply(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to replicas "
        "are just local and are not propagated.");
  }
  int64_t replicas = 0;
  if (!parse_int64(call.argv[1], replicas)) return not_integer_reply();
  int64_t timeout_ms = 0;
  if (!parse_int64(call.argv[2], timeout_ms)) {
    return error_reply("ERR timeout is not an integer or out of range");
  }
  if (timeout_ms < 0) return error_reply("ERR timeout is negative");
  // A standalone master has no replica to count. (Real Redis blocks until the timeout when
  // asked for more than zero; the reply is the same 0.)
  return Reply::integer_reply(0);
}

Reply RedisEngine::cmd_role(Call& /*call*/) {
  if (options_.replica) {
    return Reply::array({Reply::bulk("slave"), Reply::bulk("master"), Reply::integer_reply(6379),
                         Reply::bulk("connected"), Reply::integer_reply(0)});
  }
  return Reply::array({Reply::bulk("master"), Reply::integer_reply(0), Reply::array({})});
}

Reply RedisEngine::cmd_info(Call& call) {
  bool wanted = call.argv.size() == 1;
  for (std::size_t j = 1; j < call.argv.size(); ++j) {
    for (const char* section : {"replication", "all", "default", "everything"}) {
      if (equals_ignore_case(call.argv[j], section)) wanted = true;
    }
  }
  if (!wanted) return Reply::bulk("");
  std::string text = "# Replication\r\n";
  if (options_.replica) {
    text += "role:slave\r\nmaster_host:master\r\nmaster_port:6379\r\nmaster_link_status:up\r\n";
  } else {
    text += "role:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n";
  }
  text += "master_replid:" + replication_id_ + "\r\n";
  text += "master_replid2:0000000000000000000000000000000000000000\r\n";
  text += "master_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\n";
  text += "repl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:0\r\n";
  text += "repl_backlog_histlen:0\r\n";
  return Reply::bulk(text);
}

Reply RedisEngine::cmd_config(Call& call) {
  const std::string& sub = call.argv[1];
  if (equals_ignore_case(sub, "get")) {
    if (call.argv.size() < 3) return error_reply(wrong_arity("config|get"));
    return config_get(call);
  }
  if (equals_ignore_case(sub, "set")) {
    if (call.argv.size() < 4) return error_reply(wrong_arity("config|set"));
    // Parameter-value pairs: an odd count is a syntax error (config.c, configSetCommand).
    if (call.argv.size() % 2 == 1) return error_reply("ERR syntax error");
    return config_set(call);
  }
  return error_reply("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try CONFIG HELP.");
}

Reply RedisEngine::cmd_eval(Call& call) {
  return scripts_->eval(call, false);
}
Reply RedisEngine::cmd_evalsha(Call& call) {
  return scripts_->eval(call, true);
}
Reply RedisEngine::cmd_script(Call& call) {
  return scripts_->script_command(call);
}

}  // namespace redlock_sim
