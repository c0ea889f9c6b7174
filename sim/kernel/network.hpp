// The simulated network: per-link one-way delays, FIFO per connection, loss, partitions and held
// messages.
//
// Semantics (docs/kernel.md has the reasons):
// - Each directed link (from, to) is one TCP connection direction: FIFO, so a message is never
//   delivered before one sent earlier on the same link. A held message holds the ones behind it.
// - A partition drops what is sent across it, and what was in flight when it started. Partition
//   rules carry their own [start, end) window in true time, one-way or two-way.
// - Delays and losses are drawn per link from the link's own random stream, named by its
//   endpoints' process names ("network/link/A/N3"), never by their ids: a scenario reduced by one
//   process keeps every other link's draws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lock_impls/port/time.hpp"
#include "sim/kernel/random.hpp"

namespace redlock_sim {

using ProcessId = uint32_t;

struct DelaySpec {
  enum class Kind : uint8_t {
    fixed,    // always `min`
    uniform,  // uniform in [min, max]
    // Discrete Pareto, integer-only: the delay lands in [min*2^k, min*2^(k+1)) with probability
    // (1-p)p^k where p = tail_numerator/tail_denominator, capped at `max`. Heavy-tailed like a
    // real network's (most fast, a few very slow) with no floating point.
    pareto,
  };
  Kind kind = Kind::fixed;
  Duration min = Duration::from_ms(1);
  Duration max = Duration::from_ms(1);
  uint32_t tail_numerator = 1;
  uint32_t tail_denominator = 2;

  static DelaySpec fixed(Duration d) { return {Kind::fixed, d, d, 1, 2}; }
  static DelaySpec uniform(Duration low, Duration high) { return {Kind::uniform, low, high, 1, 2}; }
  static DelaySpec pareto(Duration low, Duration cap, uint32_t tail_numerator,
                          uint32_t tail_denominator) {
    return {Kind::pareto, low, cap, tail_numerator, tail_denominator};
  }
  Duration draw(Rng& rng) const;
};

struct PartitionRule {
  std::vector<ProcessId> side_a;
  std::vector<ProcessId> side_b;
  bool one_way = false;  // when true only a -> b is cut
  Instant start = Instant::zero();
  Instant end = Instant::max();
};

// Holds the first `count` matching messages sent in [active_from, release_at) until release_at.
struct HoldRule {
  std::optional<ProcessId> from;
  std::optional<ProcessId> to;
  std::string command;  // matches argv[0] case-insensitively; empty matches any message
  Instant active_from = Instant::zero();
  Instant release_at = Instant::zero();
  uint32_t count = 1;
};

enum class DropReason : uint8_t { partition, loss, destination_down, in_flight_limit };
const char* drop_reason_name(DropReason reason);

class Network {
 public:
  explicit Network(uint64_t seed) : seed_(seed) {}

  void set_default_delay(const DelaySpec& delay) { default_delay_ = delay; }
  void set_link_delay(ProcessId from, ProcessId to, const DelaySpec& delay);
  void set_link_loss(ProcessId from, ProcessId to, uint32_t numerator, uint32_t denominator);
  // The link's loss probability [numerator, denominator]; [0, 1] for a link never given one.
  std::pair<uint32_t, uint32_t> link_loss(ProcessId from, ProcessId to) const;
  // Returns the rule's index, so it can be healed early with `heal`.
  std::size_t add_partition(PartitionRule rule);
  void heal(std::size_t partition_index, Instant at);
  void add_hold(HoldRule rule) {
    holds_start_min_ = std::min(holds_start_min_, rule.active_from);
    holds_end_max_ = std::max(holds_end_max_, rule.release_at);
    holds_.push_back(std::move(rule));
  }

  // Inline for the common case of no partition in force (every message asks, twice).
  bool is_cut(ProcessId from, ProcessId to, Instant at) const {
    return at >= partitions_start_min_ && at < partitions_end_max_ && cut_by_rules(from, to, at);
  }

  struct Route {
    std::optional<DropReason> dropped;
    Instant delivery;
  };
  // Decides the fate of a message sent now: dropped, or delivered at a time that respects FIFO.
  // Inline for the common case (every message asks): a link used before, without loss, over a
  // fixed delay; the rest in route_otherwise.
  Route route(ProcessId from, ProcessId to, const std::string* command_name, Instant now) {
    if (is_cut(from, to, now)) return {DropReason::partition, now};
    Link& l = link(from, to);
    const DelaySpec& spec = l.delay ? *l.delay : default_delay_;
    if (!l.rng || l.loss_numerator > 0 || spec.kind != DelaySpec::Kind::fixed) [[unlikely]] {
      return route_otherwise(l, from, to, command_name, now);
    }
    Instant delivery = now + spec.min;
    if (now >= holds_start_min_ && now < holds_end_max_) {
      delivery = held_until(from, to, command_name, now, delivery);
    }
    delivery = std::max(delivery, l.last_delivery);  // FIFO per connection
    l.last_delivery = delivery;
    return {std::nullopt, delivery};
  }

  // Every process the network routes for is named first: its links' streams derive from names.
  void name_process(ProcessId id, std::string name);

 private:
  struct Link {
    std::optional<DelaySpec> delay;
    uint32_t loss_numerator = 0;
    uint32_t loss_denominator = 1;
    Instant last_delivery = Instant::zero();
    std::optional<Rng> rng;
  };
  // Inline in route: a link found is the path of nearly every message. A pair not found, ids
  // out of range included, goes to add_link, which checks them.
  Link& link(ProcessId from, ProcessId to) {
    const uint64_t key = (uint64_t{from} << 32) | to;
    if (!link_table_.empty()) {
      const LinkTableEntry& entry = link_table_[table_position(key)];
      if (entry.key == key) return links_[entry.link];
    }
    return add_link(key);
  }
  Link& add_link(uint64_t key);
  // Where the link's index is in link_table_, or the empty entry where it would go.
  std::size_t table_position(uint64_t key) const {
    const std::size_t mask = link_table_.size() - 1;
    // Fibonacci hashing: the product's high bits spread neighbouring ids over the table.
    std::size_t position =
        static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> link_table_shift_);
    while (link_table_[position].key != key && link_table_[position].key != empty_key) {
      position = (position + 1) & mask;
    }
    return position;
  }
  // route() past its common case: the link's stream made at its first message, loss, a drawn
  // delay.
  Route route_otherwise(Link& l, ProcessId from, ProcessId to, const std::string* command_name,
                        Instant now);
  void grow_link_table();
  void update_partition_window();
  bool cut_by_rules(ProcessId from, ProcessId to, Instant at) const;
  static bool side_contains(const std::vector<ProcessId>& side, ProcessId id);
  // A rule's sides as bit sets of process ids, when every id in them is below 64 (a world of a
  // few dozen processes): a bit test each instead of a binary search. By partitions_' index.
  struct SideBits {
    uint64_t a = 0;
    uint64_t b = 0;
    bool usable = false;  // both sides' ids below 64
  };
  static bool has_bit(uint64_t bits, ProcessId id) { return id < 64 && ((bits >> id) & 1) != 0; }
  std::vector<SideBits> partition_bits_;
  // `delivery`, or the release time of the first hold rule that takes the message.
  Instant held_until(ProcessId from, ProcessId to, const std::string* command_name, Instant now,
                     Instant delivery);

  uint64_t seed_;
  std::size_t process_count_ = 0;
  std::vector<std::string> names_;  // by ProcessId
  DelaySpec default_delay_ = DelaySpec::fixed(Duration::from_ms(1));
  // The links used so far, made on first use: a run's links grow with the pairs that talk
  // (nodes x clients), not with the square of its processes (a dense matrix made 1000 nodes cost
  // 18 s and 300 MB, most of it in growing the matrix). Found by (from, to) in an open-addressing
  // table (a power of two of entries, at most half full, linear probing), which is never iterated:
  // a per-sender row searched by binary search cost about 70 instructions a message.
  struct LinkTableEntry {
    uint64_t key = empty_key;  // (from << 32) | to
    uint32_t link = 0;         // index in links_
  };
  static constexpr uint64_t empty_key = UINT64_MAX;  // no process has the id UINT32_MAX
  std::vector<Link> links_;
  std::vector<LinkTableEntry> link_table_;
  uint32_t link_table_shift_ = 64;  // 64 - log2(link_table_.size())
  std::vector<PartitionRule> partitions_;
  // No rule is in force outside [partitions_start_min_, partitions_end_max_).
  Instant partitions_start_min_ = Instant::max();
  Instant partitions_end_max_ = Instant::zero();
  std::vector<HoldRule> holds_;
  // No hold rule holds a message sent outside [holds_start_min_, holds_end_max_): route() walks
  // the rules only inside it.
  Instant holds_start_min_ = Instant::max();
  Instant holds_end_max_ = Instant::zero();
};

}  // namespace redlock_sim
