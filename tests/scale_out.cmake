# Sharded sweeps across machines (docs/scale-out.md), included by tests/CMakeLists.txt.

# explore and matrix over N = 1, 2, 3, 7 shards merge to the unsharded run's bytes; bad merges
# are refused naming the shard.
add_test(NAME scenario.shard_merge
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scenario/shard_merge.sh
                 $<TARGET_FILE:redlock-sim> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/shard_merge)
set_tests_properties(scenario.shard_merge PROPERTIES LABELS scenario TIMEOUT 600)

# The GNU parallel recipe on this machine (Debian's parallel, installed by scripts/common.sh).
add_test(NAME scenario.parallel_recipe
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scenario/parallel_recipe.sh
                 $<TARGET_FILE:redlock-sim> ${PROJECT_SOURCE_DIR}
                 ${PROJECT_BINARY_DIR}/parallel_recipe)
set_tests_properties(scenario.parallel_recipe PROPERTIES LABELS scenario TIMEOUT 600)

# The Kubernetes manifests: schema check without a cluster (kubernetes-models from npm, pinned by
# tests/deploy/package-lock.json), and their Jobs' commands run here merge to the same bytes.
add_test(NAME deploy.k8s_manifests
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/deploy/k8s_manifests.sh
                 $<TARGET_FILE:redlock-sim> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/k8s_manifests)
set_tests_properties(deploy.k8s_manifests PROPERTIES LABELS deploy TIMEOUT 600)

# A real one-node Slurm cluster (installs slurm-wlm and munge, starts munged, slurmctld and
# slurmd in private network and PID namespaces) runs the array job and its merge job.
add_test(NAME slow.slurm_array
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_array.sh
                 $<TARGET_FILE:redlock-sim> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/slurm_array)
set_tests_properties(slow.slurm_array PROPERTIES LABELS "slow;slurm" TIMEOUT 1800)
