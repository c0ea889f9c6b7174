// The deterministic discrete-event kernel: true time, the event queue, processes, messages.
//
// Events are totally ordered by (time, sequence), the sequence being a kernel-wide counter, so
// two events at the same instant run in the order they were scheduled (ns-3's (timestamp, uid)).
// Nothing here reads a real clock, starts a thread or iterates an unordered container.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/port/reply.hpp"
#include "lock_impls/port/time.hpp"
#include "sim/kernel/assert.hpp"
#include "sim/kernel/clock.hpp"
#include "sim/kernel/network.hpp"
#include "sim/kernel/random.hpp"
#include "sim/kernel/trace.hpp"

namespace redlock_sim {

class Simulator;

enum class ProcessStatus : uint8_t { running, paused, crashed };
const char* process_status_name(ProcessStatus status);

enum class EventKind : uint8_t { timer, deliver, action };

// What an event does; its time and sequence are in its queue entry (EventQueue::Entry).
struct Event {
  uint64_t payload = 0;  // timer: (slot << 32) | generation; deliver: message slot; action: index
  ProcessId process = 0;
  uint32_t incarnation = 0;  // timer: the process's, when the timer was aimed
  uint32_t aim = 0;  // timer: which aiming of the timer this event is (re-aims supersede it)
  EventKind kind = EventKind::timer;
};

// The event queue: events in (time, sequence) order, the sequence a counter of pushes, so two
// events at the same instant come out in the order they were pushed (ns-3's (timestamp, uid)).
//
// A 4-ary min-heap (half the depth of a binary heap) of 16-byte entries: the time, and one word
// holding the sequence above a body index (sequences are unique, so the word orders entries as
// the sequence does). The bodies lie in a side array that never moves them: a sift moves two
// words a level, and four children fit in a cache line or two. Holes move instead of swapping.
//
// The earliest event is taken for dispatch (take()) but stays at the root until the dispatch
// pushes its first event, which then takes the root's place and sinks (one sift-down instead of
// a sift-down and a sift-up: a timer event nearly always schedules the next one); finish_take()
// removes it when the dispatch pushed nothing. Which events are queued, and so the order they
// come out in, is the same either way. A taken event's body is given back at once (the
// dispatch works on a copy): the push that replaces it reuses it.
//
// Beside the heap, FIFOs for streams of events that usually come in time order (deliveries
// over a fixed delay, request timeouts of one length; timeouts have a second FIFO, for a second
// length): push_in_order appends an event to its stream's first FIFO that it is not earlier than
// the last of (its sequence is higher, so the FIFO stays in (time, sequence) order), and pushes
// it on the heap when there is none. The next event is the
// earliest of the heap's root and the FIFOs' fronts, so the order is the one the heap alone
// would give; an event taken from a FIFO costs no sift. With the FIFOs empty (a run of sleepers
// only) the choice costs a test.
enum class EventStream : uint8_t { deliveries, timeouts };
class EventQueue {
 public:
  struct Entry {
    int64_t time_ns;
    uint64_t key;  // (sequence << body_bits) | body index
  };
  static constexpr unsigned body_bits = 32;
  // Past 2^32 pushes the queued entries' sequences are renumbered 0, 1, ... in their order,
  // which changes no order (EventQueue(limit) sets a lower limit, for tests).
  static constexpr uint64_t default_sequence_limit = uint64_t{1} << (64 - body_bits);

  explicit EventQueue(uint64_t sequence_limit = default_sequence_limit);

  // No event queued, the taken one aside.
  bool empty() const { return size() == 0; }
  // Events queued, the taken one left out.
  std::size_t size() const { return size_ - (top_taken_ ? 1 : 0) + fifo_entries_; }
  // The earliest event's time when no event is taken (Instant::max(), a sentinel's, when none
  // is queued: only at that time does the run loop ask empty()); the event the next take()
  // takes (with no push between them).
  Instant next_time() {
    if (fifo_entries_ == 0) [[likely]]
      return Instant::from_ns(entries_.front().time_ns);
    return choose_among_fifos();
  }
  // Takes the event next_time() chose: a copy of its body.
  Event take() {
    uint32_t body;
    if (chosen_fifo_ != no_fifo) [[unlikely]] {
      body = take_from_fifo();
    } else {
      body = static_cast<uint32_t>(entries_.front().key);
      top_taken_ = true;
    }
    const Event event = bodies_[body];
    free_body(body);
    return event;
  }
  // Ends the taken event's dispatch: removes it unless a push has replaced it.
  void finish_take() {
    if (top_taken_) remove_taken_top();
  }
  // Inline, calling nothing but the sift, when a body is free and no renumbering is due
  // (next_sequence_ below the limit); else out of line (push_making_room), so that an inlining
  // caller keeps no values across the rare calls.
  void push(Instant time, const Event& event) {
    if (free_body_ == no_body || next_sequence_ == sequence_limit_) [[unlikely]] {
      push_making_room(time, event);
      return;
    }
    push_entry(make_entry(time, event));
  }
  // An event of `stream`: into the stream's FIFO when in order there, else (timeouts) into
  // their second FIFO when in order there, else on the heap.
  [[gnu::always_inline]] void push_in_order(EventStream stream, Instant time, const Event& event) {
    const Entry entry = make_entry(time, event);
    Fifo* fifo = &fifos_[static_cast<std::size_t>(stream)];
    if (!fifo->takes(entry)) {
      if (stream != EventStream::timeouts || !fifos_[second_timeouts].takes(entry)) {
        push_entry(entry);
        return;
      }
      fifo = &fifos_[second_timeouts];
    }
    if (fifo->entries.empty()) fifo->front = entry;
    // Full with half of it taken: the taken half makes room (else the vector grows).
    if (fifo->entries.size() == fifo->entries.capacity() && 2 * fifo->head >= fifo->entries.size())
        [[unlikely]] {
      compact(*fifo);
    }
    fifo->entries.push_back(entry);
    ++fifo_entries_;
  }

  // For tests: the number of bodies ever made (each reused once given back), and the events on
  // the heap (the rest are in the FIFOs).
  std::size_t body_slots() const { return bodies_.size(); }
  std::size_t heap_size() const { return size_ - (top_taken_ ? 1 : 0); }
  uint64_t next_sequence() const { return next_sequence_; }

 private:
  static constexpr uint32_t no_body = UINT32_MAX;
  static constexpr uint8_t no_fifo = UINT8_MAX;
  // A stream's events in (time, sequence) order, entries[head, size()) (the ones before head
  // taken; the vector is emptied when all are, compacted when full with half of it taken).
  struct Fifo {
    std::vector<Entry> entries;
    std::size_t head = 0;
    Entry front{INT64_MAX, UINT64_MAX};  // entries[head], or the sentinel when empty
    // In order here: not earlier than the last (a later push has a higher sequence).
    bool takes(const Entry& entry) const {
      return entries.empty() || entries.back().time_ns <= entry.time_ns;
    }
  };
  // Timeouts of two lengths interleave (a client's 50 ms lock requests between its 1 s resource
  // requests): a short one pushed after a long one is earlier than the first FIFO's last, and
  // goes to the second, so that each length keeps to a FIFO of its own instead of the heap.
  static constexpr std::size_t second_timeouts = 2;
  static constexpr std::size_t fifo_count = 3;
  Entry make_entry(Instant time, const Event& event);
  [[gnu::noinline]] void push_making_room(Instant time, Event event);
  void push_entry(Entry entry);
  // Min-heap order: the earliest (time, sequence) first; the key orders as the sequence does.
  static bool later(const Entry& a, const Entry& b) {
    if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
    return a.key > b.key;
  }
  // The earliest of the heap's root and the FIFOs' fronts (sentinels stand in for empty ones).
  Instant choose_among_fifos() {
    Entry earliest = entries_.front();
    uint8_t chosen = no_fifo;
    if (later(earliest, fifos_[0].front)) {
      earliest = fifos_[0].front;
      chosen = 0;
    }
    if (later(earliest, fifos_[1].front)) {
      earliest = fifos_[1].front;
      chosen = 1;
    }
    if (later(earliest, fifos_[2].front)) {
      earliest = fifos_[2].front;
      chosen = 2;
    }
    chosen_fifo_ = chosen;
    return Instant::from_ns(earliest.time_ns);
  }
  // The taken entry's body (inline: most events come from a FIFO).
  uint32_t take_from_fifo() {
    Fifo& fifo = fifos_[chosen_fifo_];
    chosen_fifo_ = no_fifo;
    const auto body = static_cast<uint32_t>(fifo.front.key);
    if (++fifo.head == fifo.entries.size()) {
      fifo.entries.clear();
      fifo.head = 0;
      fifo.front = sentinel;
    } else {
      fifo.front = fifo.entries[fifo.head];
    }
    --fifo_entries_;
    return body;
  }
  static void compact(Fifo& fifo);
  void free_body(uint32_t body) {
    bodies_[body].process = free_body_;  // a free body's link to the one freed before it
    free_body_ = body;
  }
  uint32_t add_body();
  void renumber();
  void push_slow(Entry entry);  // onto the heap's end, then up
  void sift_down_from_root(Entry entry);
  void remove_taken_top();

  // The heap, entries_[0, size_), then at least 4 sentinels (later than any event: the time
  // Instant::max() and a key no event has), so that every node with a child has four.
  static constexpr Entry sentinel{INT64_MAX, UINT64_MAX};
  std::vector<Entry> entries_;
  std::size_t size_ = 0;
  std::vector<Event> bodies_;
  uint32_t free_body_ = no_body;  // the last body given back, reused first
  bool top_taken_ = false;        // the root is being dispatched; the next push replaces it
  uint64_t next_sequence_ = 0;
  uint64_t sequence_limit_;
  Fifo fifos_[fifo_count];
  std::size_t fifo_entries_ = 0;   // in all FIFOs
  uint8_t chosen_fifo_ = no_fifo;  // where next_time() found the earliest event
};

struct Message {
  uint64_t id = 0;  // unique per run, for the trace
  ProcessId from = 0;
  ProcessId to = 0;
  uint32_t from_incarnation = 0;
  uint32_t to_incarnation = 0;  // a restart breaks connections: older messages are dropped
  uint64_t request_id = 0;      // correlates a reply with its request; 0 for one-way messages
  bool is_reply = false;
  // A request's (or one-way message's) argv: its own, or the one a broadcast's messages share
  // (copied once for all of them, read-only, kept alive by every message that holds it, also
  // when a receiver moves the message out of its slot). Only the kernel writes them
  // (Process::send_message); everything else reads command().
  const Command& command() const { return shared_command_ ? *shared_command_ : own_command_; }
  Reply reply;  // replies

 private:
  friend class Process;
  friend class Simulator;
  // While shared_command_ is set, own_command_ holds an earlier message's words (its buffers
  // kept for the slot's next argv), never read: private, so that nothing reads it by mistake.
  Command own_command_;
  std::shared_ptr<const Command> shared_command_;
};

using TimerId = uint64_t;  // (slot << 32) | generation

// A simulated OS process: an identity, a status, its own clocks, timers on those clocks, and a
// handler for messages. Subclasses are Redis nodes, lock clients, the resource service, ...
class Process {
 public:
  Process(Simulator& simulator, ProcessId id, std::string name);
  virtual ~Process() = default;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  ProcessId id() const { return id_; }
  const std::string& name() const { return name_; }
  ProcessStatus status() const { return status_; }
  uint32_t incarnation() const { return incarnation_; }
  ProcessClock& clock() { return clock_; }
  const ProcessClock& clock() const { return clock_; }
  Instant wall_now() const;
  Instant monotonic_now() const;
  Simulator& simulator() { return simulator_; }

  // A timer that fires when this process's `kind` clock first reads >= `local_deadline`; it is
  // re-aimed whenever the clock changes. While the process is paused it fires late, at resume.
  [[gnu::always_inline]] TimerId start_timer(ClockKind kind, Instant local_deadline, uint64_t tag) {
    return start_timer_in(kind, local_deadline, tag, /*timeout=*/false);
  }
  // The same for a request's timeout: started a fixed time ahead, its events usually come in
  // time order and are queued in the timeouts' FIFO (EventQueue::push_in_order).
  [[gnu::always_inline]] TimerId start_timeout(ClockKind kind, Instant local_deadline,
                                               uint64_t tag) {
    return start_timer_in(kind, local_deadline, tag, /*timeout=*/true);
  }
  // A monotonic timer `delay` from now (a sleep, a cron's period): start_timer(monotonic,
  // monotonic_now() + delay, tag), the clock looked at once on a steady one (the kernel's
  // benchmark: a sleeper's every event).
  [[gnu::always_inline]] TimerId start_timer_after(Duration delay, uint64_t tag) {
    const Instant now = true_now();
    if (delay >= Duration::zero() && clock_.steady_at(now)) [[likely]] {
      // first_true_time_reaching's answer on a steady clock: now + delay (its clamp to `from`
      // changes nothing for a delay >= 0).
      const Instant at = now + delay;
      return start_timer_at(ClockKind::monotonic, clock_.monotonic_on_last(now) + delay, tag, at);
    }
    return start_timer_after_otherwise(delay, tag);
  }
  // start_timer_after without its TimerId (a sleep never cancels its timer). With a steady clock,
  // a delay >= 0 and a free timer slot, and a free event body in the queue (EventQueue::push),
  // it calls nothing but the heap's sift; otherwise it jumps to the general path
  // (start_timer_after_otherwise, or EventQueue::push_making_room for a body), so that the
  // sleeper's frame saves fewer registers.
  [[gnu::always_inline]] void start_sleep_timer(Duration delay, uint64_t tag) {
    if (free_timer_head_ == no_timer_slot) [[unlikely]] {
      start_timer_after_otherwise(delay, tag);
      return;
    }
    start_timer_after(delay, tag);
  }
  // Inline: every reply cancels its request's timeout.
  void cancel_timer(TimerId timer) {
    const auto slot = static_cast<uint32_t>(timer >> 32);
    const auto generation = static_cast<uint32_t>(timer);
    if (slot >= timers_.size()) return;
    TimerSlot& timer_slot = timers_[slot];
    if (!timer_slot.active || timer_slot.generation != generation) return;
    timer_slot.active = false;
    ++timer_slot.generation;  // the queued event no longer matches
    --active_timers_;
    free_timer_slot(slot);
  }
  std::size_t active_timer_count() const { return active_timers_; }

  // Sends a request (or a one-way message when request_id is 0), now: routed through the
  // network model, it is dropped or delivered later. A command given by reference is copied
  // into the message's slot (whose buffer is reused): one argv can go to many processes.
  void send_message(ProcessId to, Command&& command, uint64_t request_id);
  void send_message(ProcessId to, const Command& command, uint64_t request_id);
  // A request whose argv is shared with others (a broadcast's): no copy of it per message. The
  // argv must not change while any message holds it (use_count() above the sender's own
  // reference): the receivers, the memory count (memory_bytes) and the trace's content digest
  // read it at delivery, after the send.
  void send_message(ProcessId to, const std::shared_ptr<const Command>& command,
                    uint64_t request_id);
  void reply_to(const Message& request, Reply&& reply);

 protected:
  // `message` lies in the kernel's message slot, valid only during the call: a receiver may move
  // from it, and copies what it keeps (the slot is reused afterwards).
  virtual void on_message(Message& message) = 0;
  virtual void on_timer(uint64_t tag) = 0;
  // Volatile state is lost; the kernel has already dropped timers and deferred events.
  virtual void on_crash() {}
  virtual void on_restart() {}

 private:
  friend class Simulator;
  struct TimerSlot {
    Instant local_deadline;
    uint64_t tag = 0;
    uint32_t generation = 0;  // bumped when the slot is freed: part of the TimerId
    uint32_t aim = 0;         // bumped when the timer is re-aimed after a clock change
    uint32_t next_free = 0;   // while free: the slot freed before it (a LIFO list)
    ClockKind clock = ClockKind::monotonic;
    bool active = false;
  };
  static constexpr uint32_t no_timer_slot = UINT32_MAX;
  // A message slot taken for a request to `to`, its fields but the command filled in.
  uint32_t take_request_slot(ProcessId to, uint64_t request_id);
  void free_timer_slot(uint32_t slot) {
    timers_[slot].next_free = free_timer_head_;
    free_timer_head_ = slot;
  }
  TimerId start_timer_in(ClockKind kind, Instant local_deadline, uint64_t tag, bool timeout);
  // A timer whose first true instant is known to be `at`: start_timer_in without the solve.
  TimerId start_timer_at(ClockKind kind, Instant local_deadline, uint64_t tag, Instant at);
  uint32_t take_timer_slot(ClockKind kind, Instant local_deadline, uint64_t tag);
  [[gnu::noinline]] TimerId start_timer_after_otherwise(Duration delay, uint64_t tag);
  Instant true_now() const;
  void schedule_timer_event(uint32_t slot, bool timeout = false);
  void schedule_timer_event_at(uint32_t slot, Instant at, bool timeout);
  void reaim_timers();
  void clear_timers();

  Simulator& simulator_;
  ProcessId id_;
  std::string name_;
  ProcessStatus status_ = ProcessStatus::running;
  uint32_t incarnation_ = 0;
  ProcessClock clock_;
  std::vector<TimerSlot> timers_;
  uint32_t free_timer_head_ = no_timer_slot;  // the last slot freed, reused first
  std::size_t active_timers_ = 0;
  std::vector<Event> deferred_;  // events that arrived while paused, in arrival order (re-queued
                                 // at resume, at the resume's time)
  uint64_t slew_generation_ = 0;
};

struct SimulatorLimits {
  uint64_t events_max = 100'000'000;
  Duration duration_max = Duration::from_s(24 * 3600);
  uint32_t messages_in_flight_max = 1'000'000;
  std::size_t trace_records_max = 1'000'000;
  // What a run may keep (history, story, trace, messages, events), as counted by
  // Simulator::memory_bytes(): past it the run stops with RunStop::memory_limit.
  std::size_t memory_bytes_max = std::numeric_limits<std::size_t>::max();
};

enum class RunStop : uint8_t {
  idle,             // nothing left to do
  reached_until,    // stopped at the requested time
  event_limit,      // limits.events_max
  duration_limit,   // limits.duration_max
  in_flight_limit,  // limits.messages_in_flight_max
  stopped,          // a model asked to stop
  memory_limit,     // limits.memory_bytes_max
  script_limit,     // a node's script ran to EngineOptions::script_instructions_max
};
const char* run_stop_name(RunStop stop);

struct RunResult {
  RunStop stop = RunStop::idle;
  Instant end_time;
  uint64_t events = 0;
  bool limit_hit() const {
    return stop == RunStop::event_limit || stop == RunStop::duration_limit ||
           stop == RunStop::in_flight_limit || stop == RunStop::memory_limit ||
           stop == RunStop::script_limit;
  }
};

// One message as the network saw it, kept only when the message log is on (reports draw it).
struct MessageLogEntry {
  uint64_t id = 0;
  ProcessId from = 0;
  ProcessId to = 0;
  bool is_reply = false;
  Instant sent_at;
  std::optional<Instant> delivered_at;
  std::optional<DropReason> dropped;
  std::string text;  // the command or reply, shortened
};

// Clock options for new processes: the default wall clock starts at 2026-01-01T00:00:00Z.
inline constexpr int64_t default_epoch_ms = 1'767'225'600'000;

class Simulator {
 public:
  explicit Simulator(uint64_t seed, SimulatorLimits limits = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Instant now() const { return now_; }
  uint64_t seed() const { return seed_; }
  Rng rng(std::string_view component) const { return Rng::derive(seed_, component); }
  const SimulatorLimits& limits() const { return limits_; }

  template <typename P, typename... Args>
  P& add_process(std::string name, Args&&... args) {
    const auto id = static_cast<ProcessId>(processes_.size());
    auto process = std::make_unique<P>(*this, id, std::move(name), std::forward<Args>(args)...);
    P& ref = *process;
    processes_.push_back(std::move(process));
    network_.name_process(id, ref.name());
    return ref;
  }
  Process& process(ProcessId id) { return *processes_.at(id); }
  const Process& process(ProcessId id) const { return *processes_.at(id); }
  std::size_t process_count() const { return processes_.size(); }

  Network& network() { return network_; }
  Trace& trace() { return trace_; }
  const Trace& trace() const { return trace_; }

  // Runs `action` at true time `at` (>= now). Used for faults and scripted steps.
  void schedule_action(Instant at, std::function<void()> action);

  // Process faults, effective now.
  void pause(ProcessId id);
  void resume(ProcessId id);
  void crash(ProcessId id);
  void restart(ProcessId id);
  // Clock faults, effective now.
  void set_clock_rate(ProcessId id, Rate rate);
  void step_wall_clock(ProcessId id, Duration delta);
  // Steps the wall clock so that it reads true time + offset.
  void set_wall_clock_offset(ProcessId id, Duration offset);
  // Slews the clocks by `amount` (either sign) at `rate_ppm` parts per million, as ntpd/adjtime
  // does: the rate changes now and reverts once the amount has been absorbed (about
  // |amount| / rate_ppm * 1e6 of true time). A new slew replaces an unfinished one.
  void slew_clock(ProcessId id, Duration amount, int64_t rate_ppm = 500);

  // Runs events until nothing is left, a limit is hit, a model calls stop(), or the next event
  // lies beyond `until` (then time advances to `until`).
  RunResult run(Instant until = Instant::max());
  void stop() { stop_requested_ = true; }
  // Ends the run at a model's own limit (RunStop::script_limit), reported like the others.
  void stop(RunStop reason) {
    stop_requested_ = true;
    stop_reason_ = reason;
  }

  uint64_t events_dispatched() const { return events_; }
  // Keeps a log of every message (for reports); off by default, it costs a string per message.
  void enable_message_log(std::size_t entries_max) { message_log_max_ = entries_max; }
  // Off, a delivered message's bytes stay out of the trace digest (its time, ends and id stay
  // in): for runs whose digest nobody reads (exploration), hashing every argv and reply is waste.
  void hash_message_contents(bool on) { hash_contents_ = on; }
  const std::vector<MessageLogEntry>& message_log() const { return message_log_; }
  std::size_t messages_in_flight() const { return in_flight_; }

  // The bytes a run keeps, counted (not measured: the count must be the same on every machine,
  // so each kept record costs a fixed number of bytes plus the length of its text): the event
  // queue, the messages in flight, the trace, the message log, plus what the models keep, which
  // `meter` reports (the runner's history and story). Checked every memory_check_events events.
  void set_memory_meter(std::function<std::size_t()> meter) { memory_meter_ = std::move(meter); }
  std::size_t memory_bytes() const;
  static constexpr uint64_t memory_check_events = 1024;

 private:
  friend class Process;
  void push(Instant time, const Event& event);
  // Inline: out of line, a request's timeout paid a call frame (about 18 instructions) for it.
  [[gnu::always_inline]] void push_in_order(EventStream stream, Instant time, const Event& event) {
    SIM_ASSERT_LE(now_.ns(), time.ns());
    queue_.push_in_order(stream, time, event);
  }
  void dispatch(const Event& event);
  void dispatch_timer(const Event& event);
  void deliver(const Event& event);
  // A message is written in its slot where it is sent from (no Message moved on the way): a
  // slot taken for a message to `to` (which must exist), filled, then sent, which counts it in
  // flight or, dropped, gives the slot straight back (so the free list's order is as if no slot
  // had been taken).
  // Requests and replies take slots from lists of their own: a request's slot keeps the argv
  // strings it carried (release leaves them), so that the next argv copied in reuses their
  // buffers instead of freeing and allocating each string; a reply's slot has an empty argv.
  uint32_t take_message_slot(ProcessId to, bool reply) {
    (void)processes_.at(to);
    SlotStack& free = reply ? free_replies_ : free_requests_;
    if (free.empty()) [[unlikely]]
      return new_message_slot();
    return free.pop();
  }
  // A slot never used before (a new chunk of them when the last is full).
  [[gnu::noinline]] uint32_t new_message_slot();
  void send_slot(uint32_t slot);
  void route_slot(uint32_t slot);
  // Ends a message's time in flight (the count and the memory it held) ...
  void uncount_message(uint32_t slot);
  // ... and gives its slot back, emptied (inline: every delivery ends here).
  void release_message_slot(uint32_t slot);
  void free_message(uint32_t slot) {
    uncount_message(slot);
    release_message_slot(slot);
  }
  Message& message_at(uint32_t slot) {
    return message_chunks_[slot >> message_chunk_shift][slot & (message_chunk_slots - 1)];
  }
  const Message& message_at(uint32_t slot) const {
    return message_chunks_[slot >> message_chunk_shift][slot & (message_chunk_slots - 1)];
  }

  uint64_t seed_;
  SimulatorLimits limits_;
  Instant now_ = Instant::zero();
  uint64_t events_ = 0;
  // run() checks the event and memory limits at this count. Right because limits_ is fixed at
  // construction and events_ only grows: a way to change either must reset this to events_.
  uint64_t next_limit_check_ = 0;
  uint64_t message_ids_ = 0;
  bool stop_requested_ = false;
  bool in_flight_limit_hit_ = false;
  RunStop stop_reason_ = RunStop::stopped;
  EventQueue queue_;
  std::vector<std::unique_ptr<Process>> processes_;
  // Messages in flight, in slots that never move (chunks of 64): a message is handed to its
  // receiver where it lies, and the receiver may send (and so add slots) while it reads it.
  static constexpr uint32_t message_chunk_shift = 6;
  static constexpr uint32_t message_chunk_slots = uint32_t{1} << message_chunk_shift;
  std::vector<std::unique_ptr<Message[]>> message_chunks_;
  uint32_t message_slots_ = 0;
  // Free slot numbers, last given back on top, with room for every slot (new_message_slot
  // makes it before it counts a new one): giving one back is a store and an increment, with no
  // path that grows a vector (ReleaseSlot in deliver runs while an exception may be unwinding,
  // and that path made every release save and restore six registers).
  class SlotStack {
   public:
    bool empty() const { return size_ == 0; }
    uint32_t pop() { return slots_[--size_]; }
    void push(uint32_t slot) { slots_[size_++] = slot; }
    void reserve(std::size_t capacity);

   private:
    std::unique_ptr<uint32_t[]> slots_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
  };
  SlotStack free_requests_;  // slots given back by requests (argv strings kept)
  SlotStack free_replies_;   // slots given back by replies (argv empty)
  // By slot: 1 while its message is in flight. memory_bytes() counts those messages' texts
  // (which do not change in flight) when it is called, not every message as it is sent.
  std::vector<uint8_t> in_flight_slots_;
  std::size_t in_flight_ = 0;
  std::size_t message_log_text_bytes_ = 0;
  std::function<std::size_t()> memory_meter_;
  std::vector<std::function<void()>> actions_;
  Network network_;
  Trace trace_;
  std::size_t message_log_max_ = 0;
  bool hash_contents_ = true;
  std::vector<MessageLogEntry> message_log_;
  void log_message(const Message& message, const Network::Route& route,
                   std::optional<DropReason> dropped);
  void log_outcome(uint64_t message_id, std::optional<DropReason> dropped);
};

// The timer path, inline: every sleep and request timeout of every process goes through it
// (start, aim, queue), and the calls showed up in the kernel's profile.

inline Instant Process::wall_now() const {
  return clock_.wall_at(simulator_.now());
}
inline Instant Process::monotonic_now() const {
  return clock_.monotonic_at(simulator_.now());
}

inline Instant Process::true_now() const {
  return simulator_.now();
}

[[gnu::always_inline]] inline uint32_t Process::take_timer_slot(ClockKind kind,
                                                                Instant local_deadline,
                                                                uint64_t tag) {
  SIM_ASSERT(status_ != ProcessStatus::crashed);
  uint32_t slot = free_timer_head_;
  if (slot != no_timer_slot) {
    free_timer_head_ = timers_[slot].next_free;
  } else {
    slot = static_cast<uint32_t>(timers_.size());
    timers_.emplace_back();
  }
  TimerSlot& timer = timers_[slot];
  timer.local_deadline = local_deadline;
  timer.tag = tag;
  timer.clock = kind;
  timer.active = true;
  ++active_timers_;
  return slot;
}

[[gnu::always_inline]] inline TimerId Process::start_timer_in(ClockKind kind,
                                                              Instant local_deadline, uint64_t tag,
                                                              bool timeout) {
  const uint32_t slot = take_timer_slot(kind, local_deadline, tag);
  schedule_timer_event(slot, timeout);
  return (static_cast<uint64_t>(slot) << 32) | timers_[slot].generation;
}

[[gnu::always_inline]] inline TimerId Process::start_timer_at(ClockKind kind,
                                                              Instant local_deadline, uint64_t tag,
                                                              Instant at) {
  const uint32_t slot = take_timer_slot(kind, local_deadline, tag);
  schedule_timer_event_at(slot, at, /*timeout=*/false);
  return (static_cast<uint64_t>(slot) << 32) | timers_[slot].generation;
}

[[gnu::always_inline]] inline void Process::schedule_timer_event(uint32_t slot, bool timeout) {
  const TimerSlot& timer = timers_[slot];
  schedule_timer_event_at(
      slot, clock_.first_true_time_reaching(timer.clock, timer.local_deadline, simulator_.now()),
      timeout);
}

[[gnu::always_inline]] inline void Process::schedule_timer_event_at(uint32_t slot, Instant at,
                                                                    bool timeout) {
  const TimerSlot& timer = timers_[slot];
  // The event made in each call's argument (a named one shared by both was built on the stack,
  // then copied).
  const auto event = [&] {
    return Event{.payload = (static_cast<uint64_t>(slot) << 32) | timer.generation,
                 .process = id_,
                 .incarnation = incarnation_,
                 .aim = timer.aim,
                 .kind = EventKind::timer};
  };
  if (timeout) {
    simulator_.push_in_order(EventStream::timeouts, at, event());
  } else {
    simulator_.push(at, event());
  }
}

[[gnu::always_inline]] inline EventQueue::Entry EventQueue::make_entry(Instant time,
                                                                       const Event& event) {
  if (next_sequence_ == sequence_limit_) [[unlikely]]
    renumber();
  uint32_t body = free_body_;
  if (body != no_body) {
    free_body_ = bodies_[body].process;
  } else {
    body = add_body();
  }
  bodies_[body] = event;
  return Entry{time.ns(), (next_sequence_++ << body_bits) | body};
}

[[gnu::always_inline]] inline void EventQueue::push_entry(Entry entry) {
  if (top_taken_) {
    top_taken_ = false;
    sift_down_from_root(entry);
    return;
  }
  push_slow(entry);
}

// Emptied in place (no temporary Message or Reply), the buffers kept. A request's argv stays
// whole (its slot goes back to requests, whose argv is always assigned before it is sent); a
// reply's slot, taken by replies only, keeps its empty argv.
[[gnu::always_inline]] inline void Simulator::release_message_slot(uint32_t slot) {
  Message& message = message_at(slot);
  message.reply.type = ReplyType::nil;
  message.reply.text.clear();
  message.reply.integer = 0;
  message.reply.elements = ReplyList{};
  if (message.is_reply) {
    free_replies_.push(slot);
  } else {
    message.shared_command_.reset();
    free_requests_.push(slot);
  }
}

[[gnu::always_inline]] inline void Simulator::push(Instant time, const Event& event) {
  SIM_ASSERT_LE(now_.ns(), time.ns());
  queue_.push(time, event);
}

}  // namespace redlock_sim
