# What `ovtrace diff` costs beyond loading the two runs (bench/README.md).
add_executable(diff_bench ${CMAKE_CURRENT_SOURCE_DIR}/diff_bench.c)
target_link_libraries(diff_bench PRIVATE ovtrace_core)
