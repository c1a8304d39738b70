# The lazy rank overview's GPU-first pass (bench/lazy_overview.sh times the viewer).
add_executable(lazy_bench ${CMAKE_CURRENT_SOURCE_DIR}/lazy_bench.c)
target_link_libraries(lazy_bench PRIVATE ovtrace_core)
