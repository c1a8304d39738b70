# Live pipeline tests: schedule description, simulator, store, recording, session;
# CLI record/live end to end.
set(live_dir ${CMAKE_CURRENT_LIST_DIR}/live)
# live.clamp: ring records with times beyond +-2^62 ns are clamped and counted
foreach(t schedule overlap store clamp)
  ovtrace_unit_test(live.${t} SOURCES ${live_dir}/test_${t}.c
    LIBS ovtrace_live ovtrace_schedule ovtrace_collector PkgConfig::CJSON TIMEOUT 60)
endforeach()
# serving with dynamic / fixed batching (policy contract; the trade-off on the
# simulator's trace).
ovtrace_unit_test(live.serve SOURCES ${live_dir}/test_serve.c LIBS ovtrace_live ovtrace_schedule ovtrace_collector TIMEOUT 120)
# multi-rank simulation (record --simulate --ranks N) with known waits.
ovtrace_unit_test(live.simranks SOURCES ${live_dir}/test_simranks.c LIBS ovtrace_live ovtrace_schedule ovtrace_collector TIMEOUT 60)

add_test(NAME live.cli COMMAND sh ${live_dir}/cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(live.cli PROPERTIES TIMEOUT 60)
add_test(NAME live.serve_cli COMMAND sh ${live_dir}/serve_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(live.serve_cli PROPERTIES TIMEOUT 120)

# A program as the source without a GPU: a stand-in streams records through the shared
# ring set (OVTRACE_SHM) as the CUPTI collector would; the driver check is bypassed with
# the test-only --debug-assume-driver.
add_executable(live_fake_program ${live_dir}/live_fake_program.c)
target_link_libraries(live_fake_program PRIVATE ovtrace_collector Threads::Threads)
add_test(NAME live.program COMMAND sh ${live_dir}/program.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:live_fake_program>)
set_tests_properties(live.program PROPERTIES TIMEOUT 90)

# The live TUI in tmux, simulated and program sources.
add_test(NAME live.tui COMMAND bash ${live_dir}/tui.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:live_fake_program>)
set_tests_properties(live.tui PROPERTIES LABELS tmux SKIP_RETURN_CODE 77 TIMEOUT 600)

# The GPUs a recording names ("gpus" metadata), against a stand-in driver library.
add_library(live_fake_libcuda SHARED ${live_dir}/fake_libcuda.c)
ovtrace_unit_test(live.gpu_meta SOURCES ${live_dir}/test_gpu_meta.c
  LIBS ovtrace_live ovtrace_schedule ovtrace_collector PkgConfig::CJSON TIMEOUT 60)
target_compile_definitions(${test_exe} PRIVATE FAKE_LIBCUDA="$<TARGET_FILE:live_fake_libcuda>")
add_dependencies(${test_exe} live_fake_libcuda)
