// Lua 5.1's pattern-matching functions (string.find, match, gmatch, gsub), written for the model
// with a step count, so that a pathological pattern is bounded by the script's budget like the
// VM's instructions are (Lua's own matcher runs in C, where no hook can stop it).
//
// Behaviour is Lua 5.1.5's, including its error texts and its reading of the pattern as a C
// string (a NUL ends it); tests/unit/lua_patterns_test.cpp compares them with Lua's own
// functions on many generated subjects and patterns.
#pragma once

#include <cstdint>

struct lua_State;

namespace redlock_sim::lua_patterns {

// Called with the steps spent since the last call; raises a Lua error to stop the match.
using StepSink = void (*)(lua_State* lua, uint64_t steps);

// Sets find, match, gmatch and gsub in the table at the top of the stack. Each keeps `sink` as
// its upvalue (a light userdata pointing at a static StepSink holder).
void install(lua_State* lua, const StepSink* sink);

}  // namespace redlock_sim::lua_patterns
