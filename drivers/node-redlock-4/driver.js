#!/usr/bin/env node
// redlock-sim real-mode driver for npm `redlock` 4.2.0 (mike-marcacci/node-redlock v4.2.0), the
// library the profile `node-redlock-4.2.0` models, over ioredis 4.
//
//   node driver.js --config JSON
//
// Speaks the client line protocol of docs/real-mode.md through ../node-common/protocol.js, which
// also holds the seeded Math.random, the per-node ioredis connections (replaced after a command
// timeout: why, there) and the resource; this file is what is redlock 4.2.0's own.
//
// The lock is driven through the library's public API as its README shows:
//   const redlock = new Redlock([client, ...], {driftFactor, retryCount, retryDelay, retryJitter});
//   redlock.lock(resource, ttl) -> lock;  lock.extend(ttl);  lock.unlock();
//
// Deadline: the library's own `lock.expiration`, a Date.now() timestamp in ms (start of the
// winning attempt + ttl - drift), reported as {"clock": "wall", "at_ns": expiration * 1e6}; the
// profile computes the same on the wall clock. `extend` updates the same Lock object's expiration.
//
// Scenario params mapped to the library's settings:
//   ttl_ms -> ttl (default 10000), retry_count -> retryCount, retry_delay_ms_min and
//   retry_jitter_ms (the profile's delay is uniform in [min, min + jitter]) -> retryDelay =
//   min + jitter/2, retryJitter = jitter/2, drift_ppm -> driftFactor (the library's +2 ms is fixed),
//   request_timeout_ms -> ioredis `commandTimeout` (the library sets none; the profile's default
//   is 1 h). Any other param, or one the library cannot honour, stops the driver at start.
'use strict';

const Redis = require('ioredis');
const Redlock = require('redlock');
const common = require('../node-common/protocol');
const {emit, log, note} = common;

const PROFILE = 'node-redlock-4.2.0';

// ---- configuration ---------------------------------------------------------------------------

const {config} = common.start('node-redlock-4');
const {ttl, delayJitter, requestTimeout, settings} = common.redlockParams({
  library: 'node-redlock 4.2.0', extra: [], waits: ['all', 'wait_for_all'],
  waitFixed: 'the library waits for every server'});
common.seedMathRandom(delayJitter);
const lockNodes = common.nodeClients(Redis, requestTimeout);

// ---- the lock --------------------------------------------------------------------------------

const redlock = new Redlock(lockNodes, settings);
redlock.on('clientError', (error) => note(`redis: ${error.message}`));

// The library drops a promise: after a failed attempt (acquire or extend) it unlocks with
// `lock.unlock(callback)`, and when that unlock misses its quorum (the usual case: the lock was
// not ours) its bluebird promise is rejected with "Unable to fully release the lock" and never
// handled. Node 15 and later end the process on an unhandled rejection by default; redlock 4.2.0
// dates from the Node 14 era, which only warned. The driver keeps the Node 14 behaviour (a note
// in the story) so that the lock's own algorithm can be judged.
process.on('unhandledRejection', (reason) => {
  log(`unhandled rejection: ${reason && reason.stack ? reason.stack : reason}`);
  note(`unhandled rejection inside the library: ${reason && reason.message ? reason.message : reason}`);
});

// The library calls the nodes with a callback last: a yes is a reply of 1 to that callback.
function countYes(fn) {
  return common.countYes(lockNodes, (call, vote) => function (name, args) {
    const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : null;
    if (callback !== null) {
      args[args.length - 1] = (error, result) => {
        if (!error && Number(result) === 1) vote();
        callback(error, result);
      };
    }
    return call(name, args);
  }, fn);
}

const lockName = config.lock || 'lock';

async function acquire(started) {
  common.skipTokenWords();
  let lock;
  try {
    lock = await redlock.lock(lockName, ttl);
  } catch (error) {
    emit({event: 'acquire_failed', start_mono_ns: started, attempts: error.attempts || 0,
      failure: error.message});
    return;
  }
  common.granted(started, lock, lock.attempts);
}

function release(started, held) {
  return common.answerRelease(started, () => countYes(() => held.lock.unlock()));
}

// extend() updates the same Lock object's expiration; a failure reports no node.
async function extend(started, held) {
  try {
    const {yes} = await countYes(() => held.lock.extend(ttl));
    emit({event: 'extended', start_mono_ns: started, nodes: yes, failure: '',
      deadline: common.wallDeadline(held.lock)});
  } catch (error) {
    emit({event: 'extend_failed', start_mono_ns: started, nodes: 0, failure: error.message});
  }
}

common.serve(PROFILE, {acquire, release, extend});
