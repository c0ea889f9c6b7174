#include "sim/kernel/simulator.hpp"

#include <cstring>
#include <string_view>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

const char* process_status_name(ProcessStatus status) {
  switch (status) {
    case ProcessStatus::running:
      return "running";
    case ProcessStatus::paused:
      return "paused";
    case ProcessStatus::crashed:
      return "crashed";
  }
  return "unknown";
}

const char* run_stop_name(RunStop stop) {
  switch (stop) {
    case RunStop::idle:
      return "idle";
    case RunStop::reached_until:
      return "reached_until";
    case RunStop::event_limit:
      return "event_limit";
    case RunStop::duration_limit:
      return "duration_limit";
    case RunStop::in_flight_limit:
      return "in_flight_limit";
    case RunStop::stopped:
      return "stopped";
    case RunStop::memory_limit:
      return "memory_limit";
    case RunStop::script_limit:
      return "script_limit";
  }
  return "unknown";
}

namespace {
// Message contents enter the trace digest. Hashed 8 bytes at a time (FNV-1a goes byte by byte
// and showed up in profiles); any fixed function will do, it only has to be the same everywhere.
uint64_t content_hash(std::string_view text) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  for (std::size_t j = 0; i + j < text.size(); ++j) {
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(text[i + j])) << (8 * j);
  }
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 29);
}
uint64_t hash_command(const Command& command) {
  uint64_t h = 0;
  for (const std::string& arg : command)
    h = (h * 31) ^ content_hash(arg);
  return h;
}
uint64_t hash_reply(const Reply& reply) {
  uint64_t h = static_cast<uint64_t>(reply.type) * 0x9e3779b97f4a7c15ULL;
  h ^= content_hash(reply.text) ^ static_cast<uint64_t>(reply.integer);
  for (const Reply& element : reply.elements)
    h = (h * 31) ^ hash_reply(element);
  return h;
}
}  // namespace

// ---- Process ----

Process::Process(Simulator& simulator, ProcessId id, std::string name)
    : simulator_(simulator),
      id_(id),
      name_(std::move(name)),
      clock_(ProcessClock::Options{.true_start = Instant::zero(),
                                   .wall_at_start = Instant::from_ms(default_epoch_ms),
                                   .monotonic_at_start = Instant::zero(),
                                   .rate = Rate::one()}) {}

TimerId Process::start_timer_after_otherwise(Duration delay, uint64_t tag) {
  return start_timer(ClockKind::monotonic, monotonic_now() + delay, tag);
}

void Process::reaim_timers() {
  // A clock change moves the true instant at which each timer's local deadline is reached: the
  // old events are invalidated by a generation bump and new ones are queued.
  for (uint32_t slot = 0; slot < timers_.size(); ++slot) {
    TimerSlot& timer = timers_[slot];
    if (!timer.active) continue;
    ++timer.aim;
    schedule_timer_event(slot);
  }
}

void Process::clear_timers() {
  free_timer_head_ = no_timer_slot;
  for (uint32_t slot = 0; slot < timers_.size(); ++slot) {
    timers_[slot].active = false;
    ++timers_[slot].generation;
    free_timer_slot(slot);
  }
  active_timers_ = 0;
}

// Requests and replies are written in their slot (an emptied one: every field but the command
// or reply is set here). Inline in each send_message (a call of its own cost a frame a request).
[[gnu::always_inline]] inline uint32_t Process::take_request_slot(ProcessId to,
                                                                  uint64_t request_id) {
  const uint32_t slot = simulator_.take_message_slot(to, /*reply=*/false);
  Message& message = simulator_.message_at(slot);
  message.from = id_;
  message.to = to;
  message.from_incarnation = incarnation_;
  message.to_incarnation = 0;
  message.request_id = request_id;
  message.is_reply = false;
  return slot;
}
void Process::send_message(ProcessId to, Command&& command, uint64_t request_id) {
  const uint32_t slot = take_request_slot(to, request_id);
  simulator_.message_at(slot).own_command_ = std::move(command);
  simulator_.send_slot(slot);
}
void Process::send_message(ProcessId to, const Command& command, uint64_t request_id) {
  const uint32_t slot = take_request_slot(to, request_id);
  try {
    // May allocate: a throw gives the slot back.
    simulator_.message_at(slot).own_command_ = command;
  } catch (...) {
    simulator_.release_message_slot(slot);
    throw;
  }
  simulator_.send_slot(slot);
}
void Process::send_message(ProcessId to, const std::shared_ptr<const Command>& command,
                           uint64_t request_id) {
  const uint32_t slot = take_request_slot(to, request_id);
  simulator_.message_at(slot).shared_command_ = command;
  simulator_.send_slot(slot);
}

void Process::reply_to(const Message& request, Reply&& reply) {
  const uint32_t slot = simulator_.take_message_slot(request.from, /*reply=*/true);
  Message& message = simulator_.message_at(slot);
  message.from = id_;
  message.to = request.from;
  message.from_incarnation = incarnation_;
  message.to_incarnation = request.from_incarnation;
  message.request_id = request.request_id;
  message.is_reply = true;
  message.reply = std::move(reply);
  simulator_.send_slot(slot);
}

// ---- EventQueue ----

EventQueue::EventQueue(uint64_t sequence_limit) : sequence_limit_(sequence_limit) {
  SIM_ASSERT(sequence_limit > 0 && sequence_limit <= default_sequence_limit);
  entries_.reserve(1024);
  entries_.assign(4, sentinel);
  bodies_.reserve(1024);
}

void EventQueue::push_making_room(Instant time, Event event) {
  push_entry(make_entry(time, event));
}

uint32_t EventQueue::add_body() {
  // Every queued event holds one body, so a body index past UINT32_MAX - 1 would take more
  // than 2^32 queued events (and over 100 GB).
  SIM_ASSERT_LT(bodies_.size(), std::size_t{no_body});
  bodies_.emplace_back();
  return static_cast<uint32_t>(bodies_.size() - 1);
}

void EventQueue::renumber() {
  // The queued entries' sequences become their ranks: the same order, the same heap, and room
  // for 2^32 - size() more pushes. A taken root is renumbered with the rest (it is overwritten
  // or removed before it is read again).
  // The FIFOs' entries are renumbered with the heap's (the ranks keep every FIFO in order).
  std::vector<uint64_t> sequences;
  sequences.reserve(size_ + fifo_entries_);
  const auto each_entry = [this](const auto& visit) {
    for (std::size_t i = 0; i < size_; ++i)
      visit(entries_[i]);
    for (Fifo& fifo : fifos_) {
      for (std::size_t i = fifo.head; i < fifo.entries.size(); ++i)
        visit(fifo.entries[i]);
    }
  };
  each_entry([&sequences](const Entry& entry) { sequences.push_back(entry.key >> body_bits); });
  std::sort(sequences.begin(), sequences.end());
  constexpr uint64_t body_mask = (uint64_t{1} << body_bits) - 1;
  each_entry([&sequences](Entry& entry) {
    const auto rank = static_cast<uint64_t>(
        std::lower_bound(sequences.begin(), sequences.end(), entry.key >> body_bits) -
        sequences.begin());
    entry.key = (rank << body_bits) | (entry.key & body_mask);
  });
  for (Fifo& fifo : fifos_) {
    if (fifo.head != fifo.entries.size()) fifo.front = fifo.entries[fifo.head];
  }
  next_sequence_ = sequences.size();
  SIM_ASSERT_LT(next_sequence_, sequence_limit_);
}

void EventQueue::compact(Fifo& fifo) {
  // The taken entries before head make the room (the vector keeps its capacity).
  fifo.entries.erase(fifo.entries.begin(),
                     fifo.entries.begin() + static_cast<std::ptrdiff_t>(fifo.head));
  fifo.head = 0;
}

void EventQueue::push_slow(Entry entry) {
  if (size_ + 4 == entries_.size()) entries_.push_back(sentinel);
  Entry* const heap = entries_.data();
  std::size_t hole = size_++;
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / 4;
    if (!later(heap[parent], entry)) break;
    heap[hole] = heap[parent];
    hole = parent;
  }
  heap[hole] = entry;
}

// Positions are byte offsets into the heap (an entry is 16 bytes): the children of the entry at
// offset h start at 4h + 16, and loads address the heap plus an offset, with no multiplications.
void EventQueue::sift_down_from_root(Entry entry) {
  static_assert(sizeof(Entry) == 16);
  char* const heap = reinterpret_cast<char*>(entries_.data());
  const auto at = [heap](std::size_t offset) -> Entry& {
    return *reinterpret_cast<Entry*>(heap + offset);
  };
  const std::size_t end = size_ * sizeof(Entry);
  std::size_t hole = 0;
  while (true) {
    const std::size_t first_child = 4 * hole + sizeof(Entry);
    if (first_child >= end) break;
    // The earliest of the four children (sentinels stand in for missing ones), its time kept
    // beside it: the keys are read only on a tie (rare), and each choice is a conditional move
    // (a branch on it would be a coin toss).
    std::size_t earliest = first_child;
    int64_t earliest_time = at(first_child).time_ns;
    const auto consider = [&](std::size_t child) {
      const int64_t time = at(child).time_ns;
      if (time == earliest_time) [[unlikely]] {
        if (at(child).key < at(earliest).key) earliest = child;
        return;
      }
      const bool earlier = __builtin_expect_with_probability(time < earliest_time, 1, 0.5);
      earliest = earlier ? child : earliest;
      earliest_time = earlier ? time : earliest_time;
    };
    consider(first_child + sizeof(Entry));
    consider(first_child + 2 * sizeof(Entry));
    consider(first_child + 3 * sizeof(Entry));
    if (earliest_time < entry.time_ns ||
        (earliest_time == entry.time_ns && at(earliest).key < entry.key)) {
      at(hole) = at(earliest);
      hole = earliest;
      continue;
    }
    break;
  }
  at(hole) = entry;
}

void EventQueue::remove_taken_top() {
  top_taken_ = false;
  const Entry last = entries_[size_ - 1];
  entries_[size_ - 1] = sentinel;
  --size_;
  if (size_ > 0) sift_down_from_root(last);
}

// ---- Simulator ----

Simulator::Simulator(uint64_t seed, SimulatorLimits limits)
    : seed_(seed), limits_(limits), network_(seed), trace_(limits.trace_records_max) {}

Simulator::~Simulator() {
  // Processes may own coroutine frames that refer to one another; destroy them in reverse order
  // of creation, before the queue and message slabs go.
  while (!processes_.empty())
    processes_.pop_back();
}

void Simulator::schedule_action(Instant at, std::function<void()> action) {
  actions_.push_back(std::move(action));
  push(at, Event{.payload = actions_.size() - 1, .kind = EventKind::action});
}

namespace {

// Fixed costs per kept record for Simulator::memory_bytes (about what x86-64 spends on each,
// allocator overhead included), so that the count, and where a run stops, is the same everywhere.
constexpr std::size_t event_bytes = 48;
constexpr std::size_t message_bytes = 160;
constexpr std::size_t trace_record_bytes = 32;
constexpr std::size_t message_log_entry_bytes = 160;
constexpr std::size_t string_bytes = 32;

std::size_t text_bytes(const Reply& reply) {
  std::size_t bytes = reply.text.size();
  for (const Reply& element : reply.elements)
    bytes += string_bytes + text_bytes(element);
  return bytes;
}

std::size_t text_bytes(const Message& message) {
  // A reply without elements (and a request's empty reply) without the recursive call.
  std::size_t bytes =
      message.reply.elements.empty() ? message.reply.text.size() : text_bytes(message.reply);
  for (const std::string& argument : message.command())
    bytes += string_bytes + argument.size();
  return bytes;
}

}  // namespace

std::size_t Simulator::memory_bytes() const {
  // An event taken for dispatch and not yet replaced is no longer queued (EventQueue::size).
  std::size_t bytes = queue_.size() * event_bytes + in_flight_ * message_bytes +
                      trace_.records().size() * trace_record_bytes +
                      message_log_.size() * message_log_entry_bytes + message_log_text_bytes_;
  for (uint32_t slot = 0; slot < message_slots_; ++slot) {
    if (in_flight_slots_[slot] != 0) bytes += text_bytes(message_at(slot));
  }
  bytes += trace_.notes().size() * string_bytes + trace_.notes_bytes();
  if (memory_meter_) bytes += memory_meter_();
  return bytes;
}

void Simulator::SlotStack::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  auto slots = std::make_unique<uint32_t[]>(capacity);
  std::copy(slots_.get(), slots_.get() + size_, slots.get());
  slots_ = std::move(slots);
  capacity_ = capacity;
}

uint32_t Simulator::new_message_slot() {
  if ((message_slots_ & (message_chunk_slots - 1)) == 0) {
    // Everything that can fail first, the count of slots last. The free list is given room
    // for every slot, so that giving one back never allocates (ReleaseSlot in deliver runs
    // while an exception may be unwinding).
    const std::size_t slots = std::size_t{message_slots_} + message_chunk_slots;
    free_requests_.reserve(slots);
    free_replies_.reserve(slots);
    in_flight_slots_.reserve(slots);
    message_chunks_.reserve(message_chunks_.size() + 1);
    auto chunk = std::make_unique<Message[]>(message_chunk_slots);
    in_flight_slots_.resize(slots);
    message_chunks_.push_back(std::move(chunk));
  }
  return message_slots_++;
}

void Simulator::uncount_message(uint32_t slot) {
  --in_flight_;
  in_flight_slots_[slot] = 0;
}

// route_slot (its one caller is this) inlined here, with what it calls in this file.
[[gnu::flatten]] void Simulator::send_slot(uint32_t slot) {
  // A model's exception on the way (a process id out of range, an allocation) gives the slot
  // back; the message is counted in flight only once its delivery is queued.
  try {
    route_slot(slot);
  } catch (...) {
    release_message_slot(slot);
    throw;
  }
}

void Simulator::route_slot(uint32_t slot) {
  Message& message = message_at(slot);
  message.id = ++message_ids_;
  Process& destination = *processes_[message.to];
  if (!message.is_reply) message.to_incarnation = destination.incarnation_;
  const Command& command = message.command();
  const std::string* name = command.empty() ? nullptr : &command.front();
  const Network::Route route = network_.route(message.from, message.to, name, now_);
  std::optional<DropReason> dropped = route.dropped;
  if (!dropped && (destination.status_ == ProcessStatus::crashed ||
                   destination.incarnation_ != message.to_incarnation)) {
    dropped = DropReason::destination_down;
  }
  if (!dropped && in_flight_ >= limits_.messages_in_flight_max) {
    dropped = DropReason::in_flight_limit;
    stop_requested_ = true;
    in_flight_limit_hit_ = true;
  }
  if (message_log_max_ > 0) log_message(message, route, dropped);
  if (dropped) {
    trace_.record(now_, TraceKind::message_dropped, message.from, message.to, message.id,
                  static_cast<uint64_t>(*dropped));
    release_message_slot(slot);
    return;
  }
  trace_.record(now_, TraceKind::message_sent, message.from, message.to, message.id,
                static_cast<uint64_t>(route.delivery.ns()));
  push_in_order(EventStream::deliveries, route.delivery,
                Event{.payload = slot, .kind = EventKind::deliver});
  in_flight_slots_[slot] = 1;
  ++in_flight_;
}

void Simulator::log_message(const Message& message, const Network::Route& route,
                            std::optional<DropReason> dropped) {
  if (message_log_.size() >= message_log_max_) return;
  std::string text = message.is_reply ? describe(message.reply) : describe(message.command());
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  message_log_.push_back(MessageLogEntry{.id = message.id,
                                         .from = message.from,
                                         .to = message.to,
                                         .is_reply = message.is_reply,
                                         .sent_at = now_,
                                         .delivered_at = std::nullopt,
                                         .dropped = dropped,
                                         .text = std::move(text)});
  message_log_text_bytes_ += message_log_.back().text.size();
  (void)route;
}

void Simulator::log_outcome(uint64_t message_id, std::optional<DropReason> dropped) {
  // Message ids are 1, 2, ... and every message is logged in order until the log is full.
  if (message_id == 0 || message_id > message_log_.size()) return;
  MessageLogEntry& entry = message_log_[message_id - 1];
  if (dropped) {
    entry.dropped = dropped;
  } else {
    entry.delivered_at = now_;
  }
}

void Simulator::pause(ProcessId id) {
  Process& p = *processes_.at(id);
  if (p.status_ != ProcessStatus::running) return;
  p.status_ = ProcessStatus::paused;
  trace_.record(now_, TraceKind::process_paused, id, id, 0, 0);
}

void Simulator::resume(ProcessId id) {
  Process& p = *processes_.at(id);
  if (p.status_ != ProcessStatus::paused) return;
  p.status_ = ProcessStatus::running;
  trace_.record(now_, TraceKind::process_resumed, id, id, p.deferred_.size(), 0);
  // What waited in the socket buffer and the timers that came due are handled now, in the
  // order they arrived.
  std::vector<Event> deferred = std::move(p.deferred_);
  p.deferred_.clear();
  for (const Event& event : deferred)
    push(now_, event);
}

void Simulator::crash(ProcessId id) {
  Process& p = *processes_.at(id);
  if (p.status_ == ProcessStatus::crashed) return;
  p.status_ = ProcessStatus::crashed;
  ++p.incarnation_;
  for (const Event& event : p.deferred_) {
    if (event.kind == EventKind::deliver) free_message(static_cast<uint32_t>(event.payload));
  }
  p.deferred_.clear();
  p.clear_timers();
  trace_.record(now_, TraceKind::process_crashed, id, id, p.incarnation_, 0);
  p.on_crash();
}

void Simulator::restart(ProcessId id) {
  Process& p = *processes_.at(id);
  if (p.status_ != ProcessStatus::crashed) return;
  p.status_ = ProcessStatus::running;
  trace_.record(now_, TraceKind::process_restarted, id, id, p.incarnation_, 0);
  p.on_restart();
}

void Simulator::set_clock_rate(ProcessId id, Rate rate) {
  Process& p = *processes_.at(id);
  p.clock_.set_rate(now_, rate);
  trace_.record(now_, TraceKind::clock_rate_set, id, id, static_cast<uint64_t>(rate.numerator),
                static_cast<uint64_t>(rate.denominator));
  p.reaim_timers();
}

void Simulator::step_wall_clock(ProcessId id, Duration delta) {
  Process& p = *processes_.at(id);
  p.clock_.step_wall(now_, delta);
  trace_.record(now_, TraceKind::clock_stepped, id, id, static_cast<uint64_t>(delta.ns()), 0);
  p.reaim_timers();
}

void Simulator::set_wall_clock_offset(ProcessId id, Duration offset) {
  Process& p = *processes_.at(id);
  step_wall_clock(id, offset - (p.clock_.wall_at(now_) - now_));
}

void Simulator::slew_clock(ProcessId id, Duration amount, int64_t rate_ppm) {
  SIM_ASSERT(rate_ppm > 0 && rate_ppm < 1'000'000);
  Process& p = *processes_.at(id);
  const uint64_t generation = ++p.slew_generation_;
  if (amount == Duration::zero()) {
    p.clock_.set_slew(now_, Rate::one());
  } else {
    const int64_t ppm = amount > Duration::zero() ? rate_ppm : -rate_ppm;
    p.clock_.set_slew(now_, Rate::ppm(ppm));
    // Gains ppm/1e6 local ns per true ns, so |amount| takes |amount| * 1e6 / rate_ppm true ns.
    const __int128 length =
        static_cast<__int128>(amount < Duration::zero() ? -amount.ns() : amount.ns()) * 1'000'000 /
        rate_ppm;
    const Instant end = now_ + Duration::from_ns(static_cast<int64_t>(length));
    schedule_action(end, [this, id, generation] {
      Process& q = *processes_.at(id);
      if (q.slew_generation_ != generation) return;  // replaced by a newer slew
      q.clock_.set_slew(now_, Rate::one());
      trace_.record(now_, TraceKind::clock_rate_set, id, id, 0, 0);
      q.reaim_timers();
    });
  }
  trace_.record(now_, TraceKind::clock_rate_set, id, id, static_cast<uint64_t>(amount.ns()),
                static_cast<uint64_t>(rate_ppm));
  p.reaim_timers();
}

// Inline in the run loop (as deliver): most events are timers or deliveries, and a call of
// their own saved and restored six registers each.
[[gnu::always_inline]] inline void Simulator::dispatch_timer(const Event& event) {
  Process& p = *processes_[event.process];
  // A crash raises the incarnation and a crashed process starts no timer, so an event of the
  // current incarnation belongs to a live process; and timer slots are never removed.
  if (p.incarnation_ != event.incarnation) return;
  const auto slot = static_cast<uint32_t>(event.payload >> 32);
  const auto generation = static_cast<uint32_t>(event.payload);
  Process::TimerSlot& timer = p.timers_[slot];
  if (!timer.active || timer.generation != generation || timer.aim != event.aim) {
    return;  // cancelled, or superseded by a re-aim
  }
  if (p.status_ == ProcessStatus::paused) {
    trace_.record(now_, TraceKind::event_deferred, p.id_, p.id_, event.payload, 0);
    p.deferred_.push_back(event);
    return;
  }
  SIM_ASSERT(p.clock_.read(timer.clock, now_) >= timer.local_deadline);
  const uint64_t tag = timer.tag;
  timer.active = false;
  ++timer.generation;
  --p.active_timers_;
  p.free_timer_slot(slot);
  trace_.record(now_, TraceKind::timer_fired, p.id_, p.id_, slot, generation);
  p.on_timer(tag);
}

[[gnu::always_inline]] inline void Simulator::deliver(const Event& event) {
  const auto slot = static_cast<uint32_t>(event.payload);
  Message& message = message_at(slot);
  Process& p = *processes_[message.to];
  if (p.status_ == ProcessStatus::crashed || p.incarnation_ != message.to_incarnation) {
    trace_.record(now_, TraceKind::message_dropped, message.from, message.to, message.id,
                  static_cast<uint64_t>(DropReason::destination_down));
    if (message_log_max_ > 0) log_outcome(message.id, DropReason::destination_down);
    free_message(slot);
    return;
  }
  if (network_.is_cut(message.from, message.to, now_)) {
    trace_.record(now_, TraceKind::message_dropped, message.from, message.to, message.id,
                  static_cast<uint64_t>(DropReason::partition));
    if (message_log_max_ > 0) log_outcome(message.id, DropReason::partition);
    free_message(slot);
    return;
  }
  if (p.status_ == ProcessStatus::paused) {
    trace_.record(now_, TraceKind::event_deferred, p.id_, message.from, message.id, 0);
    p.deferred_.push_back(event);
    return;
  }
  const uint64_t content = !hash_contents_    ? 0
                           : message.is_reply ? hash_reply(message.reply)
                                              : hash_command(message.command());
  trace_.record(now_, TraceKind::message_delivered, message.to, message.from, message.id, content);
  if (message_log_max_ > 0) log_outcome(message.id, std::nullopt);
  // Out of flight before the receiver runs (what it sends is counted against the limits without
  // this one), but read where it lies, and its slot given back afterwards, also on a throw.
  uncount_message(slot);
  struct ReleaseSlot {
    Simulator& simulator;
    uint32_t slot;
    // Inline (the compiler made it a call of its own, with a frame, for every delivery).
    [[gnu::always_inline]] ~ReleaseSlot() { simulator.release_message_slot(slot); }
  } release{*this, slot};
  p.on_message(message);
}

RunResult Simulator::run(Instant until) {
  const Instant time_limit = Instant::zero() + limits_.duration_max;
  // One compare per event: past it, `until` (checked first) or the duration limit stops the run.
  const Instant time_bound = std::min(until, time_limit);
  // Past this one compare the next time is looked at closely: it may be past the bound, or the
  // sentinel's (Instant::max()) of an empty queue, or an event's at Instant::max() within it.
  const Instant look_bound = std::min(time_bound, Instant::max() - Duration::from_ns(1));
  RunResult result;
  const uint64_t events_at_start = events_;
  queue_.finish_take();  // an exception left a dispatch unfinished
  while (true) {
    if (stop_requested_) {
      stop_requested_ = false;
      result.stop = in_flight_limit_hit_ ? RunStop::in_flight_limit : stop_reason_;
      stop_reason_ = RunStop::stopped;
      break;
    }
    const Instant next_time = queue_.next_time();
    if (next_time > look_bound) [[unlikely]] {
      if (queue_.empty()) {
        // Nothing can happen any more; time still passes up to a finite `until`.
        if (until != Instant::max()) now_ = std::max(now_, until);
        result.stop = RunStop::idle;
        break;
      }
      if (next_time > time_bound) {
        if (next_time > until) {
          now_ = std::max(now_, until);
          result.stop = RunStop::reached_until;
        } else {
          result.stop = RunStop::duration_limit;
        }
        break;
      }
    }
    // The event limit and the memory count, at the event counts where either can stop the run
    // (every memory_check_events events, and events_max), not at every event.
    if (events_ >= next_limit_check_) {
      if (events_ >= limits_.events_max) {
        result.stop = RunStop::event_limit;
        break;
      }
      if (events_ % memory_check_events == 0 && memory_bytes() > limits_.memory_bytes_max) {
        result.stop = RunStop::memory_limit;
        break;
      }
      next_limit_check_ =
          std::min(limits_.events_max, (events_ / memory_check_events + 1) * memory_check_events);
    }
    const Event event = queue_.take();  // a copy: the dispatch may reuse its body
    now_ = next_time;
    ++events_;
    // Timers and deliveries called directly (nearly every event is one): no switch between.
    if (event.kind == EventKind::timer) {
      dispatch_timer(event);
    } else if (event.kind == EventKind::deliver) {
      deliver(event);
    } else {
      dispatch(event);
    }
    queue_.finish_take();
  }
  result.end_time = now_;
  result.events = events_ - events_at_start;
  publish_streamed_records();
  return result;
}

void Simulator::dispatch(const Event& event) {
  switch (event.kind) {
    case EventKind::action: {
      trace_.record(now_, TraceKind::action, 0, 0, event.payload, 0);
      // Taken out of the list before it runs: an action that schedules actions grows the list,
      // which would move the running function (and its captures) from under it. It runs once.
      const std::function<void()> action = std::move(actions_[event.payload]);
      action();
      return;
    }
    case EventKind::deliver:
      deliver(event);
      return;
    case EventKind::timer:
      dispatch_timer(event);
      return;
  }
}

}  // namespace redlock_sim
