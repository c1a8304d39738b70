# Snapshot cache (read/snapshot.c, docs/cache.md): round trips byte for byte,
# invalidation, damaged snapshots, unwritable cache directories, the CLI end to end.
# Every test points XDG_CACHE_HOME at a temp directory of its own.
set(cache_dir ${CMAKE_CURRENT_SOURCE_DIR}/cache)
ovtrace_unit_test(cache.snapshot SOURCES ${cache_dir}/test_snapshot.c TIMEOUT 300)
add_test(NAME cache.cli
  COMMAND bash ${cache_dir}/cli.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${CMAKE_CURRENT_SOURCE_DIR}/data
          ${PROJECT_SOURCE_DIR}/sample-traces)
set_tests_properties(cache.cli PROPERTIES TIMEOUT 300)

# the cache trusts only this user's snapshots: modes, owners, symlinks
add_test(NAME cache.trust COMMAND bash ${cache_dir}/trust.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(cache.trust PROPERTIES TIMEOUT 120)

# view -v reports the cache after the screen is gone (tmux)
add_test(NAME cache.view_verbose
  COMMAND bash ${cache_dir}/view_verbose.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(cache.view_verbose PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 120)

# -v and a detached save: the outcome comes before the command returns (or a note that
# the save goes on), never later on the inherited stderr
add_test(NAME cache.detached_note COMMAND bash ${cache_dir}/detached_note.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(cache.detached_note PROPERTIES TIMEOUT 120)
