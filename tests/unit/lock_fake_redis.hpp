// A small stand-in for the simulated Redis node, for the lock-client tests until sim/redis's
// RedisNode is committed: strings, hashes, lists, expiry on the node's wall clock (live while
// now <= when), the handful of commands the lock clients send, and EVAL/EVALSHA running the
// clients' own Lua scripts in a real Lua 5.1 with redis.call / redis.pcall.
#pragma once

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <map>
#include <string>
#include <vector>

#include "lock_impls/families/common.hpp"
#include "sim/kernel/server_process.hpp"

namespace redlock_sim::testing {

class FakeRedis : public ServerProcess {
 public:
  struct Entry {
    std::string value;
    std::map<std::string, std::string> hash;
    std::vector<std::string> list;
    char type = 's';            // 's' string, 'h' hash, 'l' list
    int64_t expire_at_ms = -1;  // absolute wall ms, -1: none
  };

  FakeRedis(Simulator& simulator, ProcessId id, std::string name)
      : ServerProcess(simulator, id, std::move(name)) {}

  int64_t wait_acks = 0;  // what WAIT answers (replicas are not modelled here)
  uint64_t commands_seen = 0;
  std::vector<Command> log;

  // Keys as the node sees them now (expired ones read as missing).
  bool has(const std::string& key) { return live(key) != nullptr; }
  std::string get(const std::string& key) {
    Entry* e = live(key);
    return e ? e->value : std::string();
  }
  int64_t pttl(const std::string& key) {
    Entry* e = live(key);
    if (!e) return -2;
    return e->expire_at_ms < 0 ? -1 : e->expire_at_ms - now_ms();
  }
  void flush() {
    data_.clear();
    scripts_.clear();
  }
  void set_raw(const std::string& key, const std::string& value, int64_t ttl_ms) {
    Entry e;
    e.value = value;
    e.expire_at_ms = ttl_ms < 0 ? -1 : now_ms() + ttl_ms;
    data_[key] = e;
  }
  Reply execute(const Command& c);

 protected:
  Reply handle(const Message& request) override {
    ++commands_seen;
    log.push_back(request.command);
    return execute(request.command);
  }

 private:
  int64_t now_ms() { return wall_now().ms_floor(); }
  Entry* live(const std::string& key) {
    auto it = data_.find(key);
    if (it == data_.end()) return nullptr;
    if (it->second.expire_at_ms >= 0 && now_ms() > it->second.expire_at_ms) {
      data_.erase(it);
      return nullptr;
    }
    return &it->second;
  }
  Reply eval(const std::string& body, const Command& c);

  std::map<std::string, Entry> data_;
  std::map<std::string, std::string> scripts_;
};

namespace fake_detail {

inline FakeRedis*& current() {
  static FakeRedis* node = nullptr;
  return node;
}

inline void push_reply(lua_State* L, const Reply& r) {
  switch (r.type) {
    case ReplyType::integer:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case ReplyType::bulk:
      lua_pushlstring(L, r.text.data(), r.text.size());
      return;
    case ReplyType::nil:
    case ReplyType::nil_array:
      lua_pushboolean(L, 0);
      return;
    case ReplyType::status:
      lua_newtable(L);
      lua_pushlstring(L, r.text.data(), r.text.size());
      lua_setfield(L, -2, "ok");
      return;
    case ReplyType::error:
      lua_newtable(L);
      lua_pushlstring(L, r.text.data(), r.text.size());
      lua_setfield(L, -2, "err");
      return;
    case ReplyType::array:
      lua_newtable(L);
      for (std::size_t i = 0; i < r.elements.size(); ++i) {
        push_reply(L, r.elements[i]);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
  }
}

inline Reply to_reply(lua_State* L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TNUMBER:
      return Reply::integer_reply(static_cast<int64_t>(lua_tonumber(L, index)));
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, index, &n);
      return Reply::bulk(std::string(s, n));
    }
    case LUA_TBOOLEAN:
      return lua_toboolean(L, index) ? Reply::integer_reply(1) : Reply::nil_reply();
    case LUA_TTABLE: {
      lua_getfield(L, index, "ok");
      if (lua_isstring(L, -1)) {
        Reply r = Reply::status(lua_tostring(L, -1));
        lua_pop(L, 1);
        return r;
      }
      lua_pop(L, 1);
      lua_getfield(L, index, "err");
      if (lua_isstring(L, -1)) {
        Reply r = Reply::error(lua_tostring(L, -1));
        lua_pop(L, 1);
        return r;
      }
      lua_pop(L, 1);
      std::vector<Reply> items;
      for (int i = 1;; ++i) {
        lua_rawgeti(L, index, i);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          break;
        }
        items.push_back(to_reply(L, lua_gettop(L)));
        lua_pop(L, 1);
      }
      return Reply::array(std::move(items));
    }
    default:
      return Reply::nil_reply();
  }
}

inline int redis_call_impl(lua_State* L, bool protected_call) {
  Command c;
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    c.emplace_back(s ? std::string(s, len) : std::string());
  }
  const Reply r = current()->execute(c);
  if (r.is_error() && !protected_call) {
    lua_pushstring(L, r.text.c_str());
    return lua_error(L);
  }
  push_reply(L, r);
  return 1;
}
inline int redis_call(lua_State* L) {
  return redis_call_impl(L, false);
}
inline int redis_pcall(lua_State* L) {
  return redis_call_impl(L, true);
}
inline int status_reply(lua_State* L) {
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}
inline int error_reply(lua_State* L) {
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "err");
  return 1;
}

}  // namespace fake_detail

inline Reply FakeRedis::eval(const std::string& body, const Command& c) {
  using namespace fake_detail;
  const int numkeys = std::stoi(c[2]);
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  lua_pushcfunction(L, redis_call);
  lua_setfield(L, -2, "call");
  lua_pushcfunction(L, redis_pcall);
  lua_setfield(L, -2, "pcall");
  lua_pushcfunction(L, status_reply);
  lua_setfield(L, -2, "status_reply");
  lua_pushcfunction(L, error_reply);
  lua_setfield(L, -2, "error_reply");
  lua_setglobal(L, "redis");
  for (int part = 0; part < 2; ++part) {
    lua_newtable(L);
    const int from = part == 0 ? 3 : 3 + numkeys;
    const int to = part == 0 ? 3 + numkeys : static_cast<int>(c.size());
    for (int i = from; i < to; ++i) {
      lua_pushlstring(L, c[i].data(), c[i].size());
      lua_rawseti(L, -2, i - from + 1);
    }
    lua_setglobal(L, part == 0 ? "KEYS" : "ARGV");
  }
  current() = this;
  Reply reply;
  if (luaL_loadbuffer(L, body.data(), body.size(), "script") != 0 || lua_pcall(L, 0, 1, 0) != 0) {
    reply = Reply::error(std::string("ERR script: ") + lua_tostring(L, -1));
  } else {
    reply = to_reply(L, lua_gettop(L));
  }
  lua_close(L);
  return reply;
}

inline Reply FakeRedis::execute(const Command& c) {
  std::string name = c.at(0);
  for (char& ch : name)
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const auto arg = [&](std::size_t i) { return c.at(i); };
  if (name == "EVAL") {
    scripts_[script_sha1(c[1])] = c[1];
    return eval(c[1], c);
  }
  if (name == "EVALSHA") {
    auto it = scripts_.find(c[1]);
    if (it == scripts_.end()) return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
    return eval(it->second, c);
  }
  if (name == "PING") return Reply::status("PONG");
  if (name == "WAIT") return Reply::integer_reply(wait_acks);
  if (name == "SET" || name == "SETNX") {
    bool nx = name == "SETNX";
    int64_t ttl_ms = -1;
    for (std::size_t i = 3; i < c.size(); ++i) {
      std::string f = c[i];
      for (char& ch : f)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (f == "NX") nx = true;
      if (f == "PX") ttl_ms = std::stoll(c.at(++i));
      if (f == "EX") ttl_ms = std::stoll(c.at(++i)) * 1000;
    }
    if (nx && live(arg(1))) return name == "SETNX" ? Reply::integer_reply(0) : Reply::nil_reply();
    set_raw(arg(1), arg(2), ttl_ms);
    return name == "SETNX" ? Reply::integer_reply(1) : Reply::ok();
  }
  if (name == "GET") {
    Entry* e = live(arg(1));
    return e ? Reply::bulk(e->value) : Reply::nil_reply();
  }
  if (name == "DEL") {
    const bool had = live(arg(1)) != nullptr;
    data_.erase(arg(1));
    return Reply::integer_reply(had ? 1 : 0);
  }
  if (name == "EXISTS") return Reply::integer_reply(live(arg(1)) ? 1 : 0);
  if (name == "PEXPIRE" || name == "EXPIRE") {
    Entry* e = live(arg(1));
    if (!e) return Reply::integer_reply(0);
    const int64_t amount = std::stoll(arg(2)) * (name == "EXPIRE" ? 1000 : 1);
    e->expire_at_ms = now_ms() + amount;
    return Reply::integer_reply(1);
  }
  if (name == "PTTL") return Reply::integer_reply(pttl(arg(1)));
  if (name == "TTL") {
    const int64_t p = pttl(arg(1));
    return Reply::integer_reply(p < 0 ? p : (p + 500) / 1000);
  }
  if (name == "INCR") {
    Entry* e = live(arg(1));
    const int64_t next = (e ? std::stoll(e->value) : 0) + 1;
    if (e) {
      e->value = std::to_string(next);
    } else {
      set_raw(arg(1), std::to_string(next), -1);
    }
    return Reply::integer_reply(next);
  }
  if (name == "HINCRBY") {
    Entry* e = live(arg(1));
    if (!e) {
      data_[arg(1)] = Entry{.type = 'h'};
      e = &data_[arg(1)];
    }
    e->type = 'h';
    const int64_t next =
        (e->hash.count(arg(2)) ? std::stoll(e->hash[arg(2)]) : 0) + std::stoll(arg(3));
    e->hash[arg(2)] = std::to_string(next);
    return Reply::integer_reply(next);
  }
  if (name == "HEXISTS") {
    Entry* e = live(arg(1));
    return Reply::integer_reply(e && e->hash.count(arg(2)) ? 1 : 0);
  }
  if (name == "LPUSH") {
    Entry* e = live(arg(1));
    if (!e) {
      data_[arg(1)] = Entry{.type = 'l'};
      e = &data_[arg(1)];
    }
    e->list.insert(e->list.begin(), arg(2));
    return Reply::integer_reply(static_cast<int64_t>(e->list.size()));
  }
  return Reply::error("ERR unknown command '" + c[0] + "'");
}

}  // namespace redlock_sim::testing
