// What every profile written as its library's own class shares: the options it is built with
// (their `clock` is the one its deadlines are read on) and the majority of its nodes. The
// subclass writes acquire, release and extend as the library's functions.
#pragma once

#include <utility>

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim::profiles {

template <typename Options>
class LibraryClient : public LockClient {
 public:
  LibraryClient(Port& port, Options options) : LockClient(port), options_(std::move(options)) {}

  ClockKind clock() const override { return options_.clock; }
  const Options& options() const { return options_; }

 protected:
  uint32_t quorum() const { return majority(options_.node_count); }
  Instant now() { return now_on(options_.clock); }

  Options options_;
};

}  // namespace redlock_sim::profiles
