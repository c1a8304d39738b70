# Ring throughput / latency benchmark. Included from bench/CMakeLists.txt.
add_executable(ring_bench ${CMAKE_CURRENT_LIST_DIR}/ring_bench.c)
target_link_libraries(ring_bench PRIVATE ovtrace_ring)
