"""redlock-sim driver for pottery's `Redlock` (PyPI `pottery` 3.0.1 with redis 8.1.0; pinned in
requirements.txt).

Uses the public API as pottery's README and docstrings show it:
`lock = Redlock(key=name, masters={redis1, redis2, ...}, auto_release_time=seconds)`,
`lock.acquire(blocking=..., timeout=...)`, `lock.extend()`, `lock.release()`. One Redlock
instance per grant (pottery keeps the attempt's uuid on the instance).

Deadline: pottery computes a validity inside acquire() (art - (art*0.01 + 0.002) - elapsed, on
its monotonic ContextTimer) but returns only True; its extend() computes none. So the driver
computes what the profile computes and says so with "deadline_source": "profile":
{"clock": "monotonic", "at_ns": t1 + art - drift}, with t1 the CLOCK_MONOTONIC instant at which
the winning attempt sent its first SET (the SET calls are counted by a redis.Redis subclass;
pottery starts its timer just before them), and for an extension t1 the instant extend() was
called. The lock value reported is the winning attempt's uuid (pottery's `_uuid`, read only).

Parameters: ttl_ms -> auto_release_time (default 10 s); retry_count -1 (default) -> blocking
forever, 0 -> blocking=False, N > 0 -> blocking with timeout N * 0.1 s (pottery sleeps
uniform(0, 0.2 s) between tries); request_timeout_ms -> socket_timeout (default none).
pottery's retry delay and clock drift are constants of the class and are not overridden.
"""
import sys
import threading

import redis
from pottery import ExtendUnlockedLock, Redlock, ReleaseUnlockedLock, TooManyExtensions

import os

# The line protocol, shared by every Python driver.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
from protocol import Driver, mono_ns, param_int, param_ms, parse_args


class RecordingRedis(redis.Redis):
    """redis.Redis that notes when each SET NX was sent and with which value (pottery sends one
    per master per attempt, a new uuid per attempt): the attempts and the winning attempt's
    start for the profile's deadline."""

    def __init__(self, *args, journal, **kwargs):
        super().__init__(*args, **kwargs)
        self.journal = journal

    def set(self, name, value, *args, **kwargs):
        if kwargs.get("nx"):
            self.journal.note(value)
        return super().set(name, value, *args, **kwargs)


class Journal:
    def __init__(self):
        self.lock = threading.Lock()
        self.first_sent = {}  # value -> CLOCK_MONOTONIC of its first SET

    def note(self, value):
        now = mono_ns()
        with self.lock:
            self.first_sent.setdefault(value, now)

    def reset(self):
        with self.lock:
            self.first_sent.clear()


class PotteryDriver(Driver):
    profile = "pottery"

    def __init__(self, config):
        super().__init__(config)
        timeout_ms = param_ms(self.params, "request_timeout_ms", None)
        self.journal = Journal()
        # protocol=2 and driver_info=None: a new connection sends no HELLO 3 (redis-py 8's
        # default) and no CLIENT SETINFO, only the lock's own commands, as the profile's.
        self.masters = {
            RecordingRedis(host=n.get("host", "127.0.0.1"), port=n["port"],
                           socket_timeout=None if timeout_ms is None else timeout_ms / 1000.0,
                           protocol=2, driver_info=None, journal=self.journal)
            for n in self.lock_nodes}
        self.art = param_ms(self.params, "ttl_ms", 10000) / 1000.0
        retries = param_int(self.params, "retry_count", -1)
        self.blocking = retries != 0
        self.timeout = retries * 0.1 if retries > 0 else -1

    def drift_ns(self):
        return int((self.art * Redlock._CLOCK_DRIFT_FACTOR + .002) * 1e9)

    def acquire(self):
        lock = Redlock(key=self.lock_name, masters=self.masters, auto_release_time=self.art)
        self.journal.reset()
        if self.blocking:
            acquired = lock.acquire(blocking=True, timeout=self.timeout)
        else:
            acquired = lock.acquire(blocking=False)
        attempts = len(self.journal.first_sent)
        if not acquired:
            return {"ok": False, "attempts": attempts, "failure": "taken"}
        value = lock._uuid  # read only: the winning attempt's token
        t1 = self.journal.first_sent.get(value, mono_ns())
        return {"ok": True, "handle": lock, "value": value, "attempts": attempts,
                "deadline": {"clock": "monotonic",
                             "at_ns": t1 + int(self.art * 1e9) - self.drift_ns()},
                "extra": {"deadline_source": "profile"}}

    def release(self, held):
        try:
            held.handle.release()
        except ReleaseUnlockedLock as error:
            return {"ok": False, "nodes": 0, "failure": "not owner (%s)" % error}
        return {"ok": True, "nodes": len(self.masters) // 2 + 1, "failure": ""}

    def extend(self, held):
        t1 = mono_ns()
        try:
            held.handle.extend()
        except TooManyExtensions:
            return {"ok": False, "nodes": 0, "failure": "too many extensions"}
        except ExtendUnlockedLock as error:
            return {"ok": False, "nodes": 0, "failure": "not owner (%s)" % error}
        return {"ok": True, "nodes": len(self.masters) // 2 + 1, "failure": "",
                "deadline": {"clock": "monotonic",
                             "at_ns": t1 + int(self.art * 1e9) - self.drift_ns()}}


if __name__ == "__main__":
    PotteryDriver(parse_args(sys.argv)).serve()
