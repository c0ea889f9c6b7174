// Child processes of real-process mode: started with fork/exec, tied to the harness's life
// (PR_SET_PDEATHSIG), signalled and reaped by pid. Nothing here runs in the simulator.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace redlock_sim::real {

struct SpawnOptions {
  std::vector<std::string> argv;
  std::map<std::string, std::string> environment;  // added to the harness's own
  std::string log_path;                            // stdout and stderr, unless piped
  std::string working_directory;                   // empty: the harness's
  bool pipe_stdin = false;
  bool pipe_stdout = false;
};

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { kill_and_reap(); }

  // Starts it; an error text when fork or exec failed (exec failure is reported by the child
  // through a close-on-exec pipe, so a missing binary is known at once).
  std::optional<std::string> start(const SpawnOptions& options);
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  void close_stdin();

  bool signal(int signal_number) const;
  // SIGKILL (after SIGCONT, so a stopped process dies at once) and wait; idempotent.
  void kill_and_reap();
  // SIGTERM, then wait up to `timeout_ms` for a clean exit; SIGKILL after that.
  void terminate_and_reap(int timeout_ms);
  // Non-blocking: true when it has exited (and is reaped).
  bool exited();

 private:
  void close_pipes();
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
};

// A free TCP port on 127.0.0.1 (bind to port 0, read it back, close).
int free_loopback_port();
// Whether something listens on 127.0.0.1:port.
bool loopback_port_open(int port);
// A connected, blocking TCP socket to 127.0.0.1:port, or -1.
int connect_loopback(int port, int timeout_ms);
// Sends a command to 127.0.0.1:port directly (not through any proxy) and returns the raw RESP
// reply, or nullopt on any failure within the timeout. For the harness's own checks.
std::optional<std::string> loopback_command(int port, const std::vector<std::string>& argv,
                                            int timeout_ms);

// Which of `candidates` owns the other end of `accepted_fd`, a connection accepted on
// 127.0.0.1: the peer's socket is found in /proc/net/tcp by its port and the listener's, then
// in the candidates' file descriptors by its inode (what `ss -p` does). Nullopt when no
// candidate owns it (a process the harness did not start).
std::optional<pid_t> loopback_peer_pid(int accepted_fd, const std::vector<pid_t>& candidates);

}  // namespace redlock_sim::real
