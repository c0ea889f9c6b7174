package redlocksim;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The harness's resource (the register service) over RESP, as cli/client_command.cpp reaches it:
 * one connection; a request without a reply in time is a timeout, and the next request opens a
 * new connection (a dropped message never blocks the ones after it).
 */
final class Resource {
  /** One reply: a status (+), an error (-), an integer (:) or a bulk string ($). */
  record Reply(char type, String text, long integer) {
    boolean isOk() {
      return type == '+' && text.equals("OK");
    }
  }

  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  Resource(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** The reply, or null when none came within timeoutMs (or the connection failed). */
  Reply request(List<String> argv, long timeoutMs) {
    final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    try {
      if (socket == null) {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), (int) Math.max(1, timeoutMs));
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
      }
      ByteArrayOutputStream frame = new ByteArrayOutputStream();
      frame.writeBytes(("*" + argv.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
      for (String word : argv) {
        byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
        frame.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        frame.writeBytes(bytes);
        frame.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
      }
      out.write(frame.toByteArray());
      out.flush();
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      if (left <= 0) throw new SocketTimeoutException();
      socket.setSoTimeout((int) left);
      return readReply();
    } catch (IOException | RuntimeException e) {
      close();
      return null;
    }
  }

  private Reply readReply() throws IOException {
    String line = readLine();
    if (line.isEmpty()) throw new IOException("empty reply");
    char type = line.charAt(0);
    String rest = line.substring(1);
    switch (type) {
      case '+', '-':
        return new Reply(type, rest, 0);
      case ':':
        return new Reply(type, rest, Long.parseLong(rest));
      case '$': {
        int length = Integer.parseInt(rest);
        if (length < 0) return new Reply('$', "", 0);
        byte[] bytes = in.readNBytes(length + 2);
        return new Reply('$', new String(bytes, 0, length, StandardCharsets.UTF_8), 0);
      }
      case '*': {
        int n = Integer.parseInt(rest);
        for (int i = 0; i < n; i++) readReply();
        return new Reply('*', "array", 0);
      }
      default:
        throw new IOException("bad reply type " + type);
    }
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) throw new IOException("connection closed");
      if (c == '\r') {
        in.read();
        return line.toString();
      }
      line.append((char) c);
    }
  }

  private void close() {
    try {
      if (socket != null) socket.close();
    } catch (IOException ignored) {
      // already gone
    }
    socket = null;
    in = null;
    out = null;
  }
}
