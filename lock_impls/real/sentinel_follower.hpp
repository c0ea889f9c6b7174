// A real client's view of a Sentinel-monitored master: one thread per sentinel, subscribed to
// `+switch-master`, calling back with the new master's announced address the moment any
// sentinel says so (the simulated client's on_unsolicited does the same with the sentinels'
// pushed messages). What a library in Sentinel mode does, reduced to the part a lock needs.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lock_impls/real/real_port.hpp"

namespace redlock_sim::real {

class SentinelFollower {
 public:
  // `on_switch(master_name, host, port)`, called from the sentinels' threads.
  using OnSwitch = std::function<void(const std::string&, const std::string&, int)>;

  SentinelFollower(std::string master_name, std::vector<Endpoint> sentinels, OnSwitch on_switch);
  ~SentinelFollower();
  SentinelFollower(const SentinelFollower&) = delete;
  SentinelFollower& operator=(const SentinelFollower&) = delete;

  // Waits up to `timeout` until every sentinel confirmed the subscription; false if one did not.
  bool wait_subscribed(Duration timeout) const;

 private:
  void follow(Endpoint sentinel);

  std::string master_name_;
  OnSwitch on_switch_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> subscribed_{0};
  std::size_t count_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace redlock_sim::real
