// Differential tests: every corpus file, and randomized command sequences, give byte-identical
// output from a real redis-server 7.0 (through redis-cli --no-raw) and from `redlock-sim redis`.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/kernel/random.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Runs a shell command and returns its stdout.
std::string run_capture(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    output.append(buffer, n);
  pclose(pipe);
  return output;
}

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  close(fd);
  return port;
}

// A real redis-server on 127.0.0.1, a free port and its own temporary directory.
class RealRedis {
 public:
  bool start(std::string& error) {
    if (!on_path("redis-server") || !on_path("redis-cli")) {
      error = "redis-server/redis-cli not found on PATH: run scripts/common.sh (installs them)";
      return false;
    }
    char pattern[] = "/tmp/redlock-differential-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      error = "cannot create a temporary directory";
      return false;
    }
    directory_ = pattern;
    port_ = free_loopback_port();
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      // Dies with the test process, even a SIGKILLed one.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      const std::string port = std::to_string(port_);
      const std::string log = directory_ + "/redis.log";
      execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory_.c_str(),
             "--logfile", log.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (cli("PING\n") == "PONG\n") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    error = "redis-server did not answer PING on 127.0.0.1:" + std::to_string(port_);
    return false;
  }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (!directory_.empty()) fs::remove_all(directory_);
  }

  // Feeds lines to redis-cli --no-raw and returns what it prints.
  std::string cli(const std::string& lines) {
    const fs::path input = fs::path(directory_) / "input.txt";
    write_file(input, lines);
    return run_capture("redis-cli -h 127.0.0.1 -p " + std::to_string(port_) + " --no-raw < " +
                       input.string() + " 2>&1");
  }

  const std::string& directory() const { return directory_; }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string directory_;
};

RealRedis* real_redis = nullptr;
std::string start_error;

class RedisEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    real_redis = new RealRedis();
    if (!real_redis->start(start_error)) {
      real_redis->stop();
      delete real_redis;
      real_redis = nullptr;
    }
  }
  void TearDown() override {
    if (real_redis != nullptr) real_redis->stop();
    delete real_redis;
    real_redis = nullptr;
  }
};

const auto* environment = ::testing::AddGlobalTestEnvironment(new RedisEnvironment());

// Runs a corpus through the real server: comment lines dropped, `.advance MS` as a real sleep.
// redis-cli adds a line like "(0.53s)" after a command that took half a second or more (the
// corpus's 100 000-deep table, on a loaded machine): wall time, not a reply, so it goes.
std::string without_elapsed_times(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  std::string kept;
  while (std::getline(in, line)) {
    const bool elapsed = line.size() >= 4 && line.front() == '(' && line.back() == ')' &&
                         line[line.size() - 2] == 's' &&
                         line.find_first_not_of("0123456789.", 1) == line.size() - 2;
    if (!elapsed) kept += line + "\n";
  }
  return kept;
}

std::string run_real(const std::string& corpus) {
  real_redis->cli("FLUSHALL\nSCRIPT FLUSH\nCONFIG SET hz 10\n");
  std::istringstream in(corpus);
  std::string line;
  std::string chunk;
  std::string output;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') continue;
    if (line.rfind(".advance ", 0) == 0) {
      if (!chunk.empty()) output += real_redis->cli(chunk);
      chunk.clear();
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoll(line.substr(9))));
      continue;
    }
    chunk += line + "\n";
  }
  if (!chunk.empty()) output += real_redis->cli(chunk);
  return without_elapsed_times(output);
}

std::string run_simulated(const std::string& corpus) {
  const fs::path input = fs::path(real_redis->directory()) / "sim-input.txt";
  write_file(input, corpus);
  return run_capture(std::string(REDLOCK_BINARY_DIR) + "/redlock-sim redis < " + input.string() +
                     " 2>&1");
}

// The first differing line, to make a failure readable.
std::string first_difference(const std::string& real, const std::string& simulated) {
  std::istringstream a(real);
  std::istringstream b(simulated);
  std::string line_a;
  std::string line_b;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "outputs differ only in line endings";
    if (!more_a || !more_b || line_a != line_b) {
      return "output line " + std::to_string(line) +
             ":\n  real:      " + (more_a ? line_a : "<end>") +
             "\n  simulated: " + (more_b ? line_b : "<end>");
    }
  }
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& entry :
       fs::directory_iterator(std::string(REDLOCK_SOURCE_DIR) + "/tests/differential/corpus")) {
    if (entry.path().extension() == ".redis") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

// Proves one corpus file prints byte-identical replies on real redis-server and the simulator.
TEST_P(CorpusTest, SameOutputAsRealRedis) {
  ASSERT_NE(real_redis, nullptr) << start_error;
  const std::string corpus =
      read_file(fs::path(REDLOCK_SOURCE_DIR) / "tests/differential/corpus" / GetParam());
  ASSERT_EQ(corpus.find("\n.clock-step"), std::string::npos) << ".clock-step is sim-only";
  const std::string real = run_real(corpus);
  const std::string simulated = run_simulated(corpus);
  ASSERT_FALSE(real.empty());
  EXPECT_EQ(real, simulated) << GetParam() << ": " << first_difference(real, simulated);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(corpus_files()),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.size() - 6);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// One random command over a small key set; nothing printed depends on elapsed real time.
std::string random_command(redlock_sim::Rng& rng) {
  static const char* keys[] = {"k1", "k2", "k3", "h1"};
  static const char* values[] = {"a", "b", "1", "-5", "9223372036854775807", "x y"};
  const std::string key = keys[rng.below(4)];
  const std::string value = std::string("\"") + values[rng.below(6)] + "\"";
  // Whole seconds: TTL rounds (ms + 500) / 1000, so a TTL of 376 500 ms could read 376 or 377
  // depending on the real milliseconds that pass; a whole number of seconds reads the same until
  // half a second has passed.
  const std::string big_ttl = std::to_string(rng.between(100, 900) * 1000);
  switch (rng.below(29)) {
    case 0:
      return "SET " + key + " " + value;
    case 1:
      return "SET " + key + " " + value + " NX PX " + big_ttl;
    case 2:
      return "SET " + key + " " + value + " XX EX " + big_ttl;
    case 3:
      return "SET " + key + " " + value + " GET";
    case 4:
      return "SET " + key + " " + value + " KEEPTTL";
    case 5:
      return "GET " + key;
    case 6:
      return "DEL " + key + " " + keys[rng.below(4)];
    case 7:
      return "EXISTS " + key + " " + keys[rng.below(4)];
    case 8:
      return "INCR " + key;
    case 9:
      return "INCRBY " + key + " " + std::to_string(rng.between(-1000, 1000));
    case 10:
      return "HSET " + key + " f" + std::to_string(rng.below(3)) + " " + value;
    case 11:
      return "HGET " + key + " f" + std::to_string(rng.below(3));
    case 12:
      return "HINCRBY " + key + " f" + std::to_string(rng.below(3)) + " 7";
    case 13:
      return "HDEL " + key + " f" + std::to_string(rng.below(3));
    case 14:
      return "HGETALL " + key;
    case 15:
      // 0 and below delete the key; 1000 s stays put however slow the real server is.
      return "EXPIRE " + key + " " + std::to_string(rng.chance(1, 4) ? 1000 : rng.between(-2, 0));
    case 16:
      return "PEXPIRE " + key + " " + big_ttl + (rng.chance(1, 2) ? " GT" : " NX");
    case 17:
      return "TTL " + key;
    case 18:
      return "PERSIST " + key;
    case 19:
      return "TYPE " + key;
    case 20:
      return "GETDEL " + key;
    case 21:
      return "SETNX " + key + " " + value;
    case 22:
      return "EVAL \"if redis.call('get',KEYS[1]) == ARGV[1] then return "
             "redis.call('del',KEYS[1]) else return 0 end\" 1 " +
             key + " " + value;
    case 23:
      return "EVAL \"return cjson.encode({redis.call('get', KEYS[1]) or cjson.null, ARGV[1], "
             "tonumber(ARGV[1]) or false})\" 1 " +
             key + " " + value;
    case 24: {
      static const char* texts[] = {
          "[1,2.5,\"x\"]", "{\"a\":[true,null]}", "\"s\\u00e9\"", "1e3", "[",
          "nul",           "{\"a\":1,}",          "[[[]]]"};
      return std::string(
                 "EVAL \"local ok, t = pcall(cjson.decode, ARGV[1]) if not ok then "
                 "return {'error', t} end return {type(t), cjson.encode(t)}\" 0 '") +
             texts[rng.below(8)] + "'";
    }
    case 25: {
      const std::string a = std::to_string(rng.between(-3'000'000'000, 3'000'000'000));
      const std::string b = std::to_string(rng.between(-40, 40));
      return "EVAL \"return {bit.band(ARGV[1], ARGV[2]), bit.bor(ARGV[1], 255), "
             "bit.bxor(ARGV[1], ARGV[2]), bit.tohex(ARGV[1]), bit.lshift(ARGV[1], ARGV[2] % 32), "
             "bit.arshift(ARGV[1], 3), bit.rol(ARGV[1], ARGV[2]), bit.tobit(ARGV[1])}\" 0 " +
             a + " " + b;
    }
    case 26: {
      // struct: two random options packed, unpacked and sized, errors included.
      static const char* options[] = {">i2", "<I3", "bB",  "hH", "!4bi", ">l", "<L",  "i16", "c3",
                                      "s",   "T",   ">d",  "<f", "i40",  "!3", "Bc0", "x",   "q",
                                      "I0",  "c0",  "!8h", "i",  " ",    "c",  "I9",  "!2"};
      static const char* arguments[] = {"-5",     "300", "65535", "-9223372036854775808",
                                        "abcdef", "1.5", "0",     "18446744073709551616",
                                        "\\x00ab"};
      std::string command = std::string(
          "EVAL \"local function s(r) for i, v in ipairs(r) do r[i] = tostring(v) end return r "
          "end local ok, p = pcall(struct.pack, ARGV[1], ARGV[2], ARGV[3], ARGV[4]) if not ok "
          "then return {'pack', p} end return {p, s({pcall(struct.unpack, ARGV[1], p)}), "
          "s({pcall(struct.size, ARGV[1])})}\" 0 \"");
      command += std::string(options[rng.below(std::size(options))]) +
                 options[rng.below(std::size(options))] + "\"";
      for (int i = 0; i < 3; ++i)
        command += std::string(" \"") + arguments[rng.below(std::size(arguments))] + "\"";
      return command;
    }
    case 27: {
      // cmsgpack: random bytes unpacked (one, a limit or all), each result packed again.
      static const unsigned char bytes[] = {0xc0, 0xc2, 0xc3, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1,
                                            0xd2, 0xd3, 0xca, 0xcb, 0xd9, 0xda, 0xdc, 0xde, 0x92,
                                            0x81, 0xa2, 0x00, 0x7f, 0xff, 0xe0, 0xc1, 0x41};
      static const char* calls[] = {"unpack(ARGV[1])", "unpack_one(ARGV[1], tonumber(ARGV[2]))",
                                    "unpack_limit(ARGV[1], 2, tonumber(ARGV[2]))"};
      std::string data;
      for (uint64_t n = rng.below(12); n > 0; --n) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", bytes[rng.below(std::size(bytes))]);
        data += hex;
      }
      return std::string("EVAL \"local r = {pcall(function() return cmsgpack.") +
             calls[rng.below(3)] +
             " end)} for i = 1, table.maxn(r) do local v = r[i] if type(v) == 'table' then r[i] = "
             "cmsgpack.pack(v) elseif type(v) ~= 'string' then r[i] = tostring(v) end end return "
             "r\" 0 \"" +
             data + "\" " + std::to_string(rng.between(-1, 4));
    }
    default:
      return "EVAL \"return {redis.call('exists', KEYS[1]), redis.call('type', "
             "KEYS[1])['ok']}\" 1 " +
             key;
  }
}

// Proves generated command sequences (5 seeds x 300 commands) get identical replies.
TEST(RandomizedDifferential, SameRepliesAsRealRedis) {
  ASSERT_NE(real_redis, nullptr) << start_error;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    redlock_sim::Rng rng(seed);
    std::string corpus;
    for (int i = 0; i < 300; ++i)
      corpus += random_command(rng) + "\n";
    corpus += "DBSIZE\n";
    const std::string real = run_real(corpus);
    const std::string simulated = run_simulated(corpus);
    EXPECT_EQ(real, simulated) << "seed " << seed << ": " << first_difference(real, simulated);
  }
}

// One connection speaking RESP inline commands, for timing single replies to the microsecond
// (redis-cli starts a process per batch).
class Connection {
 public:
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  bool open(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    return fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  // Sends one command and returns its reply's first line without CRLF ("$-1", ":12", "+OK"),
  // or for a bulk string its payload prefixed by '$'.
  std::string command(const std::string& line) {
    const std::string out = line + "\r\n";
    if (write(fd_, out.data(), out.size()) != static_cast<ssize_t>(out.size())) return "<write>";
    std::string header = read_line();
    if (header.size() > 1 && header[0] == '$' && header != "$-1") return "$" + read_line();
    return header;
  }

 private:
  std::string read_line() {
    std::string line;
    char c = 0;
    while (read(fd_, &c, 1) == 1) {
      if (c == '\n') break;
      if (c != '\r') line += c;
    }
    return line;
  }
  int fd_ = -1;
};

int64_t real_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The integer after `"field":` (and optional spaces) in `text`, from `from` on; -1 if absent.
int64_t json_integer(const std::string& text, const std::string& field, std::size_t from = 0) {
  const std::size_t at = text.find("\"" + field + "\":", from);
  if (at == std::string::npos) return -1;
  std::size_t i = at + field.size() + 3;
  while (i < text.size() && text[i] == ' ')
    ++i;
  return std::strtoll(text.c_str() + i, nullptr, 10);
}

// "expires from T" is the first millisecond a key reads as missing, checked against a real
// redis-server 7.0: a key set with PX 100 (its `when`, W, read back with PEXPIRETIME) answers a
// GET that runs wholly inside millisecond W and reads as missing in one wholly inside W + 1
// (Redis's now > when), so it goes PX + 1 ms after the SET's millisecond; the simulator's key
// table says the same of a SET ... PX 100 executed at 1 ms: expires from 102.
TEST(KeyExpiry, ExpiresFromIsTheFirstMillisecondRealRedisReadsMissing) {
  ASSERT_NE(real_redis, nullptr) << start_error;
  constexpr int64_t px_ms = 100;
  Connection connection;
  ASSERT_TRUE(connection.open(real_redis->port()));
  bool live_within_when = false;
  bool missing_within_when_plus_one = false;
  int64_t real_from_set_ms = -1;  // (first missing ms) - (the SET's ms), W + 1 - (W - PX)
  // A loaded machine may not fit a whole GET inside one millisecond at the right moment: retry.
  for (int attempt = 0; attempt < 40 && !(live_within_when && missing_within_when_plus_one);
       ++attempt) {
    connection.command("DEL k");
    ASSERT_EQ(connection.command("SET k v PX " + std::to_string(px_ms)), "+OK");
    const std::string when_reply = connection.command("PEXPIRETIME k");
    ASSERT_EQ(when_reply.front(), ':') << when_reply;
    const int64_t when = std::stoll(when_reply.substr(1));
    for (int64_t before = real_now_ms(); before <= when + 2; before = real_now_ms()) {
      const bool missing = connection.command("GET k") == "$-1";
      const int64_t after = real_now_ms();
      // The server read its clock between `before` and `after`: now > when must hold exactly.
      if (missing) {
        ASSERT_GE(after, when + 1) << "missing while the clock read at most when = " << when;
      } else {
        ASSERT_LE(before, when) << "live while the clock read past when = " << when;
      }
      if (!missing && before == when && after == when) live_within_when = true;
      if (missing && before == when + 1 && after == when + 1) {
        missing_within_when_plus_one = true;
        real_from_set_ms = when + 1 - (when - px_ms);
      }
    }
  }
  ASSERT_TRUE(live_within_when) << "no GET ran wholly inside millisecond `when` (machine busy?)";
  ASSERT_TRUE(missing_within_when_plus_one) << "no GET ran wholly inside `when` + 1";

  const fs::path scenario = fs::path(real_redis->directory()) / "expiry.json";
  write_file(scenario, R"({"name": "expiry-vs-real", "nodes": [{"name": "N1"}],
    "clients": [{"name": "A", "profile": "single-instance", "nodes": ["N1"],
                 "params": {"ttl_ms": )" +
                           std::to_string(px_ms) + R"(},
                 "steps": [{"do": "acquire", "at_ms": 0}]}],
    "limits": {"duration_ms": 1000}})");
  const fs::path trace = fs::path(real_redis->directory()) / "trace.json";
  run_capture(std::string(REDLOCK_BINARY_DIR) + "/redlock-sim run " + scenario.string() +
              " --trace " + trace.string() + " 2>&1");
  const std::string text = read_file(trace);
  const std::size_t keys = text.find("\"keys\"");
  ASSERT_NE(keys, std::string::npos) << text.substr(0, 2000);
  const int64_t set_ms = json_integer(text, "start_ns", keys) / 1'000'000;
  const int64_t expires_from_ms = json_integer(text, "expires_from_ms", keys);
  EXPECT_EQ(set_ms, 1);
  EXPECT_EQ(expires_from_ms, 1 + px_ms + 1);
  EXPECT_EQ(expires_from_ms - set_ms, real_from_set_ms);
}

}  // namespace
