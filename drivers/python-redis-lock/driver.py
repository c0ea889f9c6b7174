"""redlock-sim driver for python-redis-lock (ionelmc, PyPI `python-redis-lock` 4.0.1, with redis
8.1.0; pinned in requirements.txt).

Uses the public API as the library's README shows it:
`lock = redis_lock.Lock(conn, name, expire=..., auto_renewal=...)`, `lock.acquire(blocking=...)`,
`lock.release()`, `lock.extend()`; a renewal period other than expire*2/3 is set as the
library's docstring says (a subclass sets `_lock_renewal_interval` after `__init__`).

Deadline: the library computes no validity (the holder holds until release), and neither does
the profile python-redis-lock (DeadlineModel::none): every `granted` and `extended` carries
{"clock": "none"}.

Watchdog (auto_renewal): the library's renewal thread is its own; it tells the holder nothing,
neither its renewals nor its death (a NotAcquired raised in it kills it silently: the
profile's `tells_holder = false`). The driver emits `watchdog_started` when a lock with
auto_renewal is granted and `watchdog_stopped` when that thread has ended (it watches the thread
the library keeps in `_lock_renewal_thread`, reading it only), so the run is not idle while it
runs; it never emits `renewed` or `lost`, as the profile's hidden watchdog does not.

Parameters: ttl_ms -> expire = int(ttl_ms / 1000) seconds (absent: None, no expiry, the
library's default); auto_extend -> auto_renewal (default false; and only when the harness's
`watchdog` is true); watchdog_period_ms -> the renewal interval; retry_count 0 -> blocking=False,
otherwise blocking (BLPOP on the signal list, as the library waits; N > 0 -> timeout of
N * expire seconds at least 1); request_timeout_ms -> socket_timeout (default none).
"""
import sys
import threading

import redis
import redis_lock

import os

# The line protocol, shared by every Python driver.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
from protocol import (Driver, deadline_none, emit, param_flag, param_int, param_ms, parse_args)


class CountingRedis(redis.StrictRedis):
    """StrictRedis that counts SET NX calls: the number of attempts for the `granted` event."""

    attempts = 0

    def set(self, *args, **kwargs):
        if kwargs.get("nx"):
            self.attempts += 1
        return super().set(*args, **kwargs)


class PeriodLock(redis_lock.Lock):
    """The library's documented way to renew at another interval than expire*2/3."""

    def __init__(self, *args, renewal_interval=None, **kwargs):
        super().__init__(*args, **kwargs)
        if renewal_interval is not None and self._lock_renewal_interval is not None:
            self._lock_renewal_interval = renewal_interval


class PythonRedisLockDriver(Driver):
    profile = "python-redis-lock"

    def __init__(self, config):
        super().__init__(config)
        node = self.lock_nodes[0]
        timeout_ms = param_ms(self.params, "request_timeout_ms", None)
        # protocol=2 and driver_info=None: a new connection sends no HELLO 3 (redis-py 8's
        # default) and no CLIENT SETINFO, only the lock's own commands, as the profile's.
        self.conn = CountingRedis(
            host=node.get("host", "127.0.0.1"), port=node["port"],
            socket_timeout=None if timeout_ms is None else timeout_ms / 1000.0,
            protocol=2, driver_info=None)
        ttl_ms = param_ms(self.params, "ttl_ms", 0)
        self.expire = int(ttl_ms / 1000) if ttl_ms > 0 else None
        self.auto_renewal = (param_flag(self.params, "auto_extend", False)
                             and bool(config.get("watchdog", True)) and self.expire is not None)
        period_ms = param_ms(self.params, "watchdog_period_ms", None)
        self.renewal_interval = None if period_ms is None else period_ms / 1000.0
        retries = param_int(self.params, "retry_count", -1)
        self.blocking = retries != 0
        self.timeout = max(retries * (self.expire or 1), 1) if retries > 0 else None

    def acquire(self):
        lock = PeriodLock(self.conn, self.lock_name, expire=self.expire,
                          auto_renewal=self.auto_renewal,
                          renewal_interval=self.renewal_interval)
        self.conn.attempts = 0
        if self.blocking:
            acquired = lock.acquire(blocking=True, timeout=self.timeout)
        else:
            acquired = lock.acquire(blocking=False)
        if not acquired:
            return {"ok": False, "attempts": self.conn.attempts, "failure": "taken"}
        return {"ok": True, "handle": lock, "value": lock.id, "deadline": deadline_none(),
                "attempts": self.conn.attempts}

    def after_grant(self, held):
        thread = held.handle._lock_renewal_thread  # read only: to say when it has ended
        if thread is None:
            return
        emit({"event": "watchdog_started", "lease": held.number})

        def watch():
            thread.join()
            emit({"event": "watchdog_stopped", "lease": held.number})

        threading.Thread(target=watch, daemon=True).start()

    def release(self, held):
        try:
            held.handle.release()
        except redis_lock.NotAcquired:
            return {"ok": False, "nodes": 0, "failure": "not owner"}
        except redis.RedisError as error:
            return {"ok": False, "nodes": 0, "failure": "error: %s" % error}
        return {"ok": True, "nodes": 1, "failure": ""}

    def extend(self, held):
        try:
            held.handle.extend()
        except redis_lock.NotAcquired:
            return {"ok": False, "nodes": 0, "failure": "not owner"}
        except (redis_lock.NotExpirable, TypeError) as error:
            return {"ok": False, "nodes": 0, "failure": str(error)}
        except redis.RedisError as error:
            return {"ok": False, "nodes": 0, "failure": "error: %s" % error}
        return {"ok": True, "nodes": 1, "failure": "", "deadline": deadline_none()}


if __name__ == "__main__":
    PythonRedisLockDriver(parse_args(sys.argv)).serve()
