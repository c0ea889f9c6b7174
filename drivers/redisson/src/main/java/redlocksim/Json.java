package redlocksim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON for the driver: parse the --config object, write one event per line. */
final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    Json p = new Json(text);
    p.space();
    Object value = p.value();
    p.space();
    if (p.at != text.length()) throw p.error("trailing characters");
    return value;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + at);
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
  }

  private boolean take(char c) {
    if (at < text.length() && text.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!take(c)) throw error("expected '" + c + "'");
  }

  private Object value() {
    if (at >= text.length()) throw error("unexpected end");
    char c = text.charAt(at);
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (text.startsWith("true", at)) {
      at += 4;
      return Boolean.TRUE;
    }
    if (text.startsWith("false", at)) {
      at += 5;
      return Boolean.FALSE;
    }
    if (text.startsWith("null", at)) {
      at += 4;
      return null;
    }
    return number();
  }

  private Map<String, Object> object() {
    expect('{');
    Map<String, Object> out = new LinkedHashMap<>();
    space();
    if (take('}')) return out;
    while (true) {
      space();
      String key = string();
      space();
      expect(':');
      space();
      out.put(key, value());
      space();
      if (take('}')) return out;
      expect(',');
    }
  }

  private List<Object> array() {
    expect('[');
    List<Object> out = new ArrayList<>();
    space();
    if (take(']')) return out;
    while (true) {
      space();
      out.add(value());
      space();
      if (take(']')) return out;
      expect(',');
    }
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) throw error("unterminated string");
      char c = text.charAt(at++);
      if (c == '"') return out.toString();
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = text.charAt(at++);
      switch (e) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
        }
        default -> out.append(e);
      }
    }
  }

  private Object number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
    String s = text.substring(start, at);
    if (s.isEmpty()) throw error("unexpected character");
    if (s.contains(".") || s.contains("e") || s.contains("E")) return Double.parseDouble(s);
    return Long.parseLong(s);
  }

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      quote(s, out);
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) out.append(',');
        first = false;
        quote(String.valueOf(e.getKey()), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) out.append(',');
        write(list.get(i), out);
      }
      out.append(']');
    } else {
      quote(value.toString(), out);
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
