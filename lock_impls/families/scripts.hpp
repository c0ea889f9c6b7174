// The project's own Lua scripts, each written to behave like the library script named beside it
// (modelled on the scripts at the commits docs/lock-clients.md names; none is pasted).
//
// Conventions: KEYS[1] is the lock key, ARGV[1] the lock value unless said otherwise.
#pragma once

#include "lock_impls/families/common.hpp"

namespace redlock_sim::scripts {

// Compare-and-delete (Redis docs, redlock-py, pottery, redlock-rb, redis-plus-plus): 1 when
// our key was deleted, 0 otherwise.
inline constexpr Script delete_if_value{"delete_if_value", R"lua(
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua"};

// redsync's delete: -1 when the key is missing, so "already expired" is told apart from "taken".
inline constexpr Script delete_if_value_or_report_missing{"delete_if_value_or_report_missing",
                                                          R"lua(
local current = redis.call('GET', KEYS[1])
if current == false then
  return -1
end
if current == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua"};

// aioredlock's delete: a missing key is fine (status OK), someone else's is an error reply.
inline constexpr Script delete_if_value_missing_ok{"delete_if_value_missing_ok", R"lua(
local current = redis.call('GET', KEYS[1])
if not current then
  return redis.status_reply('OK')
end
if current == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return redis.error_reply('ERROR lock held by another identifier')
)lua"};

// Compare-and-PEXPIRE, a TTL reset (redsync touch, pottery, redis-plus-plus). ARGV[2] = ttl ms.
inline constexpr Script pexpire_if_value{"pexpire_if_value", R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
)lua"};

// redis-py extend: add ARGV[2] ms to the remaining PTTL, or replace it when ARGV[3] == "1".
inline constexpr Script pexpire_add_if_value{"pexpire_add_if_value", R"lua(
local current = redis.call('GET', KEYS[1])
if not current or current ~= ARGV[1] then
  return 0
end
local remaining = redis.call('PTTL', KEYS[1])
if remaining < 0 then
  return 0
end
local ttl = tonumber(ARGV[2])
if ARGV[3] == '0' then
  ttl = ttl + remaining
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
)lua"};

// node-redlock acquire (one key): refuse if the key exists, else SET PX; returns keys set.
inline constexpr Script set_if_none_exists{"set_if_none_exists", R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
)lua"};

// node-redlock extend: SET PX again (a TTL reset) only while the value is ours.
inline constexpr Script set_px_if_value{"set_px_if_value", R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
)lua"};

// redlock-rb acquire and extend: SET PX when the value is ours, or when the key is absent and
// ARGV[3] == "yes". With "yes" an extend re-creates a lapsed lock (redlock-rb issue #36).
// Returns OK, or nil when refused.
inline constexpr Script set_if_absent_or_same{"set_if_absent_or_same", R"lua(
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[3] == 'yes') or current == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return false
)lua"};

// aioredlock acquire and extend: SET PX when absent or ours, else an error reply.
inline constexpr Script set_if_absent_or_same_or_error{"set_if_absent_or_same_or_error", R"lua(
local current = redis.call('GET', KEYS[1])
if not current or current == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return redis.error_reply('ERROR lock held by another identifier')
)lua"};

// python-redis-lock extend (seconds): 1 not ours, 2 no TTL set, 0 extended. ARGV[2] = seconds.
inline constexpr Script expire_seconds_if_value{"expire_seconds_if_value", R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
if redis.call('TTL', KEYS[1]) < 0 then
  return 2
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 0
)lua"};

// python-redis-lock release: 1 not ours; else delete and push a wake-up on the signal list
// KEYS[2] that expires after ARGV[2] ms, 0.
inline constexpr Script delete_and_signal{"delete_and_signal", R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
redis.call('DEL', KEYS[2])
redis.call('LPUSH', KEYS[2], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
return 0
)lua"};

// Redisson RLock acquire: a hash KEYS[1] whose field ARGV[2] (owner) counts re-entries;
// ARGV[1] = lease ms. nil when acquired, else the holder's PTTL.
inline constexpr Script hash_acquire{"hash_acquire", R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return false
end
return redis.call('PTTL', KEYS[1])
)lua"};

// Redisson RFencedLock acquire: as hash_acquire, and INCR the token counter KEYS[2] on every
// grant, re-entries included. {-1, token} when acquired, else {pttl, -1}.
inline constexpr Script hash_acquire_fenced{"hash_acquire_fenced", R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  local token = redis.call('INCR', KEYS[2])
  redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {-1, token}
end
return {redis.call('PTTL', KEYS[1]), -1}
)lua"};

// Redisson renewal: PEXPIRE ARGV[1] (a reset) while field ARGV[2] exists; 1 renewed, 0 not ours.
inline constexpr Script hash_renew{"hash_renew", R"lua(
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 1
end
return 0
)lua"};

// Redisson unlock: nil when not ours; one re-entry fewer (and a fresh lease) -> 0; last -> 1.
inline constexpr Script hash_release{"hash_release", R"lua(
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then
  return false
end
local counter = redis.call('HINCRBY', KEYS[1], ARGV[2], -1)
if counter > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 0
end
redis.call('DEL', KEYS[1])
return 1
)lua"};

// Zoo: the resurrecting extend. Sets the key again whenever it is absent or ours.
inline constexpr Script set_px_if_absent_or_value{"set_px_if_absent_or_value", R"lua(
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
)lua"};

// redsync WithSetNXOnExtend: PEXPIRE when ours, else take the key again if it is absent.
inline constexpr Script pexpire_if_value_else_set_nx{"pexpire_if_value_else_set_nx", R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  return 1
end
return 0
)lua"};

}  // namespace redlock_sim::scripts
