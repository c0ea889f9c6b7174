// The harness's network: a RESP-aware user-space proxy on every (client, node) link and the
// in-process services (the resource's registers, the external counter), each message routed by
// the simulator's own Network rules (sim/kernel/network.hpp): per-link FIFO delays, partitions
// that drop whole commands and replies (what was sent across the cut, and what was in flight
// when it began), held messages, loss. Kernel-level drops would not do: TCP retransmits them
// after the heal, which is not what the simulator (or the catalogue) means by a partition.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "lock_impls/port/reply.hpp"
#include "real/loop.hpp"
#include "sim/kernel/network.hpp"

namespace redlock_sim::real {

class Fabric {
 public:
  // An in-process service: the reply to one command at true time `now`.
  using Service = std::function<Reply(const Command& command, ProcessId from, Instant now)>;

  Fabric(Loop& loop, Network& network, int64_t t0_ns)
      : loop_(loop), network_(network), t0_ns_(t0_ns) {}
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // A listening port for `from`'s connections to `to`; each message is routed, then written to
  // a connection to 127.0.0.1:upstream_port (a real redis-server) or answered by `service`.
  // Returns the port, or -1.
  int listen_upstream(ProcessId from, ProcessId to, int upstream_port);
  int listen_service(ProcessId from, ProcessId to, Service service);
  // The address a node or sentinel announces to the others (replicas, sentinels): connections
  // from any process, each identified when accepted by `identify` (nullopt: closed at once).
  // A connection that sends PSYNC or SYNC carries a replication stream from then on: what the
  // node sends back is forwarded as bytes (the RDB payload is not a RESP frame), delayed as the
  // link says, and held while the link is cut, to go on at the heal (as TCP would retransmit
  // it) rather than dropped, which would corrupt the stream.
  using Identify = std::function<std::optional<ProcessId>(int accepted_fd)>;
  int listen_announced(ProcessId to, int upstream_port, Identify identify);

  // True time zero, CLOCK_MONOTONIC ns; no message may pass before it is set.
  void set_start(int64_t t0_ns) { t0_ns_ = t0_ns; }

  // Messages accepted and not yet delivered or dropped (a held message counts).
  std::size_t in_flight() const { return in_flight_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t unidentified() const { return unidentified_; }
  // Largest delay between a delivery's planned and actual time, ns (the loop's lateness).
  int64_t delivery_lateness_max_ns() const { return lateness_max_ns_; }
  void close_all();

 private:
  struct Listener {
    int fd = -1;
    ProcessId from = 0;
    ProcessId to = 0;
    int upstream_port = -1;
    Service service;
    Identify identify;
  };
  struct Connection {
    uint64_t id = 0;
    const Listener* listener = nullptr;
    ProcessId from = 0;  // the connecting side
    ProcessId to = 0;    // the listener's side
    int client_fd = -1;
    int upstream_fd = -1;
    std::string from_client;
    std::string from_upstream;
    uint32_t pending_to_upstream = 0;
    bool client_closed = false;
    bool stream = false;           // a replication stream: bytes from upstream, not frames
    std::deque<std::string> held;  // stream bytes waiting for the link (cut, or queued behind)
    bool flush_scheduled = false;
    bool upstream_closed = false;  // a server's node died: its peer is to see the close
    bool close_scheduled = false;
    uint64_t stream_epoch = 0;  // bumped when undelivered stream bytes are dropped
  };
  Instant true_now() const;
  Network::Route route_of(ProcessId from, ProcessId to, const std::string* command);
  int64_t real_time_of(Instant true_time) const { return t0_ns_ + true_time.ns(); }
  int open_listener(Listener listener);
  void accept_on(Listener& listener);
  void on_client_readable(uint64_t id);
  void on_upstream_readable(uint64_t id);
  void deliver_to_upstream(uint64_t id, std::string frame, Command words, Instant planned);
  void send_to_client(uint64_t id, std::string frame, ProcessId from, ProcessId to);
  void flush_stream(uint64_t id);
  void maybe_finish(uint64_t id);
  void close_connection(uint64_t id);
  Connection* find(uint64_t id);

  Loop& loop_;
  Network& network_;
  int64_t t0_ns_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::map<uint64_t, std::unique_ptr<Connection>> connections_;
  uint64_t next_connection_ = 1;
  std::size_t in_flight_ = 0;
  uint64_t dropped_ = 0;
  uint64_t delivered_ = 0;
  uint64_t unidentified_ = 0;
  int64_t lateness_max_ns_ = 0;
};

}  // namespace redlock_sim::real
