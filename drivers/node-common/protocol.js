// What the Node drivers of redlock-sim real mode (drivers/node-redlock-4, drivers/node-redlock-5)
// share: the client line protocol of docs/real-mode.md (commands on standard input, one JSON event
// per line on standard output stamped with CLOCK_MONOTONIC (process.hrtime) and the process's wall
// clock (Date.now, which the harness's clock shim moves)), the --config JSON and its params, the
// seeded random stream behind Math.random, the per-node ioredis connections, and the resource.
// A driver keeps what is its library's own: its settings, its Redlock, acquire, release, extend.
//
//   const common = require('../node-common/protocol');
//   const {config} = common.start('node-redlock-4');       // parses --config
//   ... common.redlockParams(...), common.seedMathRandom(...), common.nodeClients(Redis, ...) ...
//   common.serve(PROFILE, {acquire, release, extend});      // the command loop, `ready` first
//
// This module requires no package: each driver folder has its own node_modules with its own
// ioredis version, so the driver hands its ioredis class to nodeClients().
//
// Transport: each node is one ioredis connection to the harness's proxy port. The harness's
// network drops messages without breaking the TCP connection (its partition semantics), so a
// command whose reply never comes would leave ioredis waiting forever and every later reply on
// that connection matched to the wrong command. When a command times out (commandTimeout), the
// driver therefore closes that connection and opens a new one for the next command, as the
// built-in client (redlock-sim client) does. This wraps ioredis only; the lock algorithm is the
// library's, untouched.
'use strict';

const net = require('net');
const readline = require('readline');

let driverName = 'node';
let config = null;
let params = {};

// ---- events ----------------------------------------------------------------------------------

function monoNs() {
  return process.hrtime.bigint();
}

function emit(event) {
  event.mono_ns = monoNs();
  event.random_words = randomWords;
  event.wall_ns = BigInt(Date.now()) * 1000000n;
  const text = JSON.stringify(event, (key, value) =>
    typeof value === 'bigint' ? `__bigint__${value}` : value).replace(/"__bigint__(-?\d+)"/g, '$1');
  process.stdout.write(text + '\n');
}

// The client's log (standard error: client-<name>.log in a kept run folder).
function log(text) {
  process.stderr.write(`${(Number(monoNs() / 1000n) / 1000).toFixed(3)} ${text}\n`);
}

function note(text) {
  emit({event: 'note', text});
}

function fatal(text) {
  process.stderr.write(`${driverName} driver: ${text}\n`);
  process.exit(2);
}

// ---- configuration ---------------------------------------------------------------------------

function parseConfig() {
  const i = process.argv.indexOf('--config');
  if (i < 0 || i + 1 >= process.argv.length) fatal('usage: node driver.js --config JSON');
  try {
    return JSON.parse(process.argv[i + 1]);
  } catch (error) {
    fatal(`--config is not JSON: ${error.message}`);
  }
}

function intParam(key, fallback) {
  if (!(key in params)) return fallback;
  const text = String(params[key]);
  if (!/^-?\d+$/.test(text)) fatal(`${key}: expected an integer, got '${text}'`);
  return Number(text);
}

// Names the driver (its messages on standard error) and reads --config; the resource client is
// made here, the lock's connections by nodeClients().
function start(name) {
  driverName = name;
  config = parseConfig();
  params = config.params || {};
  resourceSpec = config.resource || null;
  resource = resourceSpec ? new RespClient(resourceSpec) : null;
  return {config, params};
}

// The params every node-redlock version reads, checked against what the library can honour:
//   library: its name in messages; extra: the params only this version knows;
//   waits: the values of `wait` it can stage, waitFixed: why no other.
// ttl_ms -> ttl (default 10000), retry_delay_ms_min and retry_jitter_ms (the profile's delay is
// uniform in [min, min + jitter]) -> retryDelay = min + jitter/2, retryJitter = jitter/2,
// drift_ppm -> driftFactor (the library's +2 ms is fixed), retry_count -> retryCount,
// request_timeout_ms -> ioredis `commandTimeout` (null: the library sets none).
function redlockParams({library, extra, waits, waitFixed}) {
  const known = new Set(['nodes', 'ttl_ms', 'retry_count', 'retry_delay_ms_min', 'retry_jitter_ms',
    'drift_ppm', 'drift_constant_ms', 'request_timeout_ms', 'clock', 'fan_out', 'wait',
    ...(extra || [])]);
  for (const key of Object.keys(params)) {
    if (!known.has(key)) fatal(`param ${key}: ${library} has no such setting`);
  }
  // Settings the library fixes: only their defaults can be staged.
  if ('drift_constant_ms' in params && intParam('drift_constant_ms', 2) !== 2) {
    fatal('drift_constant_ms: the library always adds 2 ms');
  }
  if ('clock' in params && params.clock !== 'wall') fatal('clock: the library reads Date.now()');
  if ('fan_out' in params && params.fan_out !== 'parallel') {
    fatal('fan_out: the library is parallel');
  }
  if ('wait' in params && !waits.includes(String(params.wait))) fatal(`wait: ${waitFixed}`);
  if ('nodes' in params && intParam('nodes', config.nodes.length) !== config.nodes.length) {
    fatal('nodes: differs from the endpoints given');
  }

  const ttl = intParam('ttl_ms', 10000);
  const delayMin = intParam('retry_delay_ms_min', 100);
  const delayJitter = intParam('retry_jitter_ms', 200);
  if (delayJitter % 2 !== 0) fatal('retry_jitter_ms: the library draws retryDelay +- retryJitter');
  const requestTimeout = 'request_timeout_ms' in params ? intParam('request_timeout_ms', 0) : null;
  const settings = {
    driftFactor: intParam('drift_ppm', 10000) / 1e6,
    retryCount: intParam('retry_count', 10),
    retryDelay: delayMin + delayJitter / 2,
    retryJitter: delayJitter / 2,
  };
  return {ttl, delayJitter, requestTimeout, settings};
}

// ---- randomness ------------------------------------------------------------------------------

// The library's retry jitter is Math.random(). With a seed in --config, Math.random() is fed
// from the simulated process's random stream (Rng::derive(seed, "process/<name>/random"),
// xoshiro256** seeded by SplitMix64, sim/kernel/random.cpp), so the real library waits the same
// delays as its simulated twin: the profile draws a delay as min + (word % (jitter + 1)) ms, and
// the value handed to the library is the one for which its own formula,
// retryDelay + floor((r * 2 - 1) * retryJitter), gives that delay (the library cannot wait
// min + jitter exactly: r < 1, so that one draw gives one ms less). The profile takes two words
// for every lock value (16 bytes) at the start of each acquisition; the library takes its value
// from crypto.randomBytes, so the driver skips those two words when an acquisition starts. Every
// event carries `random_words` so that a restarted client goes on from there (random_skip).
// Without a seed the library keeps Node's own Math.random.
const MASK64 = (1n << 64n) - 1n;
let randomWords = 0n;
let nextWord = null;

function seedStream(seed, component, skip) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(component, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & MASK64;
  }
  let splitState = (BigInt(seed) ^ hash) & MASK64;
  const splitmix = () => {
    splitState = (splitState + 0x9e3779b97f4a7c15n) & MASK64;
    let z = splitState;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  };
  splitState = splitmix();  // Rng::derive: SplitMix64(root ^ hash).next() seeds Rng(...)
  const s = [splitmix(), splitmix(), splitmix(), splitmix()];
  const rotl = (x, k) => ((x << BigInt(k)) | (x >> BigInt(64 - k))) & MASK64;
  nextWord = () => {
    const result = (rotl((s[1] * 5n) & MASK64, 7) * 9n) & MASK64;
    const t = (s[1] << 17n) & MASK64;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    randomWords += 1n;
    return result;
  };
  for (let i = 0n; i < BigInt(skip); i++) nextWord();
  randomWords = BigInt(skip);
}

// Port::random_u64: the word's bytes, stored little-endian, read back big-endian.
function byteSwapped(word) {
  let out = 0n;
  for (let i = 0; i < 8; i++) {
    out = (out << 8n) | (word & 0xffn);
    word >>= 8n;
  }
  return out;
}

function skipTokenWords() {
  if (nextWord !== null) { nextWord(); nextWord(); }
}

// jitterSpan: the profile's, delays in [min, min + jitterSpan] (retry_jitter_ms).
function seedMathRandom(jitterSpan) {
  if (config.seed === undefined || config.seed === null) return;
  seedStream(config.seed, `process/${config.client}/random`, config.random_skip || 0);
  Math.random = () => {
    if (jitterSpan <= 0) return 0.5;  // the profile draws nothing without jitter
    const k = Number(byteSwapped(nextWord()) % BigInt(jitterSpan + 1));
    return Math.min(k + 0.5, jitterSpan - 0.5) / jitterSpan;
  };
}

// ---- transport -------------------------------------------------------------------------------

// One node: an ioredis client (of the driver's ioredis class) that is replaced after a command
// timeout (see the header).
class NodeClient {
  constructor(Redis, endpoint, requestTimeout, extraOptions) {
    this.Redis = Redis;
    this.options = Object.assign({
      host: endpoint.host || '127.0.0.1',
      port: endpoint.port,
      enableReadyCheck: false,   // no INFO at connect: only the library's commands cross the proxy
      maxRetriesPerRequest: null,
      lazyConnect: false,
    }, extraOptions || {});
    if (requestTimeout !== null) this.options.commandTimeout = requestTimeout;
    this.redis = this.connect();
  }

  connect() {
    const redis = new this.Redis(this.options);
    redis.on('error', () => {});  // reported through the commands' own errors
    return redis;
  }

  call(name, args) {
    const redis = this.redis;
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : null;
    const shown = `${name} ${this.options.port} ${JSON.stringify(args.flat().filter((a) => String(a).length < 40))}`;
    log(`-> ${shown}`);
    const promise = redis[name](...args).then((result) => {
      log(`<- ${shown}: ${result}`);
      return result;
    }, (error) => {
      log(`<- ${shown}: ${error.message}`);
      if (/timed out/i.test(error.message) && this.redis === redis) {
        this.redis = this.connect();
        redis.disconnect();
      }
      throw error;
    });
    if (callback === null) return promise;
    promise.then((result) => callback(null, result), (error) => callback(error));
    return undefined;
  }

  evalsha(...args) { return this.call('evalsha', args); }
  eval(...args) { return this.call('eval', args); }
  quit() { return this.redis.quit(); }
}

// The lock's nodes (config.nodes, in order), one NodeClient each: the clients handed to Redlock.
function nodeClients(Redis, requestTimeout, extraOptions) {
  return config.nodes.map((endpoint) =>
    new NodeClient(Redis, endpoint, requestTimeout, extraOptions));
}

// Votes of the nodes (script replies equal to the key count) counted while a release or an
// extend is out, for the story's "released on N node(s)". wrap(call, vote) returns the node's
// call(name, args) for the time being: it calls `call` and calls vote() for every yes.
function countYes(nodes, wrap, fn) {
  let yes = 0;
  const vote = () => { yes++; };
  const originals = nodes.map((node) => node.call);
  nodes.forEach((node, index) => {
    node.call = wrap((name, args) => originals[index].call(node, name, args), vote);
  });
  const restore = () => nodes.forEach((node, index) => { node.call = originals[index]; });
  return fn().then((value) => { restore(); return {value, yes}; },
    (error) => { restore(); error.yes = yes; throw error; });
}

// The resource (and nothing else) speaks the harness's own commands: a small RESP client with a
// per-request timeout that closes the connection on a timeout, as the built-in client does.
class RespClient {
  constructor(endpoint) {
    this.endpoint = endpoint;
    this.socket = null;
    this.buffer = Buffer.alloc(0);
    this.waiting = [];
  }

  open() {
    const socket = net.createConnection({host: this.endpoint.host || '127.0.0.1',
      port: this.endpoint.port});
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      if (this.socket !== socket) return;
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (;;) {
        const parsed = parseReply(this.buffer, 0);
        if (parsed === null) break;
        this.buffer = this.buffer.subarray(parsed.end);
        const next = this.waiting.shift();
        if (next) next(parsed.reply);
      }
    });
    const broken = () => {
      if (this.socket !== socket) return;
      this.close();
    };
    socket.on('error', broken);
    socket.on('close', broken);
    this.socket = socket;
  }

  close() {
    const waiting = this.waiting;
    this.waiting = [];
    if (this.socket) this.socket.destroy();
    this.socket = null;
    this.buffer = Buffer.alloc(0);
    for (const w of waiting) w(null);
  }

  // The reply ({type, value}), or null on a timeout or a broken connection.
  send(words, timeoutMs) {
    if (!this.socket) this.open();
    return new Promise((resolve) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        this.close();
        resolve(null);
      }, timeoutMs);
      this.waiting.push((reply) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(reply);
      });
      let frame = `*${words.length}\r\n`;
      for (const w of words) frame += `$${Buffer.byteLength(String(w))}\r\n${w}\r\n`;
      this.socket.write(frame);
    });
  }
}

function parseReply(buffer, start) {
  const eol = buffer.indexOf('\r\n', start);
  if (eol < 0) return null;
  const type = String.fromCharCode(buffer[start]);
  const line = buffer.toString('utf8', start + 1, eol);
  const after = eol + 2;
  if (type === '+') return {reply: {type: 'status', value: line}, end: after};
  if (type === '-') return {reply: {type: 'error', value: line}, end: after};
  if (type === ':') return {reply: {type: 'integer', value: Number(line)}, end: after};
  if (type === '$') {
    const n = Number(line);
    if (n < 0) return {reply: {type: 'nil', value: null}, end: after};
    if (buffer.length < after + n + 2) return null;
    return {reply: {type: 'bulk', value: buffer.toString('utf8', after, after + n)},
      end: after + n + 2};
  }
  if (type === '*') {
    const n = Number(line);
    let at = after;
    const items = [];
    for (let k = 0; k < n; k++) {
      const item = parseReply(buffer, at);
      if (item === null) return null;
      items.push(item.reply);
      at = item.end;
    }
    return {reply: {type: 'array', value: items}, end: at};
  }
  return {reply: {type: 'error', value: `unparsable reply '${type}'`}, end: after};
}

let resourceSpec = null;
let resource = null;

// ---- grants ----------------------------------------------------------------------------------

// The grants the process holds: `current` is the one release, extend, check and the resource's
// commands act on ({lock, number, grantId, token, ...}: `lock` is the library's Lock, with its
// `value` and its `expiration`, a Date.now() timestamp in ms); re-entrant grants stack in `outer`
// (releasing the current one makes the one it re-entered current again).
const grants = {current: null, outer: [], leases: 0};

function wallDeadline(lock) {
  return {clock: 'wall', at_ns: BigInt(Math.trunc(lock.expiration)) * 1000000n};
}

// The current grant, no longer current: the one it re-entered is current again.
function popGrant() {
  const held = grants.current;
  grants.current = grants.outer.length ? grants.outer.pop() : null;
  return held;
}

// A new grant of `lock` (after `attempts` attempts) becomes current, is reported, and returned.
function granted(started, lock, attempts, extra) {
  if (grants.current) grants.outer.push(grants.current);
  const number = ++grants.leases;
  grants.current = Object.assign({lock, number, grantId: 0, token: null}, extra || {});
  emit({event: 'granted', start_mono_ns: started, attempts, lease: number,
    value: lock.value, deadline: wallDeadline(lock)});
  return grants.current;
}

// Answers a `release` with the outcome of the library's release: count() is countYes(release).
async function answerRelease(started, count) {
  try {
    const {yes} = await count();
    emit({event: 'released', start_mono_ns: started, nodes: yes, failure: ''});
  } catch (error) {
    emit({event: 'release_failed', start_mono_ns: started, nodes: error.yes || 0,
      failure: error.message});
  }
}

// ---- the resource ----------------------------------------------------------------------------

let lastRead = 0;

function resourceWords(words, withToken) {
  const current = grants.current;
  if (withToken && current && current.token !== null) words.push(String(current.token));
  words.push('GRANT', String(current ? current.grantId : 0));
  return words;
}

async function read(started, timeoutMs) {
  if (!resource) {
    emit({event: 'read', start_mono_ns: started, ok: false, text: 'no resource'});
    return;
  }
  const name = resourceSpec.name || 'register';
  const fencing = resourceSpec.fencing || 'none';
  if (fencing === 'compare-and-set') {
    const owner = grants.current ? grants.current.lock.value : '-';
    const set = await resource.send(resourceWords(['SETOWNER', name, owner], false), timeoutMs);
    if (set === null || set.type === 'error') {
      emit({event: 'read', start_mono_ns: started, ok: false, text: 'setowner failed'});
      return;
    }
  }
  const reply = await resource.send(resourceWords(['READ', name], fencing === 'fence-all'),
    timeoutMs);
  if (reply === null || reply.type !== 'integer') {
    emit({event: 'read', start_mono_ns: started, ok: false,
      text: reply === null ? 'read timed out' : `read refused: ${reply.value}`});
    return;
  }
  lastRead = reply.value;
  emit({event: 'read', start_mono_ns: started, ok: true, value: lastRead});
}

async function write(started, timeoutMs, value) {
  const v = value === null ? lastRead + 1 : value;
  const grantId = grants.current ? grants.current.grantId : 0;
  if (!resource) {
    emit({event: 'write', start_mono_ns: started, acknowledged: false, value: v,
      text: 'no resource'});
    return;
  }
  const name = resourceSpec.name || 'register';
  const fencing = resourceSpec.fencing || 'none';
  let words;
  if (fencing === 'compare-and-set') {
    const owner = grants.current ? grants.current.lock.value : '-';
    words = resourceWords(['WRITEIFOWNER', name, owner, String(v)], false);
  } else {
    words = resourceWords(['WRITE', name, String(v)], fencing !== 'none');
  }
  const reply = await resource.send(words, timeoutMs);
  const acknowledged = reply !== null && reply.type === 'status' && reply.value === 'OK';
  emit({event: 'write', start_mono_ns: started, acknowledged, grant: grantId, value: v,
    text: reply === null ? 'timeout' : String(reply.value)});
}

// ---- the command loop ------------------------------------------------------------------------

function check(started) {
  const current = grants.current;
  const expired = current === null || Date.now() >= current.lock.expiration;
  emit({event: 'checked', start_mono_ns: started, expired});
}

// lock: the driver's acquire(started), release(started, held) (held: the grant, already no
// longer current) and extend(started, held); `not held` is answered here.
async function serveLine(line, lock) {
  const words = line.trim().split(/\s+/);
  const verb = words[0];
  const started = monoNs();
  switch (verb) {
    case 'acquire': return lock.acquire(started);
    case 'release':
      if (!grants.current) {
        emit({event: 'release_failed', start_mono_ns: started, failure: 'not held'});
        return undefined;
      }
      return lock.release(started, popGrant());
    case 'extend':
      if (!grants.current) {
        emit({event: 'extend_failed', start_mono_ns: started, failure: 'not held'});
        return undefined;
      }
      return lock.extend(started, grants.current);
    case 'read': return read(started, words[1] !== undefined ? Number(words[1]) : 1000);
    case 'write':
      return write(started, words[1] !== undefined ? Number(words[1]) : 1000,
        words[2] !== undefined ? Number(words[2]) : null);
    case 'sleep':
      await new Promise((resolve) => setTimeout(resolve, Number(words[1] || 0)));
      emit({event: 'slept', start_mono_ns: started});
      return undefined;
    case 'check': return check(started);
    case 'grant':
      if (grants.current) {
        grants.current.grantId = Number(words[1] || 0);
        grants.current.token = words[2] !== undefined ? Number(words[2]) : null;
      }
      return undefined;
    case '':
      return undefined;
    default:
      emit({event: 'error', text: `unknown command '${verb}'`});
      return undefined;
  }
}

// Reads commands one at a time (the next only after the previous one's result), after `ready`.
function serve(profile, lock) {
  let queue = Promise.resolve();
  const input = readline.createInterface({input: process.stdin, terminal: false});
  input.on('line', (line) => {
    if (line.trim() === 'quit') process.exit(0);
    queue = queue.then(() => serveLine(line, lock)).catch((error) => {
      process.stderr.write(`${driverName} driver: ${error.stack || error}\n`);
      emit({event: 'error', text: String(error.message || error)});
    });
  });
  input.on('close', () => { queue.then(() => process.exit(0)); });

  emit({event: 'ready', profile: config.profile || profile});
}

module.exports = {
  start, emit, log, note, fatal, intParam, redlockParams, seedMathRandom, skipTokenWords,
  nodeClients, countYes, grants, wallDeadline, granted, answerRelease, serve,
};
