# Live pipeline tests (label "live"): schedule description, simulator, store,
# recording, session; CLI record/live end to end. Included from tests/CMakeLists.txt.
foreach(t schedule overlap store)
  ovtrace_unit_test(live_${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/live/test_live_${t}.c
    LIBS ovtrace_live ovtrace_schedule ovtrace_collector PkgConfig::CJSON LABELS live)
  set_tests_properties(live_${t} PROPERTIES TIMEOUT 60)
endforeach()

add_test(NAME live.cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/live/test_live_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(live.cli PROPERTIES LABELS live TIMEOUT 60)

# A program as the source without a GPU : a stand-in streams records
# through the shared ring set (OVTRACE_SHM) as the CUPTI collector would; the driver
# check is bypassed with the test-only --debug-assume-driver.
add_executable(live_fake_program ${CMAKE_CURRENT_LIST_DIR}/live/live_fake_program.c)
target_link_libraries(live_fake_program PRIVATE ovtrace_collector Threads::Threads)
add_test(NAME live.program COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/live/test_live_program.sh
  $<TARGET_FILE:ovtrace> $<TARGET_FILE:live_fake_program>)
set_tests_properties(live.program PROPERTIES LABELS live TIMEOUT 90)

# The live TUI in tmux (skipped with 77 without tmux).
add_test(NAME live.tui COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live/test_live_tui.sh
  $<TARGET_FILE:ovtrace> $<TARGET_FILE:live_fake_program>)
set_tests_properties(live.tui PROPERTIES LABELS live SKIP_RETURN_CODE 77 TIMEOUT 600)
# serving with dynamic / fixed batching (policy contract; the trade-off on the
# simulator's trace).
ovtrace_unit_test(live_serve SOURCES ${CMAKE_CURRENT_LIST_DIR}/live/test_live_serve.c
  LIBS ovtrace_live ovtrace_schedule ovtrace_collector LABELS live)
set_tests_properties(live_serve PROPERTIES TIMEOUT 120)
add_test(NAME live.serve_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/live/test_live_serve_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(live.serve_cli PROPERTIES LABELS live TIMEOUT 120)

# ring records with times beyond +-2^62 ns are clamped and counted
ovtrace_unit_test(live_clamp SOURCES ${CMAKE_CURRENT_LIST_DIR}/live/test_live_clamp.c
  LIBS ovtrace_live ovtrace_schedule ovtrace_collector PkgConfig::CJSON LABELS live)
set_tests_properties(live_clamp PROPERTIES TIMEOUT 60)

# multi-rank simulation (record --simulate --ranks N) with known waits.
ovtrace_unit_test(live_simranks SOURCES ${CMAKE_CURRENT_LIST_DIR}/live/test_live_simranks.c
  LIBS ovtrace_live ovtrace_schedule ovtrace_collector LABELS live)
set_tests_properties(live_simranks PROPERTIES TIMEOUT 60)
