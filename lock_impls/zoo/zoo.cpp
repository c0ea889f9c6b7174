#include "lock_impls/zoo/zoo.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::zoo {

SingleInstanceOptions single_instance_reference() {
  return SingleInstanceOptions{};
}

// The catalogue's reference client (docs/catalogue.md): N = 5, TTL 10 s,
// parallel SETs waiting for every reply or the 50 ms timeout, drift floor(ttl*0.01) + 2 ms,
// validity > 0, release on every node after a failure, a random 0-200 ms between tries.
RedlockOptions redlock_reference() {
  return RedlockOptions{.retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 200}};
}

SingleInstanceOptions plain_del_release() {
  SingleInstanceOptions options = single_instance_reference();
  options.release_command = SingleRelease::plain_del;
  return options;
}

SingleInstanceOptions get_then_del_release() {
  SingleInstanceOptions options = single_instance_reference();
  options.release_command = SingleRelease::get_then_del;
  return options;
}

SingleInstanceOptions setnx_then_expire() {
  SingleInstanceOptions options = single_instance_reference();
  options.acquire_command = SingleAcquire::setnx_then_pexpire;
  return options;
}

SingleInstanceOptions no_ttl() {
  SingleInstanceOptions options = single_instance_reference();
  options.ttl = Duration::zero();
  return options;
}

RedlockOptions no_elapsed_check() {
  RedlockOptions options = redlock_reference();
  options.count_elapsed = false;
  return options;
}

RedlockOptions extend_on_minority() {
  RedlockOptions options = redlock_reference();
  options.extend_quorum = 1;
  return options;
}

RedlockOptions resurrecting_extend() {
  RedlockOptions options = redlock_reference();
  options.extend_command = RedlockExtendCommand::set_px_if_absent_or_value;
  return options;
}

RedlockOptions unconditional_extend() {
  RedlockOptions options = redlock_reference();
  options.extend_command = RedlockExtendCommand::set_xx_px;
  return options;
}

}  // namespace redlock_sim::zoo

namespace redlock_sim {

namespace {

// One zoo variant: its name, its one-line difference, and its options (the reference client's
// with that difference).
template <typename Options>
struct Variant {
  const char* name;
  const char* description;
  Options (*options)();
};

// The family a variant's options belong to: its name (what the variant is a twin of), whether it
// uses every listed node, its rows and its constructor.
struct SingleFamily {
  static constexpr const char* name = "single-instance";
  static constexpr bool multi_node = false;  // the first listed node only
  static ParamTable params(const SingleInstanceOptions& d) { return single_params(d); }
  static std::unique_ptr<LockClient> make(Port& port, const ParamValues& p,
                                          SingleInstanceOptions o) {
    return single_client(port, p, o);
  }
};
struct RedlockFamily {
  static constexpr const char* name = "redlock";
  static constexpr bool multi_node = true;  // every listed node is one of its masters
  static ParamTable params(const RedlockOptions& d) { return redlock_params(d); }
  static std::unique_ptr<LockClient> make(Port& port, const ParamValues& p, RedlockOptions o) {
    return redlock_client(port, p, o);
  }
};

template <typename Family, typename Options, std::size_t count>
void add_variants(std::vector<LockEntry>& list, const Variant<Options> (&variants)[count]) {
  for (const Variant<Options>& variant : variants) {
    LockEntry entry = lock_entry(variant.name, LockKind::zoo, variant.description, Family::name,
                                 Family::params(variant.options()),
                                 [options = variant.options](Port& port, const ParamValues& p) {
                                   return Family::make(port, p, options());
                                 });
    entry.multi_node = Family::multi_node;
    list.push_back(std::move(entry));
  }
}

constexpr Variant<SingleInstanceOptions> single_variants[] = {
    {"zoo-plain-del-release", "release by plain DEL: deletes another's lock",
     zoo::plain_del_release},
    {"zoo-get-then-del-release", "release by GET then DEL: the key can change hands in between",
     zoo::get_then_del_release},
    {"zoo-setnx-then-expire", "SETNX then PEXPIRE: a crash in between leaves a lock without TTL",
     zoo::setnx_then_expire},
    {"zoo-no-ttl", "SET NX without expiry: a crashed holder blocks for ever", zoo::no_ttl},
};

constexpr Variant<RedlockOptions> redlock_variants[] = {
    {"zoo-no-elapsed-check", "Redlock validity ignores the acquisition's elapsed time",
     zoo::no_elapsed_check},
    {"zoo-extend-on-minority", "Redlock extension counted as success on a single node",
     zoo::extend_on_minority},
    {"zoo-resurrecting-extend", "Redlock extension re-creates the key where it lapsed",
     zoo::resurrecting_extend},
    {"zoo-unconditional-extend", "Redlock extension by SET XX PX: overwrites the new holder's keys",
     zoo::unconditional_extend},
};

}  // namespace

// The registry's entries this file declares (lock_impls/builtin_locks.hpp): each table row, in
// its order.
std::vector<LockEntry> zoo_locks() {
  std::vector<LockEntry> list;
  add_variants<SingleFamily>(list, single_variants);
  add_variants<RedlockFamily>(list, redlock_variants);
  return list;
}

}  // namespace redlock_sim
