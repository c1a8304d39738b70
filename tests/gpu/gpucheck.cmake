# ovtrace-gpucheck (tests/gpu/gpucheck.c): the GPU run's independent consumer of the live
# transport. Only ring/ and the launcher: it builds wherever the GPU parts build, also
# with -DOVTRACE_GPU_ONLY=ON. Included from the top-level CMakeLists.txt.
add_executable(ovtrace-gpucheck ${CMAKE_CURRENT_LIST_DIR}/gpucheck.c)
target_link_libraries(ovtrace-gpucheck PRIVATE ovtrace_collector)
set_target_properties(ovtrace-gpucheck PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
