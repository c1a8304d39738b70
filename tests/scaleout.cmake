# `ovtrace stats` over MPI (scaleout/): the same output for any number of processes, and
# a rank file that does not load fails the run. Skipped (77) when MPI was not built.
add_test(NAME scaleout.stats COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scaleout/stats.sh $<TARGET_FILE:ovtrace>
  "${OVTRACE_MPIEXEC}" ${CMAKE_CURRENT_SOURCE_DIR}/data ${PROJECT_SOURCE_DIR}/sample-traces ${OVTRACE_DEEPSEEK})
set_tests_properties(scaleout.stats PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
# stats --summary and `view SUMMARY` (runs without MPI too; its mpirun case needs it)
add_test(NAME scaleout.summary COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scaleout/summary.sh $<TARGET_FILE:ovtrace>
  "${OVTRACE_MPIEXEC}" ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(scaleout.summary PROPERTIES LABELS tui TIMEOUT 300)
