"""The redlock-sim real-mode line protocol for a Python lock library (docs/real-mode.md).

Commands come one per line on standard input; events go out as JSON lines on standard output,
stamped with CLOCK_MONOTONIC (time.monotonic_ns) and the process's CLOCK_REALTIME
(time.time_ns, which goes through libc's clock_gettime, so the harness's clock shim moves it).
The reference implementation is cli/client_command.cpp; a driver subclasses Driver and fills in
acquire/release/extend with the library's public API. The same file is copied into each Python
driver folder so that every driver stands alone.
"""
import json
import socket
import sys
import threading
import time


def mono_ns():
    return time.monotonic_ns()


def wall_ns():
    return time.time_ns()


_out_lock = threading.Lock()


def emit(event):
    """Writes one event (thread-safe: watchdog threads emit too)."""
    event["mono_ns"] = mono_ns()
    event["wall_ns"] = wall_ns()
    line = json.dumps(event) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def parse_args(argv):
    if len(argv) != 3 or argv[1] != "--config":
        sys.stderr.write("usage: driver --config JSON\n")
        sys.exit(2)
    return json.loads(argv[2])


def param_ms(params, key, default):
    """A duration override in ms (params arrive as strings or numbers), or default."""
    if key not in params:
        return default
    return int(float(params[key]))


def param_int(params, key, default):
    if key not in params:
        return default
    return int(float(params[key]))


def param_flag(params, key, default):
    if key not in params:
        return default
    value = params[key]
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("1", "true", "yes", "on")


def deadline_none():
    return {"clock": "none"}


class Resp:
    """A minimal RESP client for the harness's resource (READ, WRITE, SETOWNER, WRITEIFOWNER).

    A request that times out drops its connection; the next request opens a new one (as the
    built-in client's real port does), so a held or lost message never blocks the ones after."""

    def __init__(self, host, port):
        self.host = host
        self.port = port
        self.sock = None
        self.buf = b""

    def _close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.buf = b""

    def _line(self, deadline):
        while b"\r\n" not in self.buf:
            self._fill(deadline)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout()
        self.sock.settimeout(remaining)
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buf += chunk

    def _reply(self, deadline):
        line = self._line(deadline)
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
            while len(self.buf) < n + 2:
                self._fill(deadline)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return ("bulk", data.decode())
        if kind == b"*":
            n = int(rest)
            return ("array", [self._reply(deadline) for _ in range(max(n, 0))])
        raise ConnectionError("bad reply")

    def call(self, args, timeout_ms):
        """Returns (kind, value), or None when no reply came within timeout_ms."""
        deadline = time.monotonic() + timeout_ms / 1000.0
        try:
            if self.sock is None:
                self.sock = socket.create_connection(
                    (self.host, self.port), timeout=max(deadline - time.monotonic(), 0.001))
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            parts = [b"*%d\r\n" % len(args)]
            for a in args:
                b = str(a).encode()
                parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
            self.sock.sendall(b"".join(parts))
            return self._reply(deadline)
        except (OSError, ConnectionError, ValueError):
            self._close()
            return None


class Held:
    """One grant: the library's lock object, and what the harness told us about it."""

    def __init__(self, handle, value, number, deadline):
        self.handle = handle
        self.value = value
        self.number = number
        self.deadline = deadline
        self.grant_id = 0
        self.fencing_token = None


# ---- the resource's requests and the events that report them (sync and asyncio drivers) ----

def _with_metadata(held, args, with_token):
    if with_token and held is not None and held.fencing_token is not None:
        args.append(str(held.fencing_token))
    return args + ["GRANT", str(held.grant_id if held is not None else 0)]


def set_owner_args(resource, held):
    """The SETOWNER that precedes a read under compare-and-set, or None."""
    if resource.get("fencing", "none") != "compare-and-set":
        return None
    owner = held.value if held is not None else "-"
    return _with_metadata(held, ["SETOWNER", resource.get("name", "register"), owner], False)


def read_args(resource, held):
    fenced = resource.get("fencing", "none") == "fence-all"
    return _with_metadata(held, ["READ", resource.get("name", "register")], fenced)


def write_args(resource, held, value):
    name = resource.get("name", "register")
    fencing = resource.get("fencing", "none")
    if fencing == "compare-and-set":
        owner = held.value if held is not None else "-"
        return _with_metadata(held, ["WRITEIFOWNER", name, owner, str(value)], False)
    return _with_metadata(held, ["WRITE", name, str(value)], fencing != "none")


def emit_read(started, reply, last_read):
    """Emits the `read` event for a reply (None: timed out); returns the value now last read."""
    if reply is None or reply[0] != "integer":
        text = "read timed out" if reply is None else "read refused: %s" % (reply[1],)
        emit({"event": "read", "start_mono_ns": started, "ok": False, "text": text})
        return last_read
    emit({"event": "read", "start_mono_ns": started, "ok": True, "value": reply[1]})
    return reply[1]


def emit_write(started, reply, grant_id, value):
    acknowledged = reply is not None and reply[0] == "status" and reply[1] == "OK"
    text = "timeout" if reply is None else str(reply[1])
    emit({"event": "write", "start_mono_ns": started, "acknowledged": acknowledged,
          "grant": grant_id, "value": value, "text": text})


def emit_no_resource(started, kind, value=None):
    event = {"event": kind, "start_mono_ns": started, "text": "no resource"}
    if kind == "read":
        event["ok"] = False
    else:
        event.update({"acknowledged": False, "value": value})
    emit(event)


def emit_set_owner_failed(started):
    emit({"event": "read", "start_mono_ns": started, "ok": False, "text": "setowner failed"})


class Driver:
    """The command loop. Subclasses implement:
      profile                        the profile name for `ready`
      acquire() -> dict              {"ok": True, "handle", "value", "deadline", "attempts"} or
                                     {"ok": False, "attempts", "failure"}
      release(held) -> dict          {"ok", "nodes", "failure"}
      extend(held) -> dict           {"ok", "nodes", "failure", "deadline"}
      after_grant(held)              optional: start the library's watchdog
    """

    profile = "?"

    def __init__(self, config):
        self.config = config
        self.params = config.get("params", {}) or {}
        self.lock_name = config.get("lock", "lock")
        self.lock_nodes = [n for n in config["nodes"] if n.get("name") != "counter"]
        self.resource = config.get("resource")
        self.resp = (Resp(self.resource.get("host", "127.0.0.1"), self.resource["port"])
                     if self.resource else None)
        # Warm up what the first connection would otherwise load after `ready` (socket's name
        # resolution imports the idna codec: milliseconds the scenarios' timings cannot absorb).
        for node in config["nodes"] + ([self.resource] if self.resource else []):
            socket.getaddrinfo(node.get("host", "127.0.0.1"), node["port"], 0, socket.SOCK_STREAM)
        self.current = None
        self.outer = []
        self.leases = 0
        self.last_read = 0

    # -- the loop --
    def serve(self):
        emit({"event": "ready", "profile": self.profile})
        for raw in sys.stdin:
            line = raw.strip()
            if line == "quit":
                break
            words = line.split()
            if not words:
                continue
            verb = words[0]
            started = mono_ns()
            if verb == "acquire":
                self.cmd_acquire(started)
            elif verb == "release":
                self.cmd_release(started)
            elif verb == "extend":
                self.cmd_extend(started)
            elif verb == "read":
                timeout = int(words[1]) if len(words) > 1 else 1000
                self.cmd_read(started, timeout)
            elif verb == "write":
                timeout = int(words[1]) if len(words) > 1 else 1000
                value = int(words[2]) if len(words) > 2 else None
                self.cmd_write(started, timeout, value)
            elif verb == "sleep":
                ms = int(words[1]) if len(words) > 1 else 0
                time.sleep(ms / 1000.0)
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
        self.shutdown()

    def shutdown(self):
        pass

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

    def cmd_acquire(self, started):
        try:
            r = self.acquire()
        except Exception as error:  # the library raised: the acquisition failed
            log("acquire raised %r" % (error,))
            r = {"ok": False, "attempts": 0, "failure": "%s: %s" % (type(error).__name__, error)}
        if not r["ok"]:
            emit({"event": "acquire_failed", "start_mono_ns": started,
                  "attempts": r.get("attempts", 0), "failure": r.get("failure", "taken")})
            return
        if self.current is not None:
            self.outer.append(self.current)
        self.leases += 1
        held = Held(r["handle"], r["value"], self.leases, r["deadline"])
        self.current = held
        event = {"event": "granted", "start_mono_ns": started, "attempts": r.get("attempts", 1),
                 "lease": held.number, "value": held.value, "deadline": held.deadline}
        event.update(r.get("extra", {}))
        emit(event)
        self.after_grant(held)

    def after_grant(self, held):
        pass

    def cmd_release(self, started):
        held = self.current
        if held is None:
            emit({"event": "release_failed", "start_mono_ns": started, "nodes": 0,
                  "failure": "not held"})
            return
        self.current = self.outer.pop() if self.outer else None
        try:
            r = self.release(held)
        except Exception as error:
            log("release raised %r" % (error,))
            r = {"ok": False, "nodes": 0, "failure": "%s: %s" % (type(error).__name__, error)}
        emit({"event": "released" if r["ok"] else "release_failed", "start_mono_ns": started,
              "nodes": r.get("nodes", 0), "failure": r.get("failure", "")})

    def cmd_extend(self, started):
        held = self.current
        if held is None:
            emit({"event": "extend_failed", "start_mono_ns": started, "nodes": 0,
                  "failure": "not held"})
            return
        try:
            r = self.extend(held)
        except Exception as error:
            log("extend raised %r" % (error,))
            r = {"ok": False, "nodes": 0, "failure": "%s: %s" % (type(error).__name__, error)}
        event = {"event": "extended" if r["ok"] else "extend_failed", "start_mono_ns": started,
                 "nodes": r.get("nodes", 0), "failure": r.get("failure", "")}
        if r["ok"]:
            held.deadline = r["deadline"]
            event["deadline"] = r["deadline"]
        emit(event)

    # -- the resource --
    def cmd_read(self, started, timeout_ms):
        if self.resp is None:
            emit_no_resource(started, "read")
            return
        set_owner = set_owner_args(self.resource, self.current)
        if set_owner is not None:
            reply = self.resp.call(set_owner, timeout_ms)
            if reply is None or reply[0] == "error":
                emit_set_owner_failed(started)
                return
        reply = self.resp.call(read_args(self.resource, self.current), timeout_ms)
        self.last_read = emit_read(started, reply, self.last_read)

    def cmd_write(self, started, timeout_ms, value):
        v = value if value is not None else self.last_read + 1
        grant_id = self.current.grant_id if self.current is not None else 0
        if self.resp is None:
            emit_no_resource(started, "write", v)
            return
        reply = self.resp.call(write_args(self.resource, self.current, v), timeout_ms)
        emit_write(started, reply, grant_id, v)
