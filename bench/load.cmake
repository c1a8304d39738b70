add_executable(load_bench ${CMAKE_CURRENT_SOURCE_DIR}/load_bench.c)
target_link_libraries(load_bench PRIVATE ovtrace_core)
