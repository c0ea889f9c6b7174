#!/usr/bin/env node
// redlock-sim real-mode driver for npm `redlock` 5.0.0-beta.2 (mike-marcacci/node-redlock, the
// published 5.0.0-beta.2, not the unreleased GitHub main), the library the profile
// `node-redlock-5.0.0-beta.2` models, over ioredis 5.
//
//   node driver.js --config JSON
//
// Speaks the client line protocol of docs/real-mode.md through ../node-common/protocol.js, which
// also holds the seeded Math.random, the per-node ioredis connections (replaced after a command
// timeout: why, there) and the resource; this file is what is redlock 5.0.0-beta.2's own.
//
// The lock is driven through the library's public API as its README shows:
//   const redlock = new Redlock([client, ...], {driftFactor, retryCount, retryDelay, retryJitter});
//   lock = await redlock.acquire([resource], duration);  lock = await lock.extend(duration);
//   await lock.release();
// and, with the scenario param auto_extend (the profile's watchdog), the auto-extending form:
//   await redlock.using([resource], duration, async (signal) => { ... });
// whose routine runs from the driver's `granted` until its `release` command; a failed automatic
// extension aborts `signal`, reported as a `lost` event with signal.error's message.
//
// Deadline: the library's own `lock.expiration`, a Date.now() timestamp in ms (taken before the
// retry loop + duration - drift, never compared with now), reported as
// {"clock": "wall", "at_ns": expiration * 1e6}; the profile computes the same on the wall clock.
// `extend` returns a new Lock whose expiration is reported; a failed extend leaves the old Lock's.
// using() keeps its Lock to itself: the driver passes a subclass of Redlock whose acquire() and
// extend() call the library's own and only note the Lock they return, so that `granted`, `renewed`
// and `check` can report the expiration using() works with.
//
// Scenario params mapped to the library's settings:
//   ttl_ms -> duration (default 10000), retry_count -> retryCount (acquire, extend and release all
//   use it), retry_delay_ms_min and retry_jitter_ms (the profile's delay is uniform in
//   [min, min + jitter]) -> retryDelay = min + jitter/2, retryJitter = jitter/2, drift_ppm ->
//   driftFactor (the library's +2 ms is fixed), request_timeout_ms -> ioredis `commandTimeout` (the
//   library sets none; the profile's default is 1 h), auto_extend -> using(). Any other param, or
//   one the library cannot honour, stops the driver at start.
'use strict';

const Redis = require('ioredis');
const {default: Redlock} = require('redlock');
const common = require('../node-common/protocol');
const {emit, note, grants} = common;

const PROFILE = 'node-redlock-5.0.0-beta.2';

// ---- configuration ---------------------------------------------------------------------------

const {config, params} = common.start('node-redlock-5');
const {ttl, delayJitter, requestTimeout, settings} = common.redlockParams({
  library: 'node-redlock 5.0.0-beta.2', extra: ['auto_extend'],
  waits: ['quorum', 'return_at_quorum'],
  waitFixed: 'the library returns as soon as a quorum voted'});
const autoExtend = ['true', '1', 'yes'].includes(String(params.auto_extend || 'false'));
common.seedMathRandom(delayJitter);
// No CLIENT SETINFO at connect either (ioredis 5): only the library's commands cross the proxy.
const lockNodes = common.nodeClients(Redis, requestTimeout, {disableClientInfo: true});

// ---- the lock --------------------------------------------------------------------------------

// The library, with acquire() and extend() observed (see the header): the Lock objects using()
// keeps to itself are noted on their way back to it, nothing else changes.
class ObservedRedlock extends Redlock {
  async acquire(resources, duration, acquireSettings) {
    const lock = await super.acquire(resources, duration, acquireSettings);
    if (this.onAcquired) this.onAcquired(lock);
    return lock;
  }

  async extend(existing, duration, extendSettings) {
    const lock = await super.extend(existing, duration, extendSettings);
    if (this.onExtended) this.onExtended(existing, lock);
    return lock;
  }
}

const redlock = new ObservedRedlock(lockNodes, settings);
redlock.on('error', (error) => {
  if (!(error instanceof Error) || error.name !== 'ResourceLockedError') {
    note(`redis: ${error && error.message ? error.message : error}`);
  }
});

// The votes are counted on the nodes' promises: the library resolves at a quorum and only
// resolves its per-attempt statistics once every node answered, which may be never.
function countYes(fn) {
  return common.countYes(lockNodes, (call, vote) => (name, args) =>
    call(name, args).then((result) => {
      if (Number(result) === 1) vote();
      return result;
    }), fn);
}

const lockName = config.lock || 'lock';

function attemptsOf(error) {
  return error && Array.isArray(error.attempts) ? error.attempts.length : 0;
}

function granted(started, lock, extra) {
  return common.granted(started, lock, lock.attempts.length, extra);
}

async function acquire(started) {
  common.skipTokenWords();
  if (autoExtend) return acquireUsing(started);
  let lock;
  try {
    lock = await redlock.acquire([lockName], ttl);
  } catch (error) {
    emit({event: 'acquire_failed', start_mono_ns: started, attempts: attemptsOf(error),
      failure: error.message});
    return;
  }
  granted(started, lock);
}

// using(): the routine holds the lock from the driver's `granted` until its `release`; using()
// then releases in its `finally`, and its outcome answers the `release` command.
function acquireUsing(started) {
  return new Promise((answered) => {
    let grant = null;
    let acquired = null;
    let endRoutine;
    const routineEnded = new Promise((resolve) => { endRoutine = resolve; });
    redlock.onAcquired = (lock) => { acquired = lock; };
    const outcome = redlock.using([lockName], ttl, async (signal) => {
      redlock.onAcquired = null;
      grant = granted(started, acquired, {finish: endRoutine, watching: true, settled: null});
      const number = grant.number;
      signal.addEventListener('abort', () => {
        const reason = signal.error && signal.error.message ? signal.error.message : 'aborted';
        emit({event: 'lost', lease: number, reason});
        if (grant.watching) emit({event: 'watchdog_stopped', lease: number});
        grant.watching = false;
      });
      emit({event: 'watchdog_started', lease: number});
      answered();
      await routineEnded;
      if (grant.watching) emit({event: 'watchdog_stopped', lease: number});
      grant.watching = false;
    });
    outcome.then(() => { if (grant && grant.settled) grant.settled(null); }, (error) => {
      if (grant === null) {
        redlock.onAcquired = null;
        emit({event: 'acquire_failed', start_mono_ns: started, attempts: attemptsOf(error),
          failure: error.message});
        answered();
        return;
      }
      if (grant.settled) grant.settled(error);
    });
  });
}

redlock.onExtended = (existing, lock) => {
  // A renewal by using() (the driver's own extend replaces current.lock itself).
  const grant = [grants.current, ...grants.outer].find((g) => g && g.lock === existing && g.finish);
  if (!grant) return;
  grant.lock = lock;
  emit({event: 'renewed', lease: grant.number, deadline: common.wallDeadline(lock)});
};

async function release(started, held) {
  if (!held.finish) {
    await common.answerRelease(started, () => countYes(() => held.lock.release()));
    return;
  }
  // using(): end the routine; using() releases in its finally and settles.
  const {value: error, yes} = await countYes(() => new Promise((resolve) => {
    held.settled = resolve;
    held.finish();
  }));
  if (error) {
    emit({event: 'release_failed', start_mono_ns: started, nodes: yes, failure: error.message});
  } else {
    emit({event: 'released', start_mono_ns: started, nodes: yes, failure: ''});
  }
}

// extend() returns a new Lock, which becomes the grant's; a failed extend leaves the old one.
async function extend(started, held) {
  try {
    const {value: lock, yes} = await countYes(() => held.lock.extend(ttl));
    held.lock = lock;
    emit({event: 'extended', start_mono_ns: started, nodes: yes, failure: '',
      deadline: common.wallDeadline(lock)});
  } catch (error) {
    emit({event: 'extend_failed', start_mono_ns: started, nodes: error.yes || 0,
      failure: error.message});
  }
}

common.serve(PROFILE, {acquire, release, extend});
