// The zoo: lock variants broken on purpose, each named for its bug and paired with the correct
// twin it differs from, so a checker can be shown to catch it. Each is a family with one option
// turned the wrong way; nothing else changes.
#pragma once

#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/single_instance.hpp"

namespace redlock_sim::zoo {

// Release by plain DEL: deletes whoever's lock is there (twin: single-instance).
SingleInstanceOptions plain_del_release();
// Release by GET, compare in the client, then DEL: the key can change hands in between.
SingleInstanceOptions get_then_del_release();
// SETNX then PEXPIRE in a second round trip: a crash in between leaves a lock with no TTL.
SingleInstanceOptions setnx_then_expire();
// SET NX without PX: a crashed holder keeps the lock for ever.
SingleInstanceOptions no_ttl();

// Redlock whose validity ignores the time the acquisition took (twin: redlock).
RedlockOptions no_elapsed_check();
// Redlock whose extension succeeds when a single node (a minority) accepted it.
RedlockOptions extend_on_minority();
// Redlock whose extension re-creates the key wherever it is absent, hiding a lapse.
RedlockOptions resurrecting_extend();
// Redlock whose extension is an unconditional SET k mine XX PX ttl: it overwrites the keys of
// whoever took the lapsed lock (docs/catalogue.md, S21b).
RedlockOptions unconditional_extend();

// The correct twins.
SingleInstanceOptions single_instance_reference();
RedlockOptions redlock_reference();

}  // namespace redlock_sim::zoo
