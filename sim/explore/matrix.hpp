// The safety matrix: every lock (family, profile, zoo variant) against every fault column,
// with the violation rate over N seeds per checker.
//
// A column is a set of fault classes that are all on in every seed (not a swarm draw): the
// class alone, or with partitions where the catalogue's scenario needs them to bite (a clock
// jump on one of five nodes breaks Redlock only when the clients see different majorities).
// Each lock runs the same standard workload: three clients looping with 50, 500 and 1900 ms
// critical sections (all inside a 2 s lock's validity), a fourth holding the lock 2500 ms without
// touching the register, and a fifth whose 3000 ms critical section outlasts the TTL, kept by an
// extend every 700 ms (and the watchdog, where the lock has one); 6 s. The register does not
// fence, except for locks that hand out fencing tokens: it checks theirs (fence-all).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/explore/explore.hpp"

namespace redlock_sim {

struct MatrixColumn {
  std::string name;
  std::string description;
  std::vector<FaultClass> classes;
  uint32_t faults_per_class_max = 2;
};

const std::vector<MatrixColumn>& matrix_columns();

// What the lock needs around it (the caller reads it from the registry).
struct MatrixTopology {
  bool multi_node = false;  // five masters; otherwise one
  bool replicas = false;    // the master has two replicas (WAIT-acknowledged locks)
  bool counter = false;     // an external counter for fencing tokens, after the nodes
  // The lock hands out fencing tokens: the register checks them (fence-all, the lock's token).
  bool fencing_tokens = false;
  LockParams params;  // the lock's parameters
};

Scenario matrix_base(const std::string& lock, const MatrixTopology& topology);

struct MatrixCell {
  std::string lock;
  std::string column;
  uint32_t seeds = 0;
  uint32_t mx_violations = 0;
  uint32_t rs_violations = 0;
  uint32_t lv_violations = 0;
  uint64_t grants = 0;  // over all seeds: 0 means the lock never acquired, so "holds" is empty
  uint64_t first_mx_seed = 0;  // 0: none
  uint64_t first_rs_seed = 0;
  std::string counterexample;  // path of the shrunk scenario, when written
};

// The column's classes, all on in every seed, with the column's faults per class; the time and
// rate bounds are `bounds`' (matrix's bound flags: 0, relative to the TTL, by default).
ExploreConfig matrix_config(const MatrixColumn& column, const ExploreBounds& bounds = {});

// Runs one cell: seeds 1..seeds of the column's faults on the lock's base.
MatrixCell run_matrix_cell(const Scenario& base, const std::string& lock,
                           const MatrixColumn& column, uint32_t seeds, const LockFactory& factory,
                           const ExploreBounds& bounds = {});

// What the public catalogue says for cells of the matrix (docs/catalogue.md), to check
// the matrix against.
struct CatalogueVerdict {
  std::string lock;
  std::string column;
  std::string checker;  // mutual_exclusion | resource_safety
  bool violated;
  std::string source;  // the catalogue scenario
};
const std::vector<CatalogueVerdict>& catalogue_verdicts();

}  // namespace redlock_sim
