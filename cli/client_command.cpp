// `redlock-sim client --config JSON`: one real client process of real-process mode. It runs a
// registry lock (family, profile or zoo variant) over the real port against the endpoints the
// harness gives it, reads commands from standard input one line at a time, and writes one JSON
// event per line to standard output, stamped with CLOCK_MONOTONIC. docs/real-mode.md is the
// protocol; a driver for another language's library speaks the same one.
#include <time.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "lock_impls/real/real_port.hpp"
#include "lock_impls/real/sentinel_follower.hpp"
#include "sim/kernel/random.hpp"
#include "sim/resource/resource.hpp"

namespace redlock_sim::cli {
namespace {

using nlohmann::json;

int64_t clock_ns(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Words drawn from the random stream so far (every event reports it, so a restart can go on).
uint64_t random_words = 0;

const char* clock_name(ClockKind kind) {
  return kind == ClockKind::wall ? "wall" : "monotonic";
}

json deadline_json(const Deadline& deadline) {
  if (!deadline.bounded()) return json{{"clock", "none"}};
  return json{{"clock", clock_name(deadline.clock)}, {"at_ns", deadline.at.ns()}};
}

// One event line; the sentinel follower's threads write too, so lines are written whole.
void emit_event(json event) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  event["mono_ns"] = clock_ns(CLOCK_MONOTONIC);
  event["random_words"] = random_words;
  event["wall_ns"] = clock_ns(CLOCK_REALTIME);
  const std::string text = event.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// A failover group the client names: its sentinels, and each member by the port the sentinels
// announce it at, with the endpoint this client reaches it through.
struct GroupConfig {
  std::string name;
  std::vector<real::Endpoint> sentinels;
  struct Member {
    std::string name;
    int announced = 0;
    real::Endpoint endpoint;
  };
  std::vector<Member> members;
};

struct ClientConfig {
  ClientSpec spec;
  std::vector<real::Endpoint> endpoints;  // the lock's nodes, then the resource if any
  ResourceSpec resource;
  std::optional<uint64_t> seed;  // the scenario's: draw what the simulated client would draw
  uint64_t random_skip = 0;      // words an earlier life of this client drew from the stream
  std::optional<GroupConfig> group;
};

std::optional<std::string> parse_config(const std::string& text, ClientConfig& config) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "--config is not a JSON object";
  try {
    config.spec.name = j.at("client").get<std::string>();
    config.spec.profile = j.at("profile").get<std::string>();
    config.spec.lock = j.value("lock", std::string("lock"));
    config.spec.watchdog = j.value("watchdog", true);
    if (j.contains("seed")) config.seed = j.at("seed").get<uint64_t>();
    config.random_skip = j.value("random_skip", uint64_t{0});
    if (j.contains("params")) {
      const json& params = j.at("params");
      for (auto it = params.begin(); it != params.end(); ++it) {
        if (it->is_boolean()) {
          config.spec.params[it.key()] = it->get<bool>();
        } else if (it->is_number_integer()) {
          config.spec.params[it.key()] = it->get<int64_t>();
        } else {
          config.spec.params[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
        }
      }
    }
    for (const json& node : j.at("nodes")) {
      config.spec.nodes.push_back(node.at("name").get<std::string>());
      config.endpoints.push_back(
          {node.value("host", std::string("127.0.0.1")), node.at("port").get<int>()});
    }
    if (j.contains("group")) {
      const json& g = j.at("group");
      GroupConfig group{.name = g.at("name").get<std::string>(), .sentinels = {}, .members = {}};
      for (const json& s : g.at("sentinels"))
        group.sentinels.push_back(
            {s.value("host", std::string("127.0.0.1")), s.at("port").get<int>()});
      for (const json& m : g.at("members")) {
        group.members.push_back(
            {m.at("name").get<std::string>(),
             m.at("announced").get<int>(),
             {m.value("host", std::string("127.0.0.1")), m.at("port").get<int>()}});
      }
      config.group = std::move(group);
    }
    if (j.contains("resource")) {
      const json& r = j.at("resource");
      config.resource.enabled = true;
      config.resource.name = r.value("name", std::string("register"));
      const std::optional<FencingMode> mode =
          parse_fencing_mode(r.value("fencing", std::string("none")));
      if (!mode) return "resource.fencing: unknown mode";
      config.resource.fencing = *mode;
      config.endpoints.push_back(
          {r.value("host", std::string("127.0.0.1")), r.at("port").get<int>()});
    }
  } catch (const json::exception& error) {
    return std::string("--config: ") + error.what();
  }
  return std::nullopt;
}

// The process: the lock, the current grant and what the harness told it about that grant.
class RealClient {
 public:
  RealClient(ClientConfig config, std::unique_ptr<LockClient> lock, real::RealPort& port)
      : config_(std::move(config)), lock_(std::move(lock)), port_(port) {
    lock_->set_note_sink([this](std::string note) { emit({{"event", "note"}, {"text", note}}); });
  }

  Task<void> serve() {
    emit({{"event", "ready"}, {"profile", config_.spec.profile}});
    while (true) {
      std::optional<std::string> line = co_await port_.next_input();
      if (!line || *line == "quit") break;
      std::istringstream words(*line);
      std::string verb;
      words >> verb;
      const int64_t started = clock_ns(CLOCK_MONOTONIC);
      if (verb == "acquire") {
        co_await acquire(started);
      } else if (verb == "release") {
        co_await release(started);
      } else if (verb == "extend") {
        co_await extend(started);
      } else if (verb == "read") {
        int64_t timeout_ms = 1'000;
        words >> timeout_ms;
        co_await read(started, timeout_ms);
      } else if (verb == "write") {
        int64_t timeout_ms = 1'000;
        words >> timeout_ms;
        std::optional<int64_t> value;
        int64_t v = 0;
        if (words >> v) value = v;
        co_await write(started, timeout_ms, value);
      } else if (verb == "sleep") {
        int64_t ms = 0;
        words >> ms;
        co_await port_.sleep(Duration::from_ms(ms));
        emit({{"event", "slept"}, {"start_mono_ns", started}});
      } else if (verb == "check") {
        emit({{"event", "checked"}, {"start_mono_ns", started}, {"expired", validity_passed()}});
      } else if (verb == "grant") {
        // The harness numbers grants across clients and hands out the oracle's tokens.
        words >> grant_id_;
        int64_t token = 0;
        if (words >> token) fencing_token_ = token;
      } else {
        emit({{"event", "error"}, {"text", "unknown command '" + verb + "'"}});
      }
    }
  }

 private:
  void emit(json event) { emit_event(std::move(event)); }

  bool validity_passed() {
    if (!lease_ || !lease_->deadline.bounded()) return lease_ == nullptr;
    const Instant now =
        lease_->deadline.clock == ClockKind::wall ? port_.wall_now() : port_.monotonic_now();
    return now >= lease_->deadline.at;
  }

  Task<void> acquire(int64_t started) {
    Grant grant = co_await lock_->acquire(config_.spec.lock);
    if (!grant.acquired) {
      emit({{"event", "acquire_failed"},
            {"start_mono_ns", started},
            {"attempts", grant.attempts},
            {"failure", grant.failure}});
      co_return;
    }
    if (lease_) outer_.push_back({lease_, grant_id_, fencing_token_});
    lease_ = grant.lease;
    grant_id_ = 0;
    fencing_token_ = lease_->fencing_token;
    // Grants are numbered by the process (a re-entrant lock gives every grant the same value).
    const uint64_t number = ++leases_;
    json event{{"event", "granted"},         {"start_mono_ns", started},
               {"attempts", grant.attempts}, {"lease", number},
               {"value", lease_->value},     {"deadline", deadline_json(lease_->deadline)}};
    if (lease_->fencing_token) event["fencing_token"] = *lease_->fencing_token;
    emit(std::move(event));
    lease_->on_lost = [this, number](const Lease& lease) {
      emit({{"event", "lost"}, {"lease", number}, {"reason", lease.lost_reason}});
    };
    lease_->on_renewed = [this, number](const Lease& lease) {
      emit({{"event", "renewed"}, {"lease", number}, {"deadline", deadline_json(lease.deadline)}});
    };
    if (config_.spec.watchdog && lock_->has_watchdog()) {
      port_.spawn(watch(lease_, number));
    }
  }

  Task<void> watch(std::shared_ptr<Lease> lease, uint64_t number) {
    emit({{"event", "watchdog_started"}, {"lease", number}});
    co_await lock_->run_watchdog(lease);
    emit({{"event", "watchdog_stopped"}, {"lease", number}});
  }

  Task<void> release(int64_t started) {
    if (!lease_) {
      emit({{"event", "release_failed"}, {"start_mono_ns", started}, {"failure", "not held"}});
      co_return;
    }
    std::shared_ptr<Lease> lease = std::move(lease_);
    grant_id_ = 0;
    fencing_token_.reset();
    if (!outer_.empty()) {  // the grant this one re-entered is current again
      lease_ = outer_.back().lease;
      grant_id_ = outer_.back().grant_id;
      fencing_token_ = outer_.back().fencing_token;
      outer_.pop_back();
    }
    ReleaseResult result = co_await lock_->release(lease);
    emit({{"event", result.released ? "released" : "release_failed"},
          {"start_mono_ns", started},
          {"nodes", result.nodes},
          {"failure", result.failure}});
  }

  Task<void> extend(int64_t started) {
    if (!lease_) {
      emit({{"event", "extend_failed"}, {"start_mono_ns", started}, {"failure", "not held"}});
      co_return;
    }
    std::shared_ptr<Lease> lease = lease_;
    ExtendResult result = co_await lock_->extend(lease);
    json event{{"event", result.extended ? "extended" : "extend_failed"},
               {"start_mono_ns", started},
               {"nodes", result.nodes},
               {"failure", result.failure}};
    if (result.extended) event["deadline"] = deadline_json(result.deadline);
    emit(std::move(event));
  }

  NodeId resource_endpoint() const { return static_cast<NodeId>(config_.spec.nodes.size()); }

  ResourceRequest resource_request() const {
    return ResourceRequest{.fencing = config_.resource.fencing,
                           .resource = config_.resource.name,
                           .owner = lease_ ? lease_->value : std::string("-"),
                           .token = fencing_token_,
                           .grant_id = grant_id_};
  }

  Task<void> read(int64_t started, int64_t timeout_ms) {
    const ResourceSpec& resource = config_.resource;
    const Duration timeout = Duration::from_ms(timeout_ms);
    if (!resource.enabled) {
      emit({{"event", "read"}, {"start_mono_ns", started}, {"ok", false}, {"text", "no resource"}});
      co_return;
    }
    const ResourceRequest request = resource_request();
    if (std::optional<redlock_sim::Command> set_owner = resource_set_owner_command(request)) {
      Outcome set = co_await port_.send(resource_endpoint(), std::move(*set_owner), timeout);
      if (!set.replied() || set.reply.is_error()) {
        emit({{"event", "read"},
              {"start_mono_ns", started},
              {"ok", false},
              {"text", "setowner failed"}});
        co_return;
      }
    }
    Outcome outcome =
        co_await port_.send(resource_endpoint(), resource_read_command(request), timeout);
    if (!outcome.replied() || outcome.reply.type != ReplyType::integer) {
      emit(
          {{"event", "read"},
           {"start_mono_ns", started},
           {"ok", false},
           {"text", outcome.replied() ? "read refused: " + outcome.reply.text : "read timed out"}});
      co_return;
    }
    last_read_ = outcome.reply.integer;
    emit({{"event", "read"}, {"start_mono_ns", started}, {"ok", true}, {"value", last_read_}});
  }

  Task<void> write(int64_t started, int64_t timeout_ms, std::optional<int64_t> value) {
    const ResourceSpec& resource = config_.resource;
    const int64_t v = value.value_or(last_read_ + 1);
    const uint64_t grant_id = grant_id_;
    if (!resource.enabled) {
      emit({{"event", "write"},
            {"start_mono_ns", started},
            {"acknowledged", false},
            {"value", v},
            {"text", "no resource"}});
      co_return;
    }
    Outcome outcome =
        co_await port_.send(resource_endpoint(), resource_write_command(resource_request(), v),
                            Duration::from_ms(timeout_ms));
    const bool acknowledged = outcome.replied() && outcome.reply.is_ok();
    emit({{"event", "write"},
          {"start_mono_ns", started},
          {"acknowledged", acknowledged},
          {"grant", grant_id},
          {"value", v},
          {"text", outcome.replied() ? outcome.reply.text : std::string("timeout")}});
  }

  struct Held {
    std::shared_ptr<Lease> lease;
    uint64_t grant_id = 0;
    std::optional<int64_t> fencing_token;
  };
  ClientConfig config_;
  std::unique_ptr<LockClient> lock_;
  real::RealPort& port_;
  std::shared_ptr<Lease> lease_;
  uint64_t grant_id_ = 0;
  std::optional<int64_t> fencing_token_;
  std::vector<Held> outer_;
  int64_t last_read_ = 0;
  uint64_t leases_ = 0;
};

int run_client(const std::vector<std::string>& arguments) {
  if (arguments.size() == 1 && (arguments[0] == "--help" || arguments[0] == "-h")) {
    std::printf(
        "redlock-sim client --config JSON\n\n"
        "One real client process of real-process mode ('redlock-sim real' starts it): runs a\n"
        "registry lock against real redis-servers, commands in on standard input, JSON events\n"
        "out on standard output. docs/real-mode.md describes the protocol.\n");
    return exit_ok;
  }
  if (arguments.size() != 2 || arguments[0] != "--config") {
    return bad_input("client: usage: redlock-sim client --config JSON");
  }
  ClientConfig config;
  if (auto error = parse_config(arguments[1], config)) return bad_input("client: " + *error);
  if (auto error = registry_profile_check()(config.spec)) return bad_input("client: " + *error);
  real::RealPortOptions port_options;
  if (config.seed) {
    // The simulator's stream for this process (sim/kernel/task_process.cpp), bytes packed the
    // same way, so retry jitter and lock values follow the simulated run's.
    // A restarted client goes on where its earlier life stopped, as the simulated process's
    // one stream does.
    auto random =
        std::make_shared<Rng>(Rng::derive(*config.seed, "process/" + config.spec.name + "/random"));
    for (uint64_t i = 0; i < config.random_skip; ++i)
      random->next_u64();
    random_words = config.random_skip;
    port_options.random_source = [random](std::span<uint8_t> out) {
      for (std::size_t i = 0; i < out.size(); i += 8) {
        ++random_words;
        uint64_t word = random->next_u64();
        for (std::size_t j = i; j < out.size() && j < i + 8; ++j) {
          out[j] = static_cast<uint8_t>(word);
          word >>= 8;
        }
      }
    };
  }
  real::RealPort port(config.endpoints, port_options);
  std::string error;
  std::unique_ptr<LockClient> lock = registry_lock_factory()(config.spec, port, error);
  if (!lock) return bad_input("client: " + error);
  // Standard input is read on its own thread and handed to the coroutines through the port.
  std::thread reader([&port] {
    std::string line;
    while (std::getline(std::cin, line))
      port.post_input(line);
    port.post_input(std::nullopt);
  });
  reader.detach();
  // A client naming a failover group follows its sentinels' +switch-master.
  std::unique_ptr<real::SentinelFollower> follower;
  if (config.group) {
    const GroupConfig group = *config.group;
    std::vector<std::size_t> indexes;
    for (std::size_t i = 0; i < config.spec.nodes.size(); ++i)
      if (config.spec.nodes[i] == group.name) indexes.push_back(i);
    follower = std::make_unique<real::SentinelFollower>(
        group.name, group.sentinels,
        [group, indexes, &port](const std::string& name, const std::string&, int announced) {
          for (const GroupConfig::Member& member : group.members) {
            if (member.announced != announced) continue;
            for (const std::size_t index : indexes)
              port.redirect(index, member.endpoint);
            emit_event({{"event", "note"},
                        {"text", "learns the master of " + name + " is now " + member.name}});
          }
        });
    if (!follower->wait_subscribed(Duration::from_s(5))) {
      std::fprintf(stderr, "client: could not subscribe to every sentinel of %s\n",
                   group.name.c_str());
      std::_Exit(exit_bad_input);
    }
  }
  RealClient client(std::move(config), std::move(lock), port);
  port.run(client.serve());
  std::fflush(stdout);
  // The reader thread may still be blocked on standard input: leave without unwinding it.
  std::_Exit(exit_ok);
}

const Registrar registrar({"client",
                           "one real client process of real-process mode (used by 'real')",
                           &run_client});

}  // namespace
}  // namespace redlock_sim::cli
