// A process that answers each request with a reply computed by a handler, with zero service time
// (the catalogue's convention: a command executes when it is delivered). Redis nodes, the
// resource service and test servers build on it.
#pragma once

#include <functional>
#include <string>

#include "sim/kernel/simulator.hpp"

namespace redlock_sim {

class ServerProcess : public Process {
 public:
  using Handler = std::function<Reply(ServerProcess& self, const Message& request)>;
  ServerProcess(Simulator& simulator, ProcessId id, std::string name, Handler handler = {})
      : Process(simulator, id, std::move(name)), handler_(std::move(handler)) {}

  uint64_t requests_served() const { return requests_served_; }

 protected:
  virtual Reply handle(const Message& request) {
    return handler_ ? handler_(*this, request) : Reply::ok();
  }
  void on_message(Message& message) override {
    if (message.is_reply) return;
    ++requests_served_;
    Reply reply = handle(message);
    if (message.request_id != 0) reply_to(message, std::move(reply));
  }
  void on_timer(uint64_t /*tag*/) override {}

 private:
  Handler handler_;
  uint64_t requests_served_ = 0;
};

}  // namespace redlock_sim
