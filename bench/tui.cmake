# TUI frame benchmark: results in bench/RESULTS-tui.md.
add_executable(frame_bench ${CMAKE_CURRENT_SOURCE_DIR}/frame_bench.c)
target_link_libraries(frame_bench PRIVATE ovtrace_tui)
