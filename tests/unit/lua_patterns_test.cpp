// The model's string.find/match/gmatch/gsub (sim/redis/lua_patterns) behave as Lua 5.1's own:
// the same results and error texts on 20 000 generated subjects, patterns and replacements, run
// side by side with Debian's liblua5.1 in one process; and they count their steps.
#include <gtest/gtest.h>

#include <string>

#include "sim/kernel/random.hpp"
#include "sim/redis/lua_patterns.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace redlock_sim {
namespace {

uint64_t steps_counted = 0;
void count_steps(lua_State* /*lua*/, uint64_t steps) {
  steps_counted += steps;
}
const lua_patterns::StepSink counting_sink = count_steps;

// Lua's own string library as `string`, the model's functions in the table `model`.
struct Lua {
  lua_State* state = luaL_newstate();
  Lua() {
    luaL_openlibs(state);
    lua_newtable(state);
    lua_patterns::install(state, &counting_sink);
    lua_setglobal(state, "model");
  }
  ~Lua() { lua_close(state); }
  // Runs `code` (which returns values) with `lib` set to the table named `library`, and renders
  // its outcome as one line (the same code text, so error positions read the same).
  std::string outcome(const char* library, const std::string& code) {
    lua_getglobal(state, library);
    lua_setglobal(state, "lib");
    const int top = lua_gettop(state);
    std::string text;
    if (luaL_loadstring(state, code.c_str()) != 0 || lua_pcall(state, 0, LUA_MULTRET, 0) != 0) {
      text = std::string("error: ") + lua_tostring(state, -1);
    } else {
      for (int i = top + 1; i <= lua_gettop(state); ++i) {
        std::size_t length = 0;
        lua_getglobal(state, "tostring");
        lua_pushvalue(state, i);
        lua_call(state, 1, 1);
        const char* value = lua_tolstring(state, -1, &length);
        text += std::string(luaL_typename(state, i)) + ":" + std::string(value, length) + " ";
        lua_pop(state, 1);
      }
    }
    lua_settop(state, top);
    return text;
  }
};

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    out += "\\" + std::to_string(static_cast<unsigned char>(c));
  }
  return out + "\"";
}

std::string draw(Rng& rng, const std::string& alphabet, std::size_t length_max) {
  std::string out;
  const auto length = rng.below(length_max + 1);
  for (uint64_t i = 0; i < length; ++i)
    out += alphabet[rng.below(alphabet.size())];
  return out;
}

// Every call the model answers as Lua 5.1.5 answers it, errors included.
TEST(LuaPatterns, SameAsLuaOnGeneratedInputs) {
  Lua lua;
  Rng rng(14);
  const std::string subject_alphabet = std::string("aab b()[]%.-1x\n", 15) + '\0';
  const std::string pattern_alphabet = std::string("ab.%()[]^$*+-?10axszdwpbf", 25) + '\0';
  int differences = 0;
  int found = 0;    // calls whose first result is a position
  int refused = 0;  // calls that raised an error (malformed patterns and the like)
  for (int i = 0; i < 20'000 && differences < 5; ++i) {
    const std::string subject = quoted(draw(rng, subject_alphabet, 12));
    const std::string pattern = quoted(draw(rng, pattern_alphabet, 8));
    const std::string init = std::to_string(static_cast<int64_t>(rng.below(20)) - 8);
    const char* replacements[] = {
        "'<%0>'", "'%1-%2'", "'%%'", "'x%'", "{a='A', [' ']=false}", "function(a, b) return b end",
        "7",      "true"};
    const std::string replacement = replacements[rng.below(8)];
    const std::string max = rng.chance(1, 4) ? ", " + std::to_string(rng.below(3)) : "";
    const std::string calls[] = {
        "find(" + subject + ", " + pattern + ", " + init + ")",
        "find(" + subject + ", " + pattern + ", " + init + ", true)",
        "match(" + subject + ", " + pattern + ", " + init + ")",
        "gsub(" + subject + ", " + pattern + ", " + replacement + max + ")",
    };
    for (const std::string& call : calls) {
      const std::string real = lua.outcome("string", "return lib." + call);
      const std::string model = lua.outcome("model", "return lib." + call);
      found += real.rfind("number:", 0) == 0;
      refused += real.rfind("error:", 0) == 0;
      if (real != model) {
        ++differences;
        ADD_FAILURE() << call << "\n  lua:   " << real << "\n  model: " << model;
      }
    }
    const std::string gmatch = "local out = {} for a, b in lib.gmatch(" + subject + ", " + pattern +
                               ") do out[#out + 1] = tostring(a) .. '|' .. tostring(b) if #out > "
                               "20 then break end end return table.concat(out, ',')";
    const std::string real = lua.outcome("string", gmatch);
    const std::string model = lua.outcome("model", gmatch);
    if (real != model) {
      ++differences;
      ADD_FAILURE() << "gmatch " << subject << " " << pattern << "\n  lua:   " << real
                    << "\n  model: " << model;
    }
  }
  // The generated inputs exercise both matches and Lua's pattern errors.
  EXPECT_GT(found, 5'000);
  EXPECT_GT(refused, 5'000);
}

// A pathological pattern costs steps in proportion to its work, which the script budget bounds.
TEST(LuaPatterns, StepsGrowWithTheWork) {
  Lua lua;
  steps_counted = 0;
  EXPECT_EQ(lua.outcome("model", "return lib.find(string.rep('a', 30), '.-.-.-b')"), "nil:nil ");
  EXPECT_GT(steps_counted, 4000u);
  steps_counted = 0;
  EXPECT_EQ(lua.outcome("model", "return lib.find('ab', 'b')"), "number:2 number:2 ");
  EXPECT_LT(steps_counted, 4096u);
}

}  // namespace
}  // namespace redlock_sim
