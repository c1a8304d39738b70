# SQL over a large trace: a window query against a full scan, GROUP BY name
# (bench/run_query.sh; results in bench/README.md).
add_executable(query_bench ${CMAKE_CURRENT_SOURCE_DIR}/query_bench.c)
target_link_libraries(query_bench PRIVATE ovtrace_core ovtrace_query)
