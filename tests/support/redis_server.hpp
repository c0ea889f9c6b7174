// Real redis-server processes for tests: each on 127.0.0.1 only, on a free port, with its own
// temporary directory and no persistence (--save "" --appendonly no). Started with fork/exec and
// stopped by pid (SIGKILL models a crash, SIGTERM a clean stop); a server also dies with the test
// process (PR_SET_PDEATHSIG), so a killed test leaves none running. Reusable by any test folder.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace redlock_sim::testing {

// Asks the kernel for a free loopback port (bind to port 0, read it back, close).
inline int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

// True when something accepts TCP connections on 127.0.0.1:port.
inline bool loopback_port_open(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool open = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return open;
}

class RedisServer {
 public:
  RedisServer() = default;
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;
  ~RedisServer() { stop(); }

  // Starts redis-server; returns false (with `error()`) if it did not accept connections in 5 s.
  bool start() {
    char pattern[] = "/tmp/redlock-sim-redis-XXXXXX";
    const char* dir = ::mkdtemp(pattern);
    if (dir == nullptr) return fail("mkdtemp failed");
    dir_ = dir;
    port_ = free_loopback_port();
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Dies with the test process, even a SIGKILLed one.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the test died before prctl
      const std::string port = std::to_string(port_);
      const std::string log = dir_ + "/redis.log";
      ::execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--dir", dir_.c_str(), "--logfile", log.c_str(),
               "--protected-mode", "yes", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      if (loopback_port_open(port_)) {
        // Listening: the server writes nothing more there but log lines (no RDB, no AOF), so
        // the folder goes now and a SIGKILLed test leaves none. Redis opens its log file for
        // every line, and it logs "Ready to accept connections" just after it listens: a line
        // written while remove_all runs recreates redis.log and the folder stays (seen under
        // load). So wait for that line first, and remove until the folder is gone; once it is,
        // a later line cannot create it again.
        for (int j = 0;
             j < 200 && log_text().find("Ready to accept connections") == std::string::npos; ++j) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        std::error_code ignored;
        for (int j = 0; j < 20 && std::filesystem::exists(dir_, ignored); ++j) {
          std::filesystem::remove_all(dir_, ignored);
        }
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return fail("redis-server did not listen on 127.0.0.1:" + std::to_string(port_) + ": " +
                read_log());
  }

  // SIGKILL: the server dies with its keys, like a crash without persistence.
  void kill() { signal_and_reap(SIGKILL); }
  void stop() {
    signal_and_reap(SIGTERM);
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      dir_.clear();
    }
  }

  int port() const { return port_; }
  const std::string& directory() const { return dir_; }
  bool running() const { return pid_ > 0; }
  const std::string& error() const { return error_; }

 private:
  std::string log_text() const {
    std::ifstream in(dir_ + "/redis.log");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::string read_log() const {
    const std::string text = log_text();
    return text.empty() ? "no log" : text.substr(0, 2000);
  }
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  void signal_and_reap(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string error_;
};

// N independent servers, as Redlock wants them.
class RedisServers {
 public:
  bool start(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      servers_.push_back(std::make_unique<RedisServer>());
      if (!servers_.back()->start()) {
        error_ = servers_.back()->error();
        return false;
      }
    }
    return true;
  }
  RedisServer& at(std::size_t i) { return *servers_.at(i); }
  std::size_t size() const { return servers_.size(); }
  std::vector<int> ports() const {
    std::vector<int> ports;
    for (const auto& s : servers_)
      ports.push_back(s->port());
    return ports;
  }
  const std::string& error() const { return error_; }

 private:
  std::vector<std::unique_ptr<RedisServer>> servers_;
  std::string error_;
};

}  // namespace redlock_sim::testing
