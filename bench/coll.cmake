# Collective matching benchmark: results in bench/README.md.
add_executable(coll_bench ${CMAKE_CURRENT_SOURCE_DIR}/coll_bench.c)
target_link_libraries(coll_bench PRIVATE ovtrace_core)
