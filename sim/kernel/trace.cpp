#include "sim/kernel/trace.hpp"

#include <cstdio>

#include "sim/kernel/random.hpp"

namespace redlock_sim {

const char* trace_kind_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::message_sent:
      return "message_sent";
    case TraceKind::message_dropped:
      return "message_dropped";
    case TraceKind::message_delivered:
      return "message_delivered";
    case TraceKind::timer_fired:
      return "timer_fired";
    case TraceKind::event_deferred:
      return "event_deferred";
    case TraceKind::process_paused:
      return "process_paused";
    case TraceKind::process_resumed:
      return "process_resumed";
    case TraceKind::process_crashed:
      return "process_crashed";
    case TraceKind::process_restarted:
      return "process_restarted";
    case TraceKind::clock_rate_set:
      return "clock_rate_set";
    case TraceKind::clock_stepped:
      return "clock_stepped";
    case TraceKind::action:
      return "action";
    case TraceKind::note:
      return "note";
  }
  return "unknown";
}

void Trace::note(Instant time, uint32_t process, std::string text, uint64_t a, uint64_t b) {
  if (!on_) return;
  const uint64_t text_hash = stable_hash(text);
  record(time, TraceKind::note, process, static_cast<uint32_t>(notes_.size()), a, b ^ text_hash);
  if (records_.size() < records_max_) {
    notes_bytes_ += text.size();
    notes_.push_back(std::move(text));
  }
}

uint64_t Trace::digest() const {
  uint64_t h = state_ ^ count_;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string Trace::digest_hex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(digest()));
  return buffer;
}

}  // namespace redlock_sim
