# Live pipeline benchmark (ring -> store -> view snapshots). Included from bench/CMakeLists.txt.
add_executable(live_bench ${CMAKE_CURRENT_LIST_DIR}/live_bench.c)
target_link_libraries(live_bench PRIVATE ovtrace_live)
