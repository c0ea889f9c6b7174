#include "real/fabric.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "real/process.hpp"
#include "real/resp.hpp"

namespace redlock_sim::real {

Fabric::~Fabric() {
  close_all();
}

void Fabric::close_all() {
  while (!connections_.empty())
    close_connection(connections_.begin()->first);
  for (auto& listener : listeners_) {
    if (listener->fd < 0) continue;
    loop_.unwatch(listener->fd);
    ::close(listener->fd);
    listener->fd = -1;
  }
}

Instant Fabric::true_now() const {
  return Instant::from_ns(monotonic_ns() - t0_ns_);
}

Network::Route Fabric::route_of(ProcessId from, ProcessId to, const std::string* command) {
  // Before time zero (a driver warming its connections up before `ready`) nothing is routed:
  // delivered at once, and the network's per-link FIFO state is left for the run.
  if (t0_ns_ == 0) return Network::Route{.dropped = std::nullopt, .delivery = true_now()};
  return network_.route(from, to, command, true_now());
}

Fabric::Connection* Fabric::find(uint64_t id) {
  auto it = connections_.find(id);
  return it == connections_.end() ? nullptr : it->second.get();
}

int Fabric::open_listener(Listener listener) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // a spurious wake never blocks
  listener.fd = fd;
  listeners_.push_back(std::make_unique<Listener>(std::move(listener)));
  Listener* stored = listeners_.back().get();
  loop_.watch(fd, [this, stored](short) { accept_on(*stored); });
  return ntohs(address.sin_port);
}

int Fabric::listen_upstream(ProcessId from, ProcessId to, int upstream_port) {
  return open_listener(Listener{.from = from, .to = to, .upstream_port = upstream_port});
}

int Fabric::listen_service(ProcessId from, ProcessId to, Service service) {
  return open_listener(Listener{.from = from, .to = to, .service = std::move(service)});
}

int Fabric::listen_announced(ProcessId to, int upstream_port, Identify identify) {
  return open_listener(Listener{
      .from = to, .to = to, .upstream_port = upstream_port, .identify = std::move(identify)});
}

void Fabric::accept_on(Listener& listener) {
  const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  ProcessId from = listener.from;
  if (listener.identify) {
    const std::optional<ProcessId> who = listener.identify(fd);
    if (!who) {
      ++unidentified_;
      ::close(fd);
      return;
    }
    from = *who;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const uint64_t id = next_connection_++;
  auto connection = std::make_unique<Connection>();
  connection->id = id;
  connection->listener = &listener;
  connection->from = from;
  connection->to = listener.to;
  connection->client_fd = fd;
  Connection* c = connection.get();
  connections_[id] = std::move(connection);
  loop_.watch(fd, [this, id](short) { on_client_readable(id); });
  if (listener.identify) {
    // Between servers the connection is made at once, as a direct one would be: a node that is
    // down refuses it (closed at once), and one that dies closes it (see on_upstream_readable).
    c->upstream_fd = connect_loopback(listener.upstream_port, 100);
    if (c->upstream_fd < 0) {
      close_connection(id);
      return;
    }
    loop_.watch(c->upstream_fd, [this, id](short) { on_upstream_readable(id); });
  }
}

void Fabric::on_client_readable(uint64_t id) {
  Connection* c = find(id);
  if (c == nullptr) return;
  char chunk[16384];
  const ssize_t n = ::recv(c->client_fd, chunk, sizeof(chunk), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {
    loop_.unwatch(c->client_fd);
    ::close(c->client_fd);
    c->client_fd = -1;
    c->client_closed = true;
    maybe_finish(id);
    return;
  }
  c->from_client.append(chunk, static_cast<std::size_t>(n));
  const ProcessId from = c->from;
  const ProcessId to = c->to;
  while (const auto length = resp_frame_length(c->from_client)) {
    std::string frame = c->from_client.substr(0, *length);
    c->from_client.erase(0, *length);
    Command words = resp_command_words(frame);
    const std::string name = words.empty() ? std::string() : words.front();
    const Network::Route route = route_of(from, to, &name);
    if (route.dropped) {
      ++dropped_;
      continue;
    }
    ++c->pending_to_upstream;
    ++in_flight_;
    const Instant planned = route.delivery;
    loop_.at(real_time_of(planned),
             [this, id, frame = std::move(frame), words = std::move(words), planned]() mutable {
               deliver_to_upstream(id, std::move(frame), std::move(words), planned);
             });
  }
}

void Fabric::deliver_to_upstream(uint64_t id, std::string frame, Command words, Instant planned) {
  --in_flight_;
  Connection* c = find(id);
  if (c == nullptr) return;
  --c->pending_to_upstream;
  const Instant now = true_now();
  lateness_max_ns_ = std::max(lateness_max_ns_, (now - planned).ns());
  const ProcessId from = c->from;
  const ProcessId to = c->to;
  // A partition drops what was in flight when it began, as the simulator does.
  if (t0_ns_ != 0 && network_.is_cut(from, to, planned)) {
    ++dropped_;
    maybe_finish(id);
    return;
  }
  if (c->listener->service) {
    ++delivered_;
    const Reply reply = c->listener->service(words, from, planned);
    send_to_client(id, encode_reply(reply), to, from);
    maybe_finish(id);
    return;
  }
  if (c->upstream_closed) {
    ++dropped_;
    maybe_finish(id);
    return;
  }
  if (c->upstream_fd < 0) {
    // A node that is down refuses the connection: the message is lost, as the simulator drops
    // messages to a crashed process (its sender times out).
    c->upstream_fd = connect_loopback(c->listener->upstream_port, 100);
    if (c->upstream_fd < 0) {
      ++dropped_;
      maybe_finish(id);
      return;
    }
    loop_.watch(c->upstream_fd, [this, id](short) { on_upstream_readable(id); });
  }
  if (::send(c->upstream_fd, frame.data(), frame.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(frame.size())) {
    ++dropped_;
  } else {
    ++delivered_;
    if (!words.empty() && c->listener->identify) {
      std::string verb = words.front();
      for (char& ch : verb)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (verb == "PSYNC" || verb == "SYNC") c->stream = true;
    }
  }
  maybe_finish(id);
}

void Fabric::on_upstream_readable(uint64_t id) {
  Connection* c = find(id);
  if (c == nullptr) return;
  char chunk[16384];
  const ssize_t n = ::recv(c->upstream_fd, chunk, sizeof(chunk), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0 && c->listener->identify) {
    // A server's connection to a node that died: its peer sees the close (the FIN) after the
    // link's delay, once the link is not cut, after what was sent before it.
    loop_.unwatch(c->upstream_fd);
    ::close(c->upstream_fd);
    c->upstream_fd = -1;
    c->upstream_closed = true;
    if (c->stream) {
      // Replication data not yet delivered dies with its master: the link's delay stands for
      // the master's replication lag, not for bytes already on the wire (the simulator's S15
      // convention, docs/cluster-model.md).
      c->held.clear();
      ++c->stream_epoch;
    }
    flush_stream(id);
    return;
  }
  if (n <= 0) {
    // The node went away (killed, restarted): the connection is broken; the next message opens
    // a new one.
    loop_.unwatch(c->upstream_fd);
    ::close(c->upstream_fd);
    c->upstream_fd = -1;
    c->from_upstream.clear();
    return;
  }
  c->from_upstream.append(chunk, static_cast<std::size_t>(n));
  if (c->stream) {
    c->held.push_back(std::move(c->from_upstream));
    c->from_upstream.clear();
    flush_stream(id);
    return;
  }
  while (const auto length = resp_frame_length(c->from_upstream)) {
    std::string frame = c->from_upstream.substr(0, *length);
    c->from_upstream.erase(0, *length);
    send_to_client(id, std::move(frame), c->to, c->from);
  }
}

void Fabric::flush_stream(uint64_t id) {
  Connection* c = find(id);
  if (c == nullptr || c->flush_scheduled) return;
  // The route back to the connecting side now; none while the link is cut (or the route says
  // lost): then everything waits, in order, and is tried again in 5 ms.
  const auto route_back = [this, c, id]() -> std::optional<Network::Route> {
    std::optional<Network::Route> route;
    if (t0_ns_ == 0) {
      route = Network::Route{.dropped = std::nullopt, .delivery = true_now()};
    } else if (!network_.is_cut(c->to, c->from, true_now())) {
      route = network_.route(c->to, c->from, nullptr, true_now());
    }
    if (route && !route->dropped) return route;
    c->flush_scheduled = true;
    loop_.at(monotonic_ns() + 5'000'000, [this, id] {
      if (Connection* again = find(id)) {
        again->flush_scheduled = false;
        flush_stream(id);
      }
    });
    return std::nullopt;
  };
  while (!c->held.empty()) {
    const std::optional<Network::Route> route = route_back();
    if (!route) return;
    std::string bytes = std::move(c->held.front());
    c->held.pop_front();
    const Instant planned = route->delivery;
    const uint64_t epoch = c->stream_epoch;
    loop_.at(real_time_of(planned), [this, id, bytes = std::move(bytes), planned, epoch] {
      lateness_max_ns_ = std::max(lateness_max_ns_, (true_now() - planned).ns());
      Connection* c = find(id);
      if (c == nullptr || c->client_fd < 0 || c->stream_epoch != epoch) return;
      (void)::send(c->client_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    });
  }
  if (c->upstream_closed && !c->close_scheduled) {
    // The close, routed like a message: after every reply and byte sent before it.
    const std::optional<Network::Route> route = route_back();
    if (!route) return;
    c->close_scheduled = true;
    loop_.at(real_time_of(route->delivery), [this, id] { close_connection(id); });
  }
}

void Fabric::send_to_client(uint64_t id, std::string frame, ProcessId from, ProcessId to) {
  const Network::Route route = route_of(from, to, nullptr);
  if (route.dropped) {
    ++dropped_;
    return;
  }
  ++in_flight_;
  const Instant planned = route.delivery;
  loop_.at(real_time_of(planned), [this, id, frame = std::move(frame), from, to, planned] {
    --in_flight_;
    lateness_max_ns_ = std::max(lateness_max_ns_, (true_now() - planned).ns());
    Connection* c = find(id);
    if (c == nullptr || c->client_fd < 0 || (t0_ns_ != 0 && network_.is_cut(from, to, planned))) {
      ++dropped_;
      return;
    }
    ++delivered_;
    (void)::send(c->client_fd, frame.data(), frame.size(), MSG_NOSIGNAL);
  });
}

void Fabric::maybe_finish(uint64_t id) {
  Connection* c = find(id);
  if (c == nullptr || !c->client_closed || c->pending_to_upstream > 0) return;
  close_connection(id);
}

void Fabric::close_connection(uint64_t id) {
  Connection* c = find(id);
  if (c == nullptr) return;
  if (c->client_fd >= 0) {
    loop_.unwatch(c->client_fd);
    ::close(c->client_fd);
  }
  if (c->upstream_fd >= 0) {
    loop_.unwatch(c->upstream_fd);
    ::close(c->upstream_fd);
  }
  connections_.erase(id);
}

}  // namespace redlock_sim::real
