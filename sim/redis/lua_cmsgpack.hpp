// Redis 7.0's `cmsgpack` Lua library (lua-cmsgpack 0.4.0 as Redis bundles it), written for the
// model: no Debian package carries it. pack (every argument, concatenated), unpack (every value,
// a stream), unpack_one and unpack_limit (with the next offset, -1 at the end) give the same
// bytes, values and error texts as redis-server 7.0.15 on x86-64
// (tests/differential/corpus/lua_cmsgpack.redis and the randomized differential test).
//
// Two bounds Redis does not have: every value encoded or decoded is a step of the script's
// budget (`sink`), since a table that holds itself ten times is 10^16 values to encode at
// cmsgpack's nesting limit of 16 and 7.0 cannot kill a script inside it; and the output grows
// through the Lua allocator, so it counts against the Lua memory budget. Decoding checks the Lua
// stack for maps as for arrays (7.0 checks arrays only and overflows on 8000 nested maps).
#pragma once

#include "sim/redis/lua_patterns.hpp"

struct lua_State;

namespace redlock_sim::lua_cmsgpack {

// Pushes a new table holding pack, unpack, unpack_one, unpack_limit and the _NAME, _VERSION,
// _COPYRIGHT and _DESCRIPTION strings. `sink` is charged the values walked.
int open(lua_State* lua, const lua_patterns::StepSink* sink);

}  // namespace redlock_sim::lua_cmsgpack
