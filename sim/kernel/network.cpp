#include "sim/kernel/network.hpp"

#include <algorithm>
#include <bit>
#include <cctype>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

const char* drop_reason_name(DropReason reason) {
  switch (reason) {
    case DropReason::partition:
      return "partition";
    case DropReason::loss:
      return "loss";
    case DropReason::destination_down:
      return "destination_down";
    case DropReason::in_flight_limit:
      return "in_flight_limit";
  }
  return "unknown";
}

Duration DelaySpec::draw(Rng& rng) const {
  switch (kind) {
    case Kind::fixed:
      return min;
    case Kind::uniform:
      return Duration::from_ns(rng.between(min.ns(), max.ns()));
    case Kind::pareto: {
      int64_t band_low = std::max<int64_t>(min.ns(), 1);
      // Each doubling of the band continues with probability p; bounded by the cap.
      while (band_low < max.ns() && rng.chance(tail_numerator, tail_denominator)) {
        band_low = std::min(band_low * 2, max.ns());
      }
      const int64_t band_high = std::min(band_low * 2 - 1, max.ns());
      return Duration::from_ns(rng.between(std::min(band_low, band_high), band_high));
    }
  }
  return min;
}

void Network::name_process(ProcessId id, std::string name) {
  SIM_ASSERT(!name.empty());
  SIM_ASSERT_LT(id, UINT32_MAX);
  if (id >= process_count_) {
    process_count_ = static_cast<std::size_t>(id) + 1;
    names_.resize(process_count_);
  }
  names_[id] = std::move(name);
}

namespace {
uint64_t link_key(ProcessId from, ProcessId to) {
  return (uint64_t{from} << 32) | to;
}
}  // namespace

void Network::grow_link_table() {
  std::vector<LinkTableEntry> old = std::move(link_table_);
  link_table_.assign(old.empty() ? 64 : old.size() * 2, LinkTableEntry{});
  link_table_shift_ = static_cast<uint32_t>(64 - std::countr_zero(link_table_.size()));
  for (const LinkTableEntry& entry : old) {
    if (entry.key != empty_key) link_table_[table_position(entry.key)] = entry;
  }
}

Network::Link& Network::add_link(uint64_t key) {
  SIM_ASSERT_LT(key >> 32, process_count_);
  SIM_ASSERT_LT(key & UINT32_MAX, process_count_);
  if (2 * (links_.size() + 1) > link_table_.size()) grow_link_table();
  LinkTableEntry& entry = link_table_[table_position(key)];
  entry.key = key;
  entry.link = static_cast<uint32_t>(links_.size());
  links_.emplace_back();
  return links_.back();
}

void Network::set_link_delay(ProcessId from, ProcessId to, const DelaySpec& delay) {
  link(from, to).delay = delay;
}

void Network::set_link_loss(ProcessId from, ProcessId to, uint32_t numerator,
                            uint32_t denominator) {
  SIM_ASSERT(denominator > 0);
  Link& l = link(from, to);
  l.loss_numerator = numerator;
  l.loss_denominator = denominator;
}

std::pair<uint32_t, uint32_t> Network::link_loss(ProcessId from, ProcessId to) const {
  SIM_ASSERT_LT(from, process_count_);
  SIM_ASSERT_LT(to, process_count_);
  if (link_table_.empty()) return {0, 1};
  const LinkTableEntry& entry = link_table_[table_position(link_key(from, to))];
  if (entry.key == empty_key) return {0, 1};
  const Link& l = links_[entry.link];
  return {l.loss_numerator, l.loss_denominator};
}

std::size_t Network::add_partition(PartitionRule rule) {
  std::sort(rule.side_a.begin(), rule.side_a.end());
  std::sort(rule.side_b.begin(), rule.side_b.end());
  SideBits bits;
  bits.usable = (rule.side_a.empty() || rule.side_a.back() < 64) &&
                (rule.side_b.empty() || rule.side_b.back() < 64);
  if (bits.usable) {
    for (const ProcessId id : rule.side_a)
      bits.a |= uint64_t{1} << id;
    for (const ProcessId id : rule.side_b)
      bits.b |= uint64_t{1} << id;
  }
  // Both grow, or neither (no per-rule reserve: that would reallocate at every rule).
  partition_bits_.push_back(bits);
  try {
    partitions_.push_back(std::move(rule));
  } catch (...) {
    partition_bits_.pop_back();
    throw;
  }
  update_partition_window();
  return partitions_.size() - 1;
}

void Network::update_partition_window() {
  partitions_start_min_ = Instant::max();
  partitions_end_max_ = Instant::zero();
  for (const PartitionRule& rule : partitions_) {
    partitions_start_min_ = std::min(partitions_start_min_, rule.start);
    partitions_end_max_ = std::max(partitions_end_max_, rule.end);
  }
}

void Network::heal(std::size_t partition_index, Instant at) {
  SIM_ASSERT_LT(partition_index, partitions_.size());
  partitions_[partition_index].end = std::min(partitions_[partition_index].end, at);
  update_partition_window();
}

inline bool Network::side_contains(const std::vector<ProcessId>& side, ProcessId id) {
  return std::binary_search(side.begin(), side.end(), id);
}

bool Network::cut_by_rules(ProcessId from, ProcessId to, Instant at) const {
  for (std::size_t i = 0; i < partitions_.size(); ++i) {
    const PartitionRule& rule = partitions_[i];
    if (at < rule.start || at >= rule.end) continue;
    const SideBits& bits = partition_bits_[i];
    if (bits.usable) {
      if (has_bit(bits.a, from) && has_bit(bits.b, to)) return true;
      if (!rule.one_way && has_bit(bits.b, from) && has_bit(bits.a, to)) return true;
      continue;
    }
    if (side_contains(rule.side_a, from) && side_contains(rule.side_b, to)) return true;
    if (!rule.one_way && side_contains(rule.side_b, from) && side_contains(rule.side_a, to)) {
      return true;
    }
  }
  return false;
}

namespace {
bool same_command(const std::string& rule, const std::string& name) {
  if (rule.size() != name.size()) return false;
  for (std::size_t i = 0; i < rule.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(rule[i])) !=
        std::tolower(static_cast<unsigned char>(name[i]))) {
      return false;
    }
  }
  return true;
}
}  // namespace

Network::Route Network::route_otherwise(Link& l, ProcessId from, ProcessId to,
                                        const std::string* command_name, Instant now) {
  if (!l.rng) {
    SIM_ASSERT(!names_[from].empty() && !names_[to].empty());  // every endpoint is named
    l.rng.emplace(Rng::derive(seed_, "network/link/" + names_[from] + "/" + names_[to]));
  }
  if (l.loss_numerator > 0 && l.rng->chance(l.loss_numerator, l.loss_denominator)) {
    return {DropReason::loss, now};
  }
  const DelaySpec& spec = l.delay ? *l.delay : default_delay_;
  // A fixed delay draws nothing from the stream: no call for it.
  Instant delivery = now + (spec.kind == DelaySpec::Kind::fixed ? spec.min : spec.draw(*l.rng));
  if (now >= holds_start_min_ && now < holds_end_max_) {
    delivery = held_until(from, to, command_name, now, delivery);
  }
  delivery = std::max(delivery, l.last_delivery);  // FIFO per connection
  l.last_delivery = delivery;
  return {std::nullopt, delivery};
}

Instant Network::held_until(ProcessId from, ProcessId to, const std::string* command_name,
                            Instant now, Instant delivery) {
  for (HoldRule& hold : holds_) {
    if (hold.count == 0 || now < hold.active_from || now >= hold.release_at) continue;
    if (hold.from && *hold.from != from) continue;
    if (hold.to && *hold.to != to) continue;
    if (!hold.command.empty() &&
        (command_name == nullptr || !same_command(hold.command, *command_name))) {
      continue;
    }
    --hold.count;
    return std::max(delivery, hold.release_at);
  }
  return delivery;
}

}  // namespace redlock_sim
