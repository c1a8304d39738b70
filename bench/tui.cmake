# TUI frame benchmark: results in bench/RESULTS-tui.md.
add_executable(frame_bench ${CMAKE_CURRENT_SOURCE_DIR}/frame_bench.c)
target_link_libraries(frame_bench PRIVATE ovtrace_tui)
# it drives the engine's frame directly: tui's private headers
target_include_directories(frame_bench PRIVATE ${PROJECT_SOURCE_DIR}/tui)
# Loaded model to the first rank-overview frame, serial and as the viewer runs it
# (results in bench/README.md, "First overview frame").
add_executable(overview_bench ${CMAKE_CURRENT_SOURCE_DIR}/overview_bench.c)
target_link_libraries(overview_bench PRIVATE ovtrace_tui)
target_include_directories(overview_bench PRIVATE ${PROJECT_SOURCE_DIR}/tui)
