#include "real/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "real/resp.hpp"

extern char** environ;

namespace redlock_sim::real {

namespace {
int64_t monotonic_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}
}  // namespace

std::optional<std::string> ChildProcess::start(const SpawnOptions& options) {
  kill_and_reap();
  int in_pipe[2] = {-1, -1};
  int out_pipe[2] = {-1, -1};
  int error_pipe[2] = {-1, -1};
  if ((options.pipe_stdin && ::pipe2(in_pipe, O_CLOEXEC) != 0) ||
      (options.pipe_stdout && ::pipe2(out_pipe, O_CLOEXEC) != 0) ||
      ::pipe2(error_pipe, O_CLOEXEC) != 0) {
    return std::string("pipe: ") + std::strerror(errno);
  }
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (options.environment.count(key) == 0) env_strings.push_back(entry);
  }
  for (const auto& [key, value] : options.environment)
    env_strings.push_back(key + "=" + value);
  std::vector<char*> argv;
  for (const std::string& a : options.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], error_pipe[0], error_pipe[1]})
      if (fd >= 0) ::close(fd);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    // Dies with the harness, even when the harness is killed with SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::setpgid(0, 0);  // Ctrl-C at the terminal goes to the harness, which stops everyone
    if (!options.log_path.empty()) {
      const int log =
          ::open(options.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (log >= 0) {
        ::dup2(log, STDERR_FILENO);
        if (!options.pipe_stdout) ::dup2(log, STDOUT_FILENO);
      }
    }
    if (options.pipe_stdin)
      ::dup2(in_pipe[0], STDIN_FILENO);
    else {
      const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (null >= 0) ::dup2(null, STDIN_FILENO);
    }
    if (options.pipe_stdout) ::dup2(out_pipe[1], STDOUT_FILENO);
    if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) {
      const int code = errno;
      (void)!::write(error_pipe[1], &code, sizeof(code));
      ::_exit(127);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    const int code = errno;
    (void)!::write(error_pipe[1], &code, sizeof(code));
    ::_exit(127);
  }
  ::close(error_pipe[1]);
  // Its own process group (set on both sides of the fork, whichever runs first): signals go to
  // the whole group, so a driver behind a wrapper (`go run`, `sh -c`) is paused and killed too.
  ::setpgid(pid, pid);
  int child_errno = 0;
  ssize_t got = -1;
  do {
    got = ::read(error_pipe[0], &child_errno, sizeof(child_errno));
  } while (got < 0 && errno == EINTR);
  ::close(error_pipe[0]);
  pid_ = pid;
  if (options.pipe_stdin) {
    ::close(in_pipe[0]);
    stdin_fd_ = in_pipe[1];
  }
  if (options.pipe_stdout) {
    ::close(out_pipe[1]);
    stdout_fd_ = out_pipe[0];
    ::fcntl(stdout_fd_, F_SETFL, ::fcntl(stdout_fd_, F_GETFL) | O_NONBLOCK);
  }
  if (got == static_cast<ssize_t>(sizeof(child_errno))) {
    kill_and_reap();
    return "cannot run " + options.argv.front() + ": " + std::strerror(child_errno);
  }
  return std::nullopt;
}

void ChildProcess::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

void ChildProcess::close_pipes() {
  close_stdin();
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
}

bool ChildProcess::signal(int signal_number) const {
  return pid_ > 0 && ::kill(-pid_, signal_number) == 0;
}

void ChildProcess::kill_and_reap() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGCONT);
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  close_pipes();
}

void ChildProcess::terminate_and_reap(int timeout_ms) {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGCONT);
  ::kill(-pid_, SIGTERM);
  const int64_t until = monotonic_ms() + timeout_ms;
  while (monotonic_ms() < until) {
    if (exited()) return;
    ::usleep(2'000);
  }
  kill_and_reap();
}

bool ChildProcess::exited() {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    pid_ = -1;
    close_pipes();
    return true;
  }
  return false;
}

namespace {
bool port_bindable(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return ok;
}
}  // namespace

int free_loopback_port() {
  // Below Linux's ephemeral range (32768 and up by default), so that no outgoing connection's
  // source port takes a node's port while the node is down between a crash and its restart;
  // each call moves on, so concurrent runs (agree --jobs) do not pick the same one.
  constexpr int low = 20'000;
  constexpr int span = 12'000;
  static std::atomic<int> next{static_cast<int>(::getpid() * 7919 % span)};
  for (int tries = 0; tries < span; ++tries) {
    const int port = low + (next++ % span + span) % span;
    if (port_bindable(port)) return port;
  }
  return -1;
}

int connect_loopback(int port, int timeout_ms) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  timeval tv{.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

bool loopback_port_open(int port) {
  const int fd = connect_loopback(port, 200);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::optional<std::string> loopback_command(int port, const std::vector<std::string>& argv,
                                            int timeout_ms) {
  const int fd = connect_loopback(port, timeout_ms);
  if (fd < 0) return std::nullopt;
  const std::string request = encode_command(argv);
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return std::nullopt;
  }
  std::string buffer;
  const int64_t until = monotonic_ms() + timeout_ms;
  while (monotonic_ms() < until) {
    char chunk[4096];
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(1, until - monotonic_ms()))) <= 0) break;
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    if (const auto length = resp_frame_length(buffer)) {
      ::close(fd);
      return buffer.substr(0, *length);
    }
  }
  ::close(fd);
  return std::nullopt;
}

namespace {

// The inode of the socket 127.0.0.1:local_port -> 127.0.0.1:remote_port, from /proc/net/tcp.
std::optional<unsigned long> loopback_socket_inode(int local_port, int remote_port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  char local[16];
  char remote[16];
  std::snprintf(local, sizeof(local), "0100007F:%04X", local_port);
  std::snprintf(remote, sizeof(remote), "0100007F:%04X", remote_port);
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local_address, remote_address, state, queues, timer, retransmits, uid,
        timeout;
    unsigned long inode = 0;
    if (!(fields >> slot >> local_address >> remote_address >> state >> queues >> timer >>
          retransmits >> uid >> timeout >> inode)) {
      continue;
    }
    if (local_address == local && remote_address == remote && inode != 0) return inode;
  }
  return std::nullopt;
}

}  // namespace

std::optional<pid_t> loopback_peer_pid(int accepted_fd, const std::vector<pid_t>& candidates) {
  sockaddr_in peer{};
  sockaddr_in self{};
  socklen_t peer_length = sizeof(peer);
  socklen_t self_length = sizeof(self);
  if (::getpeername(accepted_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0 ||
      ::getsockname(accepted_fd, reinterpret_cast<sockaddr*>(&self), &self_length) != 0) {
    return std::nullopt;
  }
  const std::optional<unsigned long> inode =
      loopback_socket_inode(ntohs(peer.sin_port), ntohs(self.sin_port));
  if (!inode) return std::nullopt;
  const std::string wanted = "socket:[" + std::to_string(*inode) + "]";
  for (const pid_t pid : candidates) {
    if (pid <= 0) continue;
    std::error_code error;
    const std::filesystem::path folder = "/proc/" + std::to_string(pid) + "/fd";
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
      char target[64];
      const ssize_t n = ::readlink(entry.path().c_str(), target, sizeof(target) - 1);
      if (n <= 0) continue;
      if (std::string_view(target, static_cast<std::size_t>(n)) == wanted) return pid;
    }
  }
  return std::nullopt;
}

}  // namespace redlock_sim::real
