#include "sim/replication/wire.hpp"

#include <charconv>

namespace redlock_sim::cluster_wire {

int64_t resp_length(const Command& command) {
  return PropagatedCommand::resp_length(command);
}

void append_int(Command& out, int64_t value) {
  out.push_back(std::to_string(value));
}

void append_commands(Command& out, const std::vector<Command>& commands) {
  append_int(out, static_cast<int64_t>(commands.size()));
  for (const Command& command : commands) {
    append_int(out, static_cast<int64_t>(command.size()));
    out.insert(out.end(), command.begin(), command.end());
  }
}

namespace {
const char* type_code(ValueType type) {
  switch (type) {
    case ValueType::string:
      return "s";
    case ValueType::hash:
      return "h";
    case ValueType::list:
      return "l";
  }
  return "s";
}
}  // namespace

void append_snapshot(Command& out, const std::vector<SnapshotEntry>& entries) {
  append_int(out, static_cast<int64_t>(entries.size()));
  for (const SnapshotEntry& entry : entries) {
    const Value& value = entry.value;
    out.push_back(entry.key);
    out.push_back(type_code(value.type));
    append_int(out, value.expire_at_ms);
    if (value.type == ValueType::string) {
      append_int(out, 1);
      out.push_back(value.string);
    } else if (value.type == ValueType::hash) {
      append_int(out, static_cast<int64_t>(value.hash.size() * 2));
      for (const auto& [field, field_value] : value.hash) {
        out.push_back(field);
        out.push_back(field_value);
      }
    } else {
      append_int(out, static_cast<int64_t>(value.list.size()));
      out.insert(out.end(), value.list.begin(), value.list.end());
    }
  }
}

std::optional<std::string> Reader::read_string() {
  if (position_ >= message_.size()) return std::nullopt;
  return message_[position_++];
}

std::optional<int64_t> Reader::read_int() {
  if (position_ >= message_.size()) return std::nullopt;
  const std::string& text = message_[position_++];
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::vector<Command>> Reader::read_commands() {
  const auto count = read_int();
  if (!count || *count < 0) return std::nullopt;
  std::vector<Command> commands;
  for (int64_t i = 0; i < *count; ++i) {
    const auto argc = read_int();
    if (!argc || *argc < 0 || position_ + static_cast<std::size_t>(*argc) > message_.size()) {
      return std::nullopt;
    }
    const auto first = message_.begin() + static_cast<std::ptrdiff_t>(position_);
    commands.emplace_back(first, first + *argc);
    position_ += static_cast<std::size_t>(*argc);
  }
  return commands;
}

std::optional<std::vector<SnapshotEntry>> Reader::read_snapshot() {
  const auto count = read_int();
  if (!count || *count < 0) return std::nullopt;
  std::vector<SnapshotEntry> entries;
  for (int64_t i = 0; i < *count; ++i) {
    SnapshotEntry entry;
    const auto key = read_string();
    const auto type = read_string();
    const auto expire_at_ms = read_int();
    const auto n = read_int();
    if (!key || !type || !expire_at_ms || !n || *n < 0) return std::nullopt;
    entry.key = *key;
    entry.value.expire_at_ms = *expire_at_ms;
    std::vector<std::string> payload;
    for (int64_t j = 0; j < *n; ++j) {
      auto item = read_string();
      if (!item) return std::nullopt;
      payload.push_back(std::move(*item));
    }
    if (*type == "s" && payload.size() == 1) {
      entry.value.type = ValueType::string;
      entry.value.string = std::move(payload[0]);
    } else if (*type == "h" && payload.size() % 2 == 0) {
      entry.value.type = ValueType::hash;
      for (std::size_t j = 0; j < payload.size(); j += 2)
        entry.value.hash.emplace_back(std::move(payload[j]), std::move(payload[j + 1]));
    } else if (*type == "l") {
      entry.value.type = ValueType::list;
      entry.value.list = std::move(payload);
    } else {
      return std::nullopt;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace redlock_sim::cluster_wire
