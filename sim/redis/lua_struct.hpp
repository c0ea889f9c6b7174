// Redis 7.0's `struct` Lua library (Roberto Ierusalimschy's struct 1.4 with Redis's fixes:
// integral sizes up to 32, size overflow refused, offsets from 1), written for the model: no
// Debian package carries it. struct.pack, struct.unpack and struct.size read the same formats,
// give the same bytes and raise the same error texts as redis-server 7.0.15 on x86-64 (checked by
// tests/differential/corpus/lua_struct_cmsgpack.redis and the randomized differential test).
#pragma once

struct lua_State;

namespace redlock_sim::lua_struct {

// Pushes a new table holding pack, unpack and size (like luaopen_struct, without a global).
int open(lua_State* lua);

}  // namespace redlock_sim::lua_struct
