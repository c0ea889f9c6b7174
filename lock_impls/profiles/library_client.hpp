// What every profile written as its library's own class shares: the options it is built with
// (their `clock` is the one its deadlines are read on) and the majority of its nodes. The
// subclass writes acquire, release and extend as the library's functions. At the end, how such
// a profile registers (library_profile).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "lock_impls/families/common.hpp"
#include "lock_impls/families/family_params.hpp"
#include "lock_impls/families/scripts.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim::profiles {

template <typename Options>
class LibraryClient : public LockClient {
 public:
  using OptionsType = Options;

  LibraryClient(Port& port, Options options) : LockClient(port), options_(std::move(options)) {}

  ClockKind clock() const override { return options_.clock; }
  const Options& options() const { return options_; }

 protected:
  uint32_t quorum() const { return majority(options_.node_count); }
  Instant now() { return now_on(options_.clock); }

  // The delete-if-ours script on each node in turn, `timeout` each. `stop_at_error`: an error or
  // a timeout ends the loop (the library's exception leaves it); otherwise it is swallowed and
  // the loop goes on. Returns the nodes that deleted our key.
  Task<uint32_t> delete_on_each(const std::string& resource, const std::string& value,
                                Duration timeout, bool stop_at_error) {
    const Call delete_if_ours = make_call(scripts::delete_if_value, resource, {value});
    uint32_t deleted = 0;
    for (NodeId node = 0; node < options_.node_count; ++node) {
      const Outcome outcome = co_await send_call(port(), node, delete_if_ours, timeout, false);
      const bool failed = !outcome.replied() || outcome.reply.is_error();
      if (failed && stop_at_error) break;
      if (!failed && outcome.reply.is_integer(1)) ++deleted;
    }
    co_return deleted;
  }

  Options options_;
};

// A profile written as its library's class `Client` (a LibraryClient), on every listed node:
// the timing rows with its options' defaults, then `more`. The constructor reads the timing
// values into the options, `adjust` reads `more`'s, and, with `auto_extend` among `more` and
// set, `watchdog` says what extends the lock. `text`, what `list` says of the profile, is
// written here, in the registration at the end of the profile's file, so that the file opens
// with the library's code (its header names the library and the commit it follows).
template <typename Client>
struct LibraryProfile {
  using Options = typename Client::OptionsType;
  ParamTable more;
  void (*adjust)(const ParamValues&, Options&) = nullptr;
  WatchdogOptions (*watchdog)(const Options&) = nullptr;
  LockText text;
};

template <typename Client>
LockEntry library_profile(LibraryProfile<Client> profile) {
  using Options = typename Client::OptionsType;
  LockEntry entry = lock_entry(
      profile.text, LockKind::profile, plus(timing_params(Options{}), profile.more),
      [adjust = profile.adjust, watchdog = profile.watchdog](Port& port, const ParamValues& p) {
        Options o;
        o.node_count = p.node_count();
        apply_timing(p, o);
        if (adjust != nullptr) adjust(p, o);
        return auto_extended(port, p, std::make_unique<Client>(port, o), watchdog, o);
      });
  entry.multi_node = true;  // every listed node is one of its masters
  return entry;
}

}  // namespace redlock_sim::profiles
