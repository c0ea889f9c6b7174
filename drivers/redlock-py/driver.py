"""redlock-sim driver for redlock-py (SPSCommerce, PyPI `redlock-py` 1.0.8, pinned in
requirements.txt; not the unrelated PyPI package `redlock`).

Uses the public API as the library's README shows it:
`dlm = Redlock([{"host": ..., "port": ...}, ...], retry_count=..., retry_delay=...)`,
`my_lock = dlm.lock(resource, ttl_ms)` (False when not acquired, or a namedtuple
Lock(validity, resource, key)), `dlm.unlock(my_lock)`. The library has no extend.

Deadline: the library returns its own validity, `int(ttl - elapsed - drift)` in ms, measured on
the wall clock (time.time()). The `granted` event reports it on the wall clock, counted from the
wall time at which lock() returned: {"clock": "wall", "at_ns": wall_ns_at_return + validity}.
That is the profile's start + ttl - drift, up to the sub-millisecond between the library's last
time.time() and the return.

Parameters: ttl_ms (default 10000); retry_count R -> the library's retry_count counts tries:
R + 1 for R > 0, and 0 for R = 0 (which the library's `retry_count or default` turns into 3
tries, as the profile models); R = -1 (forever) -> a very large count; retry_delay_ms_min ->
retry_delay (s); request_timeout_ms -> socket_timeout (default none, as the library's).
"""
import sys

import redis
from redlock import MultipleRedlockException, Redlock

import os

# The line protocol, shared by every Python driver.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
from protocol import Driver, param_int, param_ms, parse_args, wall_ns


class CountingRedis(redis.StrictRedis):
    """StrictRedis that counts SET NX calls: the number of attempts for the `granted` event."""

    attempts = 0

    def set(self, *args, **kwargs):
        if kwargs.get("nx"):
            self.attempts += 1
        return super().set(*args, **kwargs)


class RedlockPyDriver(Driver):
    profile = "redlock-py"

    def __init__(self, config):
        super().__init__(config)
        timeout_ms = param_ms(self.params, "request_timeout_ms", None)
        # Redlock accepts ready clients in its connection list ("server = connection_info");
        # protocol=2 and driver_info=None: a new connection sends no HELLO 3 (redis-py 8's
        # default) and no CLIENT SETINFO, only the lock's own commands, as the profile's.
        self.servers = [
            CountingRedis(host=n.get("host", "127.0.0.1"), port=n["port"],
                          socket_timeout=None if timeout_ms is None else timeout_ms / 1000.0,
                          protocol=2, driver_info=None)
            for n in self.lock_nodes]
        retries = param_int(self.params, "retry_count", 2)
        tries = 10 ** 9 if retries < 0 else (0 if retries == 0 else retries + 1)
        delay_ms = param_ms(self.params, "retry_delay_ms_min", 200)
        self.dlm = Redlock(self.servers, retry_count=tries, retry_delay=delay_ms / 1000.0)
        self.ttl_ms = param_ms(self.params, "ttl_ms", 10000)
        self.dlm.get_unique_id()  # warm up the token's random module before `ready`

    def acquire(self):
        for server in self.servers:
            server.attempts = 0
        try:
            lock = self.dlm.lock(self.lock_name, self.ttl_ms)
        except MultipleRedlockException as error:
            # A quorum with errors: raised without releasing the keys it set.
            return {"ok": False, "attempts": max(s.attempts for s in self.servers),
                    "failure": "error: MultipleRedlockException: %s" % error}
        returned = wall_ns()
        attempts = max(s.attempts for s in self.servers)
        if not lock:
            return {"ok": False, "attempts": attempts, "failure": "taken"}
        key = lock.key.decode() if isinstance(lock.key, bytes) else str(lock.key)
        return {"ok": True, "handle": lock, "value": key, "attempts": attempts,
                "deadline": {"clock": "wall", "at_ns": returned + lock.validity * 1_000_000},
                "extra": {"validity_ms": lock.validity}}

    def release(self, held):
        try:
            self.dlm.unlock(held.handle)
        except MultipleRedlockException as error:
            return {"ok": False, "nodes": 0, "failure": "error: %s" % error}
        # unlock() says nothing of how many servers deleted the key (it has no quorum).
        return {"ok": True, "nodes": len(self.servers), "failure": ""}

    def extend(self, held):
        return {"ok": False, "nodes": 0, "failure": "redlock-py has no extend"}


if __name__ == "__main__":
    RedlockPyDriver(parse_args(sys.argv)).serve()
