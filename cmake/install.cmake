# `cmake --install`: the headers (under include/redlock_sim/, as the source tree lays them out),
# the static libraries, the redlock-sim executable (with the clock shim it preloads in real mode)
# and a CMake package, so a user's project does `find_package(redlock_sim CONFIG)` and links
# redlock_sim::api (everything) or the per-folder targets (docs/embedding.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(redlock_sim_folders sim_kernel sim_redis sim_resource sim_scenario sim_faults sim_checkers sim_replication
                       sim_runner sim_explore sim_stories)
set(redlock_exported_targets lock_impls_port lock_impls ${redlock_sim_folders} sim scenarios reports
                             api api_testing)
set_target_properties(lock_impls_port PROPERTIES EXPORT_NAME port)
set_target_properties(lock_impls PROPERTIES EXPORT_NAME locks)
set_target_properties(api_testing PROPERTIES EXPORT_NAME testing)
# Installed archives carry the package's name (libredlock_sim_sim.a, not libsim.a).
foreach(target lock_impls_port lock_impls ${redlock_sim_folders} scenarios reports api)
  get_target_property(export_name ${target} EXPORT_NAME)
  if(NOT export_name)
    set(export_name ${target})
  endif()
  set_target_properties(${target} PROPERTIES OUTPUT_NAME redlock_sim_${export_name})
endforeach()

# A sanitizer build's archives call into the ASan and UBSan runtimes: the installed port (which
# every other target links) hands the same flags to whatever links the package, so that a
# project built against it links and is checked alike (scenario.package_example runs so in the
# sanitizer suite).
if(REDLOCK_SANITIZE)
  target_compile_options(lock_impls_port INTERFACE
                         "$<INSTALL_INTERFACE:${REDLOCK_SANITIZER_FLAGS}>")
  target_link_options(lock_impls_port INTERFACE "$<INSTALL_INTERFACE:${REDLOCK_SANITIZER_FLAGS}>")
endif()

install(TARGETS ${redlock_exported_targets} EXPORT redlock_sim_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS redlock-sim redlock-sim-serve redlock_clock_shim
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(folder lock_impls sim scenarios reports api)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/redlock_sim/${folder}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()

set(redlock_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/redlock_sim)
install(EXPORT redlock_sim_targets NAMESPACE redlock_sim:: FILE redlock_simTargets.cmake
        DESTINATION ${redlock_package_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/redlock_simConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/redlock_simConfig.cmake
                              INSTALL_DESTINATION ${redlock_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/redlock_simConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/redlock_simConfig.cmake
              ${PROJECT_BINARY_DIR}/redlock_simConfigVersion.cmake
        DESTINATION ${redlock_package_dir})
