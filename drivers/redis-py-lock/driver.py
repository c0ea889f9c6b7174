"""redlock-sim driver for redis-py's `Lock` (PyPI `redis`, pinned in requirements.txt).

Uses the public API as redis-py's docs show it: `r = redis.Redis(host, port)`,
`lock = r.lock(name, timeout=..., sleep=0.1, blocking=..., blocking_timeout=...)`,
`lock.acquire()`, `lock.release()`, `lock.extend(seconds)` (adds to the remaining TTL, the
library's default, as the profile models).

Deadline: redis-py computes no validity (the caller holds until release), and so does the
profile redis-py-lock (DeadlineModel::none): every `granted` carries {"clock": "none"}.

Parameters (the scenario's `params`): ttl_ms -> timeout (absent: None, a key without expiry, the
library's default); retry_count -> -1 (default) blocks forever, 0 -> blocking=False, N > 0 ->
blocking_timeout = N * sleep (N polls after the first); retry_delay_ms_min -> sleep (default
0.1 s); request_timeout_ms -> socket_timeout (default None, as the library's).
"""
import sys
import uuid

import redis
from redis.exceptions import LockError, LockNotOwnedError

import os

# The line protocol, shared by every Python driver.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
from protocol import Driver, deadline_none, param_int, param_ms, parse_args


class CountingRedis(redis.Redis):
    """redis.Redis that counts SET NX calls: the number of attempts for the `granted` event."""

    attempts = 0

    def set(self, *args, **kwargs):
        if kwargs.get("nx"):
            self.attempts += 1
        return super().set(*args, **kwargs)


class RedisPyLockDriver(Driver):
    profile = "redis-py-lock"

    def __init__(self, config):
        super().__init__(config)
        node = self.lock_nodes[0]
        timeout_ms = param_ms(self.params, "request_timeout_ms", None)
        self.redis = CountingRedis(
            host=node.get("host", "127.0.0.1"), port=node["port"],
            socket_timeout=None if timeout_ms is None else timeout_ms / 1000.0,
            protocol=2, driver_info=None)
        # protocol=2 and driver_info=None: a new connection sends no HELLO 3 (redis-py 8's
        # default) and no CLIENT SETINFO, only the lock's own commands, as the profile's
        # client does (a handshake costs a round trip the scenarios' delays would multiply).
        # Warm up before `ready`: the first uuid1() (the lock's token) takes ~10 ms in a fresh
        # interpreter, which the shrunk scenarios' millisecond timings cannot absorb.
        uuid.uuid1()
        ttl_ms = param_ms(self.params, "ttl_ms", 0)
        self.timeout = ttl_ms / 1000.0 if ttl_ms > 0 else None
        self.sleep = param_ms(self.params, "retry_delay_ms_min", 100) / 1000.0
        retries = param_int(self.params, "retry_count", -1)
        self.blocking = retries != 0
        self.blocking_timeout = retries * self.sleep if retries > 0 else None

    def acquire(self):
        lock = self.redis.lock(self.lock_name, timeout=self.timeout, sleep=self.sleep,
                               blocking=self.blocking, blocking_timeout=self.blocking_timeout)
        self.redis.attempts = 0
        if not lock.acquire():
            return {"ok": False, "attempts": self.redis.attempts, "failure": "taken"}
        token = lock.local.token
        value = token.decode() if isinstance(token, bytes) else str(token)
        return {"ok": True, "handle": lock, "value": value, "deadline": deadline_none(),
                "attempts": self.redis.attempts}

    def release(self, held):
        try:
            held.handle.release()
        except LockNotOwnedError:
            return {"ok": False, "nodes": 0, "failure": "not owner"}
        except LockError as error:
            return {"ok": False, "nodes": 0, "failure": str(error)}
        except redis.RedisError as error:
            return {"ok": False, "nodes": 0, "failure": "error: %s" % error}
        return {"ok": True, "nodes": 1, "failure": ""}

    def extend(self, held):
        try:
            held.handle.extend(self.timeout if self.timeout is not None else 0)
        except LockNotOwnedError:
            return {"ok": False, "nodes": 0, "failure": "not owner"}
        except LockError as error:
            return {"ok": False, "nodes": 0, "failure": str(error)}
        except redis.RedisError as error:
            return {"ok": False, "nodes": 0, "failure": "error: %s" % error}
        return {"ok": True, "nodes": 1, "failure": "", "deadline": deadline_none()}


if __name__ == "__main__":
    RedisPyLockDriver(parse_args(sys.argv)).serve()
