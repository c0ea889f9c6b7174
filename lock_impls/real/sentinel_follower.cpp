#include "lock_impls/real/sentinel_follower.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <chrono>
#include <cstdlib>

namespace redlock_sim::real {

SentinelFollower::SentinelFollower(std::string master_name, std::vector<Endpoint> sentinels,
                                   OnSwitch on_switch)
    : master_name_(std::move(master_name)),
      on_switch_(std::move(on_switch)),
      count_(sentinels.size()) {
  for (Endpoint& sentinel : sentinels)
    threads_.emplace_back([this, sentinel = std::move(sentinel)] { follow(sentinel); });
}

SentinelFollower::~SentinelFollower() {
  stopping_ = true;
  for (std::thread& thread : threads_)
    thread.join();
}

bool SentinelFollower::wait_subscribed(Duration timeout) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout.ns());
  while (subscribed_.load() < static_cast<int>(count_)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void SentinelFollower::follow(Endpoint sentinel) {
  bool counted = false;
  while (!stopping_) {
    // (Re)connect and subscribe; a sentinel that cannot be reached is tried again in 100 ms.
    const timeval connect_timeout{.tv_sec = 0, .tv_usec = 500'000};
    redisContext* context =
        redisConnectWithTimeout(sentinel.host.c_str(), sentinel.port, connect_timeout);
    if (context == nullptr || context->err != 0) {
      if (context != nullptr) redisFree(context);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    redisAppendCommand(context, "SUBSCRIBE +switch-master");
    int done = 0;
    while (done == 0)
      if (redisBufferWrite(context, &done) != REDIS_OK) break;
    while (!stopping_ && context->err == 0) {
      pollfd p{.fd = context->fd, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      if (redisBufferRead(context) != REDIS_OK) break;
      void* raw = nullptr;
      while (redisGetReplyFromReader(context, &raw) == REDIS_OK && raw != nullptr) {
        auto* reply = static_cast<redisReply*>(raw);
        // ["subscribe", channel, n] or ["message", "+switch-master",
        //  "<name> <old-ip> <old-port> <new-ip> <new-port>"].
        if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 3 &&
            reply->element[0]->type == REDIS_REPLY_STRING) {
          const std::string kind(reply->element[0]->str, reply->element[0]->len);
          if (kind == "subscribe" && !counted) {
            counted = true;
            ++subscribed_;
          } else if (kind == "message" && reply->element[2]->type == REDIS_REPLY_STRING) {
            const std::string text(reply->element[2]->str, reply->element[2]->len);
            std::vector<std::string> words;
            std::size_t start = 0;
            while (start <= text.size()) {
              const std::size_t end = std::min(text.find(' ', start), text.size());
              words.push_back(text.substr(start, end - start));
              start = end + 1;
            }
            if (words.size() == 5 && words[0] == master_name_) {
              on_switch_(words[0], words[3], std::atoi(words[4].c_str()));
            }
          }
        }
        freeReplyObject(reply);
        raw = nullptr;
      }
    }
    redisFree(context);
    if (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace redlock_sim::real
