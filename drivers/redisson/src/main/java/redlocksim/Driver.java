package redlocksim;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redisson driver of real-process mode: Redisson's own RLock, RedissonRedLock and RFencedLock
 * in place of the profiles redisson-rlock, redisson-redlock and redisson-fencedlock. It speaks the
 * line protocol of docs/real-mode.md (commands on standard input, one JSON event per line on
 * standard output stamped with CLOCK_MONOTONIC) and uses only Redisson's public API, as its
 * documentation shows it:
 *
 * <pre>
 *   RLock lock = redisson.getLock("lock");      lock.lock();  lock.lock(leaseTime, MILLISECONDS);
 *                                               lock.tryLock(waitTime[, leaseTime], MILLISECONDS);
 *   RFencedLock f = redisson.getFencedLock(..); Long token = f.lockAndGetToken([leaseTime, unit]);
 *                                               f.tryLockAndGetToken(waitTime, leaseTime, unit);
 *   RLock redLock = new RedissonRedLock(lock1, lock2, lock3);   // one RedissonClient per node
 *   redLock.lock(); redLock.lock(leaseTime, MILLISECONDS);  ...  unlock();
 * </pre>
 *
 * Deadlines. Redisson computes no validity on the client: RLock and RFencedLock without a lease
 * time hold until unlock while the watchdog renews the key (every lockWatchdogTimeout/3 = 10 s,
 * dropping a lost lock silently), so `granted` says {"clock": "none"} as the profile does. With a
 * lease time (params.lease_ms) the profile's deadline is used: CLOCK_MONOTONIC at the start of the
 * acquire command plus the lease ({"clock": "monotonic", ..., "deadline_source": "profile"}); for
 * RedissonRedLock the instant lock() returned plus the lease. The watchdog is silent in Redisson
 * and in the profiles, so the driver never writes `renewed` or `lost`; it writes
 * `watchdog_started` for a grant that Redisson renews and `watchdog_stopped` when it is released.
 *
 * Every lock command runs on the main thread: Redisson ties a lock to the thread that took it
 * (the hash field is "<client id>:<thread id>"), so unlock must come from the same thread.
 */
public final class Driver {
  private static final OutputStream OUT =
      new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);

  /** Writes one event as one whole line, stamped inside the lock so lines are in time order. */
  static void emit(Map<String, Object> event) {
    synchronized (OUT) {
      event.put("mono_ns", System.nanoTime());
      Instant wall = Instant.now();
      event.put("wall_ns", wall.getEpochSecond() * 1_000_000_000L + wall.getNano());
      byte[] line = (Json.write(event) + "\n").getBytes(StandardCharsets.UTF_8);
      try {
        OUT.write(line);
        OUT.flush();
      } catch (java.io.IOException e) {
        Runtime.getRuntime().halt(0);  // the harness went away
      }
    }
  }

  static Map<String, Object> event(String kind, Object... fields) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("event", kind);
    for (int i = 0; i + 1 < fields.length; i += 2) e.put((String) fields[i], fields[i + 1]);
    return e;
  }

  static void log(String text) {
    System.err.println("[driver] " + text);
    System.err.flush();
  }

  // ---- configuration ----

  private final String profile;
  private final String lockName;
  private final boolean watchdogWanted;
  private final Map<String, String> params = new LinkedHashMap<>();
  private final List<String[]> nodes = new ArrayList<>();  // name, host, port
  private final String resourceName;
  private final String fencing;
  private final Resource resource;

  // ---- the library ----

  private final List<RedissonClient> clients = new ArrayList<>();
  private RLock lock;  // RLock, RFencedLock or RedissonRedLock
  private final long leaseMs;
  private final long waitMs;

  // ---- the current grant, as cli/client_command.cpp keeps it ----

  /** One grant this process holds (re-entrant grants stack). */
  private static final class Held {
    long number;
    long grantId;
    Long token;
    Map<String, Object> deadline;  // the `deadline` object of `granted`
    long deadlineMonoNs = Long.MAX_VALUE;
    boolean watchdog;
  }

  private Held current;
  private final Deque<Held> outer = new ArrayDeque<>();
  private long grantId;
  private Long fencingToken;
  private long leases;
  private long lastRead;

  @SuppressWarnings("unchecked")
  private Driver(Map<String, Object> config) {
    profile = (String) config.get("profile");
    lockName = config.containsKey("lock") ? (String) config.get("lock") : "lock";
    watchdogWanted = !Boolean.FALSE.equals(config.get("watchdog"));
    Object p = config.get("params");
    if (p instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) params.put((String) e.getKey(), String.valueOf(e.getValue()));
    }
    for (Object n : (List<Object>) config.get("nodes")) {
      Map<String, Object> node = (Map<String, Object>) n;
      nodes.add(new String[] {(String) node.get("name"),
          node.containsKey("host") ? (String) node.get("host") : "127.0.0.1",
          String.valueOf(node.get("port"))});
    }
    Map<String, Object> r = (Map<String, Object>) config.get("resource");
    if (r != null) {
      resourceName = r.containsKey("name") ? (String) r.get("name") : "register";
      fencing = r.containsKey("fencing") ? (String) r.get("fencing") : "none";
      resource = new Resource(r.containsKey("host") ? (String) r.get("host") : "127.0.0.1",
          ((Number) r.get("port")).intValue());
    } else {
      resourceName = null;
      fencing = "none";
      resource = null;
    }
    leaseMs = longParam("lease_ms", -1);
    waitMs = longParam("wait_time_ms", -1);
  }

  private long longParam(String name, long otherwise) {
    String v = params.get(name);
    if (v == null || v.isEmpty()) return otherwise;
    return Long.parseLong(v.replace("\"", "").trim());
  }

  /** A Redisson client on one endpoint, with the library's defaults except where noted. */
  private RedissonClient connect(String host, String port) {
    Config config = new Config();
    config.setThreads(2);       // listener executor; the lock logic does not depend on it
    config.setNettyThreads(2);  // event loop; start-up speed on 2 cores
    // Until `ready`, commands are answered on the connection itself (BeforeTheRun says why).
    config.setNettyHook(new BeforeTheRun());
    config.useSingleServer()
        .setAddress("redis://" + host + ":" + port)
        // The default 24 idle connections (and the idle subscription connection) only slow the
        // first command down: they open then. More open on demand.
        .setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(0)
        // Redisson PINGs every connection every 30 s and when it opens one; the profiles model no
        // such traffic, and a PING dropped by a partition that starts at time zero would fail
        // create() before the run starts.
        .setPingConnectionInterval(0)
        .setTimeout((int) longParam("request_timeout_ms", 3_000));
    return Redisson.create(config);
  }

  private void start() {
    switch (profile) {
      case "redisson-rlock" -> {
        clients.add(connect(nodes.get(0)[1], nodes.get(0)[2]));
        lock = clients.get(0).getLock(lockName);
      }
      case "redisson-fencedlock" -> {
        clients.add(connect(nodes.get(0)[1], nodes.get(0)[2]));
        lock = clients.get(0).getFencedLock(lockName);
      }
      case "redisson-redlock" -> {
        List<RLock> locks = new ArrayList<>();
        for (String[] node : nodes) {
          RedissonClient client = connect(node[1], node[2]);
          clients.add(client);
          locks.add(client.getLock(lockName));
        }
        lock = new RedissonRedLock(locks.toArray(new RLock[0]));
      }
      default -> throw new IllegalArgumentException("profile '" + profile + "' is not Redisson's");
    }
  }

  private boolean fenced() {
    return profile.equals("redisson-fencedlock");
  }

  private boolean redlock() {
    return profile.equals("redisson-redlock");
  }

  // ---- commands ----

  /** Loaded right before `ready`: in a -Xlog:class+load log, what follows is the commands' own. */
  private static final class ReadyMarker {}

  private void serve() throws Exception {
    new ReadyMarker();
    BeforeTheRun.running = true;
    emit(event("ready", "profile", profile));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.equals("quit")) break;
      if (line.isEmpty()) continue;
      String[] words = line.split("\\s+");
      long started = System.nanoTime();
      switch (words[0]) {
        case "acquire" -> acquire(started);
        case "release" -> release(started);
        case "extend" -> extend(started);
        case "read" -> read(started, words.length > 1 ? Long.parseLong(words[1]) : 1_000);
        case "write" -> write(started, words.length > 1 ? Long.parseLong(words[1]) : 1_000,
            words.length > 2 ? Long.valueOf(words[2]) : null);
        case "sleep" -> {
          long ms = words.length > 1 ? Long.parseLong(words[1]) : 0;
          long until = started + ms * 1_000_000L;
          for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
            Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
          }
          emit(event("slept", "start_mono_ns", started));
        }
        case "check" -> emit(event("checked", "start_mono_ns", started, "expired", validityPassed()));
        case "grant" -> {
          grantId = words.length > 1 ? Long.parseLong(words[1]) : 0;
          if (words.length > 2) fencingToken = Long.valueOf(words[2]);
        }
        default -> {
          emit(event("error", "text", "unknown command '" + words[0] + "'"));
        }
      }
    }
  }

  private boolean validityPassed() {
    if (current == null) return true;
    if (current.deadlineMonoNs == Long.MAX_VALUE) return false;
    return System.nanoTime() >= current.deadlineMonoNs;
  }

  /** The hash field Redisson writes: "<client id>:<thread id>" (RedissonBaseLock.getLockName). */
  private String value() {
    return clients.get(0).getId() + ":" + Thread.currentThread().getId();
  }

  private void acquire(long started) {
    boolean acquired;
    Long token = null;
    boolean watchdog;
    String failure = "taken";
    try {
      if (redlock()) {
        if (waitMs >= 0) {
          acquired = lock.tryLock(waitMs, leaseMs, TimeUnit.MILLISECONDS);
        } else if (leaseMs >= 0) {
          lock.lock(leaseMs, TimeUnit.MILLISECONDS);
          acquired = true;
        } else {
          lock.lock();
          acquired = true;
        }
        watchdog = leaseMs < 0;
      } else if (fenced()) {
        RFencedLock f = (RFencedLock) lock;
        if (waitMs >= 0) {
          token = f.tryLockAndGetToken(waitMs, leaseMs, TimeUnit.MILLISECONDS);
          watchdog = leaseMs < 0;
        } else if (leaseMs >= 0) {
          // Redisson's documented "acquire and automatically unlock after leaseTime"; in 4.7.0
          // (and at the modelled commit) it calls lockAndGetTokenAsync() and ignores leaseTime:
          // the key is renewed by the watchdog.
          token = f.lockAndGetToken(leaseMs, TimeUnit.MILLISECONDS);
          watchdog = true;
        } else {
          token = f.lockAndGetToken();
          watchdog = true;
        }
        acquired = token != null;
      } else {
        if (waitMs >= 0) {
          acquired = leaseMs >= 0 ? lock.tryLock(waitMs, leaseMs, TimeUnit.MILLISECONDS)
                                  : lock.tryLock(waitMs, TimeUnit.MILLISECONDS);
        } else if (leaseMs >= 0) {
          lock.lock(leaseMs, TimeUnit.MILLISECONDS);
          acquired = true;
        } else {
          lock.lock();
          acquired = true;
        }
        watchdog = leaseMs < 0;
      }
    } catch (Exception e) {
      acquired = false;
      watchdog = false;
      failure = "error";
      log("acquire: " + e);
      emit(event("note", "text", "acquire: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
    final long now = System.nanoTime();
    if (!acquired) {
      // Redisson does not say how many times it tried: one, unless it waited for the lock.
      long attempts = failure.equals("taken") && waitMs > 0 ? 2 : 1;
      emit(event("acquire_failed", "start_mono_ns", started, "attempts", attempts, "failure", failure));
      return;
    }
    if (current != null) {
      Held saved = current;
      saved.grantId = grantId;
      saved.token = fencingToken;
      outer.push(saved);
    }
    Held held = new Held();
    held.number = ++leases;
    held.token = token;
    held.watchdog = watchdog;
    Map<String, Object> deadline = new LinkedHashMap<>();
    boolean leaseBelieved = leaseMs >= 0;
    if (!leaseBelieved) {
      deadline.put("clock", "none");
    } else {
      // Redisson has no client-side validity: the profile's formula (hash_lock.cpp deadline_from:
      // the attempt's start plus the lease; for the RedLock, the end of acquisition plus it).
      held.deadlineMonoNs = (redlock() ? now : started) + leaseMs * 1_000_000L;
      deadline.put("clock", "monotonic");
      deadline.put("at_ns", held.deadlineMonoNs);
    }
    held.deadline = deadline;
    current = held;
    grantId = 0;
    fencingToken = token;
    Map<String, Object> granted = event("granted", "start_mono_ns", started, "attempts", 1,
        "lease", held.number, "value", value(), "deadline", deadline);
    if (leaseBelieved) granted.put("deadline_source", "profile");
    if (token != null) granted.put("fencing_token", token);
    emit(granted);
    if (fenced() && waitMs < 0 && leaseMs >= 0) {
      emit(event("note", "text", "lockAndGetToken(" + leaseMs
          + " ms): Redisson ignores the lease time and runs its watchdog"));
    }
    if (watchdog && watchdogWanted) emit(event("watchdog_started", "lease", held.number));
  }

  private void release(long started) {
    if (current == null) {
      emit(event("release_failed", "start_mono_ns", started, "failure", "not held"));
      return;
    }
    Held held = current;
    grantId = 0;
    fencingToken = null;
    current = null;
    if (!outer.isEmpty()) {
      current = outer.pop();
      grantId = current.grantId;
      fencingToken = current.token;
    }
    boolean released;
    String failure = "";
    try {
      lock.unlock();  // RedissonRedLock: every sub-lock, errors ignored
      released = true;
    } catch (IllegalMonitorStateException e) {
      released = false;
      failure = "not owner";
      log("release: " + e);
    } catch (Exception e) {
      released = false;
      failure = "error";
      log("release: " + e);
      emit(event("note", "text", "release: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
    // Redisson cancels the renewal in the unlock future's handler, whatever its outcome.
    if (held.watchdog && watchdogWanted) emit(event("watchdog_stopped", "lease", held.number));
    emit(event(released ? "released" : "release_failed", "start_mono_ns", started,
        "nodes", released ? (redlock() ? nodes.size() : 1) : 0, "failure", failure));
  }

  private void extend(long started) {
    if (current == null) {
      emit(event("extend_failed", "start_mono_ns", started, "failure", "not held"));
      return;
    }
    // RLock has no "extend this grant" in its public API (only the watchdog renews; expire() is a
    // plain PEXPIRE of the key, not the owner-checked renewal).
    emit(event("extend_failed", "start_mono_ns", started, "nodes", 0,
        "failure", "unsupported: Redisson's RLock API has no extend"));
  }

  private List<String> resourceCommand(List<String> argv, boolean withToken) {
    List<String> out = new ArrayList<>(argv);
    if (withToken && fencingToken != null) out.add(Long.toString(fencingToken));
    out.add("GRANT");
    out.add(Long.toString(grantId));
    return out;
  }

  private void read(long started, long timeoutMs) {
    if (resource == null) {
      emit(event("read", "start_mono_ns", started, "ok", false, "text", "no resource"));
      return;
    }
    if (fencing.equals("compare-and-set")) {
      String owner = current != null ? value() : "-";
      Resource.Reply set = resource.request(
          resourceCommand(List.of("SETOWNER", resourceName, owner), false), timeoutMs);
      if (set == null || set.type() == '-') {
        emit(event("read", "start_mono_ns", started, "ok", false, "text", "setowner failed"));
        return;
      }
    }
    boolean fenced = fencing.equals("fence-all");
    Resource.Reply reply =
        resource.request(resourceCommand(List.of("READ", resourceName), fenced), timeoutMs);
    if (reply == null || reply.type() != ':') {
      emit(event("read", "start_mono_ns", started, "ok", false, "text",
          reply != null ? "read refused: " + reply.text() : "read timed out"));
      return;
    }
    lastRead = reply.integer();
    emit(event("read", "start_mono_ns", started, "ok", true, "value", lastRead));
  }

  private void write(long started, long timeoutMs, Long value) {
    long v = value != null ? value : lastRead + 1;
    long grant = grantId;
    if (resource == null) {
      emit(event("write", "start_mono_ns", started, "acknowledged", false, "value", v,
          "text", "no resource"));
      return;
    }
    List<String> command;
    if (fencing.equals("compare-and-set")) {
      String owner = current != null ? value() : "-";
      command = resourceCommand(List.of("WRITEIFOWNER", resourceName, owner, Long.toString(v)), false);
    } else {
      command = resourceCommand(List.of("WRITE", resourceName, Long.toString(v)),
          !fencing.equals("none"));
    }
    Resource.Reply reply = resource.request(command, timeoutMs);
    emit(event("write", "start_mono_ns", started, "acknowledged", reply != null && reply.isOk(),
        "grant", grant, "value", v, "text", reply != null ? reply.text() : "timeout"));
  }

  /** Loads the classes of the first lock call ahead of time (no network). */
  static void preload() {
    String mode = System.getenv().getOrDefault("REDISSON_DRIVER_PRELOAD", "2");
    if (mode.equals("0")) return;
    long t = System.nanoTime();
    int n = 0;
    ClassLoader loader = Driver.class.getClassLoader();
    try (java.io.InputStream in = Driver.class.getResourceAsStream("/preload.txt")) {
      if (in == null) return;
      for (String name : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        name = name.trim();
        if (name.isEmpty() || name.startsWith("#")) continue;
        try {
          Class.forName(name, mode.equals("2"), loader);
          n++;
        } catch (Throwable ignored) {
          // not every class can be loaded alone
        }
      }
    } catch (java.io.IOException ignored) {
      return;
    }
    log("preloaded " + n + " classes in " + (System.nanoTime() - t) / 1_000_000 + " ms");
  }

  public static void main(String[] args) {
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    if (args.length != 2 || !args[0].equals("--config")) {
      System.err.println("usage: java -jar redisson-driver.jar --config JSON");
      System.exit(2);
    }
    int code = 0;
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> config = (Map<String, Object>) Json.parse(args[1]);
      Driver driver = new Driver(config);
      preload();
      driver.start();
      BeforeTheRun.rehearse(driver.profile, driver.clients, 3);
      driver.serve();
    } catch (Throwable e) {
      log("fatal: " + e);
      e.printStackTrace();
      code = 1;
    }
    synchronized (OUT) {
      try {
        OUT.flush();
      } catch (java.io.IOException ignored) {
        // nothing to do
      }
    }
    System.err.flush();
    // Redisson's shutdown waits for its event loops; nothing is left to tell anyone.
    Runtime.getRuntime().halt(code);
  }
}
