package redlocksim;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.RedissonRedLock;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.NettyHook;

/**
 * What the driver does before it says `ready`, without one byte reaching the harness.
 *
 * <p>Why. The run's time starts only after every client said `ready`, and a message that
 * crosses the harness's proxy before then poisons its link: real/fabric.cpp routes it at "now =
 * CLOCK_MONOTONIC since boot", and the per-link FIFO of sim/kernel/network.cpp then holds every
 * later message of that link as long. Yet Redisson.create() sends a command of its own, the
 * cluster probe of MasterSlaveConnectionManager.detectCluster (EVAL "redis.call('get', KEYS[1])
 * redis.call('get', KEYS[2])" 2 test1 test2). And a fresh JVM runs Redisson's first lock call
 * some 20-30 ms slower than later ones, more than the 25 ms that `agree` allows between two
 * overlaps' starts.
 *
 * <p>So, through Redisson's public NettyHook, a handler at the head of every connection's
 * pipeline answers on the connection itself, until `ready`, what a Redis server would answer:
 * nil for the probe, and for a rehearsal of the lock calls on a lock of another name (lock,
 * unlock, fenced lock, RedLock) the replies of those scripts. Redisson thus starts as a client
 * created long before the run and already used: connections open, code warm. From `ready` on
 * the handler passes every byte through.
 */
final class BeforeTheRun implements NettyHook {
  /** Set right before `ready`: from then on every command goes to the network. */
  static volatile boolean running;

  private static final Map<String, String> scripts = new ConcurrentHashMap<>();  // sha1 -> text
  private static final AtomicLong answered = new AtomicLong();
  private static final AtomicLong tokens = new AtomicLong();

  @Override
  public void afterBoostrapInitialization(Bootstrap bootstrap) {}

  @Override
  public void afterChannelInitialization(Channel channel) {
    channel.pipeline().addFirst("redlock-sim-before-the-run", new ChannelOutboundHandlerAdapter() {
      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
          throws Exception {
        if (running || !(msg instanceof ByteBuf buf)) {
          super.write(ctx, msg, promise);
          return;
        }
        String replies = answer(buf.toString(StandardCharsets.UTF_8));
        ReferenceCountUtil.release(msg);
        promise.setSuccess();
        ctx.channel().eventLoop().execute(
            () -> ctx.fireChannelRead(Unpooled.copiedBuffer(replies, StandardCharsets.UTF_8)));
      }
    });
  }

  /** The replies a Redis server gives to the commands of one write (RESP arrays). */
  static String answer(String frames) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (at < frames.length() && frames.charAt(at) == '*') {
      int eol = frames.indexOf("\r\n", at);
      int n = Integer.parseInt(frames.substring(at + 1, eol));
      at = eol + 2;
      List<String> words = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        eol = frames.indexOf("\r\n", at);
        int length = Integer.parseInt(frames.substring(at + 1, eol));
        int start = eol + 2;
        // Lengths are in bytes; the scripts and names here are ASCII.
        words.add(frames.substring(start, start + length));
        at = start + length + 2;
      }
      out.append(reply(words));
      answered.incrementAndGet();
    }
    return out.toString();
  }

  private static String reply(List<String> words) {
    String command = words.get(0).toUpperCase();
    switch (command) {
      case "SCRIPT": {
        String sha = sha1(words.get(2));
        scripts.put(sha, words.get(2));
        return "$40\r\n" + sha + "\r\n";
      }
      case "EVALSHA": {
        String text = scripts.get(words.get(1));
        if (text == null) return "-NOSCRIPT No matching script. Please use EVAL.\r\n";
        return scriptReply(text);
      }
      case "EVAL":
        return scriptReply(words.get(1));
      case "DEL":
      case "PEXPIRE":
        return ":1\r\n";
      default:
        return "$-1\r\n";
    }
  }

  /** What Redisson's lock scripts return to their owner when the lock is free or theirs. */
  private static String scriptReply(String text) {
    if (text.contains("'incr', KEYS[2]")) {  // RFencedLock acquire: {-1, token}
      return "*2\r\n:-1\r\n:" + tokens.incrementAndGet() + "\r\n";
    }
    if (text.contains("'hincrby', KEYS[1], ARGV[3], -1")) return ":1\r\n";  // unlock: released
    if (text.contains("table.insert(result, 1)")) return "*1\r\n:1\r\n";  // watchdog renewal
    return "$-1\r\n";  // acquire (nil: locked), the cluster probe (two missing keys)
  }

  private static String sha1(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs the lock calls of `profile` a few times on a lock of another name, answered by the
   * handler above; leaves nothing scheduled that could send after `ready` (leases are explicit
   * or unlocked, which cancels the renewal).
   */
  static void rehearse(String profile, List<RedissonClient> clients, int rounds) {
    final String name = "redlock-sim-rehearsal";
    for (int i = 0; i < rounds; i++) {
      try {
        switch (profile) {
          case "redisson-fencedlock" -> {
            RFencedLock f = clients.get(0).getFencedLock(name);
            f.lockAndGetToken();
            f.unlock();
            f.tryLockAndGetToken(1_000, 1_000, TimeUnit.MILLISECONDS);
            f.unlock();
          }
          case "redisson-redlock" -> {
            List<RLock> locks = new ArrayList<>();
            for (RedissonClient c : clients) locks.add(c.getLock(name));
            RLock redLock = new RedissonRedLock(locks.toArray(new RLock[0]));
            redLock.lock();
            redLock.unlock();
            redLock.lock(1_000, TimeUnit.MILLISECONDS);
            redLock.unlock();
          }
          default -> {
            RLock l = clients.get(0).getLock(name);
            l.lock();
            l.unlock();
            l.tryLock(1_000, 1_000, TimeUnit.MILLISECONDS);
            l.unlock();
          }
        }
      } catch (Exception e) {
        Driver.log("rehearsal: " + e);
      }
    }
    // unlock() sends its DEL of the unlock latch without waiting for it: let it be answered.
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Driver.log("before the run: " + answered.get() + " commands answered on the connection");
  }
}
