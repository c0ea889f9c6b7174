"""redlock-sim driver for aioredlock (PyPI `aioredlock` 0.7.3 with aioredis 1.3.1; pinned in
requirements.txt).

Uses the public API as aioredlock's README shows it, on one asyncio event loop:
`lock_manager = Aioredlock([{"host": ..., "port": ...}, ...], retry_count=...,
retry_delay_min=..., retry_delay_max=..., internal_lock_timeout=...)`,
`lock = await lock_manager.lock(resource)` (no lock_timeout: the library's watchdog extends the
lock every 0.6 * internal_lock_timeout) or `await lock_manager.lock(resource, lock_timeout=s)`,
`await lock_manager.extend(lock)`, `await lock_manager.unlock(lock)`. Commands are read from
standard input without blocking the loop (loop.connect_read_pipe), so the library's watchdog
runs while a command waits; the resource is reached with asyncio streams for the same reason.

Deadline: aioredlock checks `lease - elapsed - drift > 0` (monotonic) inside lock() and extend()
but returns no validity. With its watchdog (auto_extend, the default) the profile hides the
deadline (the holder holds until told): {"clock": "none"}. Without it (auto_extend false), the
driver computes what the profile computes, marked "deadline_source": "profile":
{"clock": "monotonic", "at_ns": t1 + lease - (lease*0.01 + 2 ms)}, with t1 the CLOCK_MONOTONIC
instant at which the winning attempt began (the library's Redis.set_lock, which takes its own
start time first thing, is wrapped to note when each attempt began; it changes nothing else).

Watchdog events: `watchdog_started` when a lock with the watchdog is granted; `renewed`
(deadline none) after each renewal the watchdog made; when a renewal fails the library unlocks,
marks the lock invalid (lock.valid = False, which the holder can see) and keeps its task
rescheduling without sending anything: the driver then emits `lost` and `watchdog_stopped`.
The watchdog's own calls are seen by wrapping lock_manager.extend on the instance (the driver's
own `extend` command calls the library's method directly).

`nodes` in released/extended is the quorum the library required (it does not say how many
instances answered).

Parameters: ttl_ms -> internal_lock_timeout with the watchdog, lock_timeout without it (default
10 s); auto_extend (default true; and only when the harness's `watchdog` is true);
retry_count R (retries after the first) -> the library's retry_count R + 1 tries (at least 1;
-1: a very large count); retry_delay_ms_min / retry_jitter_ms -> retry_delay_min and
retry_delay_max = min + jitter (defaults 0.1 and 0.3 s). request_timeout_ms has no counterpart:
aioredlock sets no command timeout (asyncio.gather waits for every instance), as the profile's
1 h models; watchdog_period_ms neither (the library fixes 0.6 * internal_lock_timeout).
"""
import asyncio
import socket
import sys

from aioredlock import Aioredlock, LockError

import os

# The line protocol, shared by every Python driver.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
from protocol import (Held, deadline_none, emit, emit_no_resource, emit_read,
                      emit_set_owner_failed, emit_write, log, mono_ns, param_flag, param_int,
                      param_ms, parse_args, read_args, set_owner_args, wall_ns, write_args)


class AsyncResp:
    """The harness's resource over asyncio streams; a timed-out request drops its connection."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    def _close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def _reply(self):
        line = (await self.reader.readuntil(b"\r\n"))[:-2]
        kind, rest = line[:1], line[1:].decode()
        if kind == b"+":
            return ("status", rest)
        if kind == b"-":
            return ("error", rest)
        if kind == b":":
            return ("integer", int(rest))
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return ("nil", None)
            data = await self.reader.readexactly(n + 2)
            return ("bulk", data[:-2].decode())
        if kind == b"*":
            return ("array", [await self._reply() for _ in range(max(int(rest), 0))])
        raise ConnectionError("bad reply")

    async def _call(self, args):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            b = str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
        self.writer.write(b"".join(parts))
        await self.writer.drain()
        return await self._reply()

    async def call(self, args, timeout_ms):
        try:
            return await asyncio.wait_for(self._call(args), timeout_ms / 1000.0)
        except (asyncio.TimeoutError, OSError, ConnectionError, ValueError,
                asyncio.IncompleteReadError):
            self._close()
            return None


class AioredlockDriver:
    profile = "aioredlock"

    def __init__(self, config):
        self.config = config
        self.params = config.get("params", {}) or {}
        if param_ms(self.params, "request_timeout_ms", 3_600_000) < 3_600_000:
            # The library has none: staging the file anyway would compare two different locks.
            log("aioredlock sets no command timeout: request_timeout_ms cannot be staged")
            sys.exit(2)
        self.lock_name = config.get("lock", "lock")
        nodes = [n for n in config["nodes"] if n.get("name") != "counter"]
        self.resource = config.get("resource")
        # Warm up what a first connection would load after `ready` (the idna codec).
        for node in config["nodes"] + ([self.resource] if self.resource else []):
            socket.getaddrinfo(node.get("host", "127.0.0.1"), node["port"], 0, socket.SOCK_STREAM)
        self.resp = (AsyncResp(self.resource.get("host", "127.0.0.1"), self.resource["port"])
                     if self.resource else None)
        self.watchdog = (param_flag(self.params, "auto_extend", True)
                         and bool(config.get("watchdog", True)))
        lease = param_ms(self.params, "ttl_ms", 10000) / 1000.0
        retries = param_int(self.params, "retry_count", 2)
        tries = 10 ** 9 if retries < 0 else max(retries + 1, 1)
        delay_min = param_ms(self.params, "retry_delay_ms_min", 100) / 1000.0
        jitter = param_ms(self.params, "retry_jitter_ms", 200) / 1000.0
        self.lease = lease
        self.manager = Aioredlock(
            [{"host": n.get("host", "127.0.0.1"), "port": n["port"]} for n in nodes],
            retry_count=tries, retry_delay_min=delay_min, retry_delay_max=delay_min + jitter,
            internal_lock_timeout=lease if self.watchdog else 10.0)
        self.lock_timeout = None if self.watchdog else lease
        # Note each attempt's start (the library's Redis.set_lock reads time.monotonic() first).
        self.attempts = []
        library_set_lock = self.manager.redis.set_lock

        async def set_lock(*args, **kwargs):
            self.attempts.append(mono_ns())
            return await library_set_lock(*args, **kwargs)

        self.manager.redis.set_lock = set_lock
        # The watchdog's renewals: it calls self.extend(lock) on the manager.
        self.library_extend = self.manager.extend
        self.watched = {}  # id(lock) -> Held, for locks whose watchdog is running

        async def watchdog_extend(lock, lock_timeout=None):
            held = self.watched.get(id(lock))
            try:
                await self.library_extend(lock, lock_timeout)
            except BaseException as error:
                if held is not None and not lock.valid:
                    del self.watched[id(lock)]
                    emit({"event": "lost", "lease": held.number,
                          "reason": "renewal failed: %s: %s" % (type(error).__name__, error)})
                    emit({"event": "watchdog_stopped", "lease": held.number})
                raise
            if held is not None:
                emit({"event": "renewed", "lease": held.number, "deadline": deadline_none()})

        self.manager.extend = watchdog_extend
        self.current = None
        self.outer = []
        self.leases = 0
        self.last_read = 0

    def drift_ns(self, lease):
        return int((lease * 0.01 + 0.002) * 1e9)

    def expired(self):
        held = self.current
        if held is None:
            return True
        d = held.deadline
        if d.get("clock") == "monotonic":
            return mono_ns() >= d["at_ns"]
        if d.get("clock") == "wall":
            return wall_ns() >= d["at_ns"]
        return False

    async def serve(self):
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        emit({"event": "ready", "profile": self.profile})
        while True:
            raw = await reader.readline()
            if not raw:
                break
            line = raw.decode().strip()
            if line == "quit":
                break
            words = line.split()
            if not words:
                continue
            verb = words[0]
            started = mono_ns()
            if verb == "acquire":
                await self.cmd_acquire(started)
            elif verb == "release":
                await self.cmd_release(started)
            elif verb == "extend":
                await self.cmd_extend(started)
            elif verb == "read":
                await self.cmd_read(started, int(words[1]) if len(words) > 1 else 1000)
            elif verb == "write":
                await self.cmd_write(started, int(words[1]) if len(words) > 1 else 1000,
                                     int(words[2]) if len(words) > 2 else None)
            elif verb == "sleep":
                await asyncio.sleep((int(words[1]) if len(words) > 1 else 0) / 1000.0)
                emit({"event": "slept", "start_mono_ns": started})
            elif verb == "check":
                emit({"event": "checked", "start_mono_ns": started, "expired": self.expired()})
            elif verb == "grant":
                if self.current is not None:
                    self.current.grant_id = int(words[1]) if len(words) > 1 else 0
                    if len(words) > 2:
                        self.current.fencing_token = int(words[2])
            else:
                emit({"event": "error", "text": "unknown command '%s'" % verb})

    async def cmd_acquire(self, started):
        self.attempts = []
        try:
            lock = await self.manager.lock(self.lock_name, lock_timeout=self.lock_timeout)
        except (LockError, Exception) as error:
            log("lock() raised %r" % (error,))
            emit({"event": "acquire_failed", "start_mono_ns": started,
                  "attempts": len(self.attempts),
                  "failure": "%s: %s" % (type(error).__name__, error)})
            return
        t1 = self.attempts[-1] if self.attempts else started
        if self.watchdog:
            deadline = deadline_none()
            extra = {}
        else:
            deadline = {"clock": "monotonic",
                        "at_ns": t1 + int(self.lease * 1e9) - self.drift_ns(self.lease)}
            extra = {"deadline_source": "profile"}
        if self.current is not None:
            self.outer.append(self.current)
        self.leases += 1
        held = Held(lock, lock.id, self.leases, deadline)
        self.current = held
        event = {"event": "granted", "start_mono_ns": started, "attempts": len(self.attempts),
                 "lease": held.number, "value": lock.id, "deadline": deadline}
        event.update(extra)
        emit(event)
        if self.watchdog:
            self.watched[id(lock)] = held
            emit({"event": "watchdog_started", "lease": held.number})

    async def cmd_release(self, started):
        held = self.current
        if held is None:
            emit({"event": "release_failed", "start_mono_ns": started, "nodes": 0,
                  "failure": "not held"})
            return
        self.current = self.outer.pop() if self.outer else None
        watching = self.watched.pop(id(held.handle), None) is not None
        try:
            await self.manager.unlock(held.handle)
            result = {"event": "released", "nodes": len(self.manager.redis.instances) // 2 + 1,
                      "failure": ""}
        except (LockError, Exception) as error:
            log("unlock() raised %r" % (error,))
            result = {"event": "release_failed", "nodes": 0,
                      "failure": "%s: %s" % (type(error).__name__, error)}
        if watching:
            emit({"event": "watchdog_stopped", "lease": held.number})
        result["start_mono_ns"] = started
        emit(result)

    async def cmd_extend(self, started):
        held = self.current
        if held is None:
            emit({"event": "extend_failed", "start_mono_ns": started, "nodes": 0,
                  "failure": "not held"})
            return
        self.attempts = []
        try:
            await self.library_extend(held.handle)
        except (LockError, Exception) as error:
            log("extend() raised %r" % (error,))
            emit({"event": "extend_failed", "start_mono_ns": started, "nodes": 0,
                  "failure": "%s: %s" % (type(error).__name__, error)})
            return
        lease = held.handle.lock_timeout or self.manager.internal_lock_timeout
        t1 = self.attempts[-1] if self.attempts else started
        if self.watchdog:
            deadline = deadline_none()
        else:
            deadline = {"clock": "monotonic",
                        "at_ns": t1 + int(lease * 1e9) - self.drift_ns(lease)}
        held.deadline = deadline
        emit({"event": "extended", "start_mono_ns": started,
              "nodes": len(self.manager.redis.instances) // 2 + 1, "failure": "",
              "deadline": deadline})

    # The same requests and events as protocol.Driver's, awaited on the loop.
    async def cmd_read(self, started, timeout_ms):
        if self.resp is None:
            emit_no_resource(started, "read")
            return
        set_owner = set_owner_args(self.resource, self.current)
        if set_owner is not None:
            reply = await self.resp.call(set_owner, timeout_ms)
            if reply is None or reply[0] == "error":
                emit_set_owner_failed(started)
                return
        reply = await self.resp.call(read_args(self.resource, self.current), timeout_ms)
        self.last_read = emit_read(started, reply, self.last_read)

    async def cmd_write(self, started, timeout_ms, value):
        v = value if value is not None else self.last_read + 1
        grant_id = self.current.grant_id if self.current is not None else 0
        if self.resp is None:
            emit_no_resource(started, "write", v)
            return
        reply = await self.resp.call(write_args(self.resource, self.current, v), timeout_ms)
        emit_write(started, reply, grant_id, v)


async def main():
    driver = AioredlockDriver(parse_args(sys.argv))
    await driver.serve()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore", DeprecationWarning)  # aioredis 1.x on Python 3.11
    asyncio.run(main())
    sys.stdout.flush()
