# Reliability tests (docs/reliability.md): fuzz-crash replays, regression tests, the
# truncation sweep, the malformed-input corpus through the real binary, atomic export
# under SIGKILL, terminal restore under tmux, record atomicity. The sanitizer and fuzz
# runs are tests/sanitize.sh.
set(rel_dir ${CMAKE_CURRENT_LIST_DIR}/reliability)
set(fuzz_dir ${PROJECT_SOURCE_DIR}/fuzz)

# Every crash a fuzzer found, replayed through the fuzz target itself (built here
# without libFuzzer) in the normal build, and under ASan+UBSan by tests/sanitize.sh.
foreach(target fuzz_load fuzz_load_parallel fuzz_load_compressed fuzz_peek fuzz_index fuzz_rules fuzz_time fuzz_export)
  ovtrace_unit_test(reliability.replay.${target} SOURCES ${fuzz_dir}/${target}.c ${rel_dir}/test_replay.c
    LIBS PkgConfig::ZLIB PkgConfig::ZSTD TIMEOUT 120)
  target_include_directories(${test_exe} PRIVATE ${fuzz_dir})
  target_compile_definitions(${test_exe} PRIVATE FUZZ_TARGET="${target}"
    FUZZ_DEFAULT_TRACE="${PROJECT_SOURCE_DIR}/tests/data/kineto-2node.json"
    FUZZ_REPLAY_DIRS="${rel_dir}/crashes")
endforeach()
target_include_directories(test_reliability_replay_fuzz_peek PRIVATE ${PROJECT_SOURCE_DIR}/read) # the skim's header

# fuzz_cupti reads CUPTI's record structs and the generated cbid name table, so it builds
# only with the CUDA toolkit (as the translation library does); without it the replay
# shows as skipped rather than vanishing.
if(TARGET ovtrace_cupti_translate)
  ovtrace_unit_test(reliability.replay.fuzz_cupti SOURCES ${fuzz_dir}/fuzz_cupti.c ${rel_dir}/test_replay.c
    LIBS ovtrace_cupti_translate TIMEOUT 120)
  target_include_directories(${test_exe} PRIVATE ${PROJECT_BINARY_DIR}/collector/cupti_gen)
  target_compile_definitions(${test_exe} PRIVATE FUZZ_TARGET="fuzz_cupti" FUZZ_REPLAY_DIRS="${rel_dir}/crashes")
else()
  add_test(NAME reliability.replay.fuzz_cupti
    COMMAND sh -c "echo 'reliability.replay.fuzz_cupti: no CUDA toolkit (CUPTI headers): skipped'; exit 77")
  set_tests_properties(reliability.replay.fuzz_cupti PROPERTIES SKIP_RETURN_CODE 77)
endif()

ovtrace_unit_test(reliability.regressions SOURCES ${rel_dir}/test_regressions.c)

# truncation sweep: DeepSeek cut at 100 offsets (skipped without it), gz/zst cuts
ovtrace_unit_test(reliability.truncation SOURCES ${rel_dir}/test_truncation.c
  LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS soak TIMEOUT 300)

# malformed-input corpus through the real binary (stats, view --dump, export)
add_test(NAME reliability.malformed COMMAND bash ${rel_dir}/malformed.sh ${OVTRACE_BIN} ${rel_dir}/malformed)
set_tests_properties(reliability.malformed PROPERTIES TIMEOUT 600)

# atomic export (SIGKILL/TERM/INT/HUP mid-write of a 100 MB tiled trace) and record
# killed at random times; needs bench/gen_trace to make the large input
add_test(NAME reliability.atomic COMMAND bash ${rel_dir}/atomic.sh ${OVTRACE_BIN} $<TARGET_FILE:gen_trace> ${OVTRACE_DEEPSEEK})
set_tests_properties(reliability.atomic PROPERTIES LABELS soak TIMEOUT 600 SKIP_RETURN_CODE 77 RUN_SERIAL ON)

# terminal restore after SIGINT/TERM/HUP/SEGV and SIGWINCH storms, view and live, in tmux;
# a $LINES x $COLUMNS beyond any screen clamped
foreach(case view live winch-view winch-live huge-size)
  add_test(NAME reliability.terminal.${case} COMMAND bash ${rel_dir}/terminal.sh ${case} ${OVTRACE_BIN} ${OVTRACE_DEEPSEEK})
  # generous: waits scale with OVTRACE_TEST_TIMEOUT_SCALE (3 under ASan, tests/sanitize.sh)
  set_tests_properties(reliability.terminal.${case} PROPERTIES LABELS tmux SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()

# live store bounds: 5M events/s for 60 s, RSS plateaus, drops exact (bench/live_bench)
add_test(NAME reliability.live_bounds COMMAND bash ${rel_dir}/live_bounds.sh ${CMAKE_BINARY_DIR}/bench/live_bench 60)
set_tests_properties(reliability.live_bounds PROPERTIES LABELS soak TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL ON)

# stale export/record temporary files removed (dead PID), SIGUSR1/SIGALRM/INT/TERM/HUP
# mid-export leave nothing; runs without ../shared
add_test(NAME reliability.stale_temps COMMAND bash ${rel_dir}/stale_temps.sh ${OVTRACE_BIN})
set_tests_properties(reliability.stale_temps PROPERTIES TIMEOUT 300)

# terminal injection: hostile names and file names escaped in stats, --json, errors,
# warnings, export, --dump and the TUI
add_test(NAME reliability.term_inject COMMAND bash ${rel_dir}/term_inject.sh ${OVTRACE_BIN})
set_tests_properties(reliability.term_inject PROPERTIES LABELS tmux TIMEOUT 300)
# input layer: SIGBUS from a shrinking mapped input (load, parallel load,
# export), the details fetch's fd leak, pipe sources refused by re-readers
ovtrace_unit_test(reliability.input_hardening SOURCES ${rel_dir}/test_input_hardening.c
  LIBS PkgConfig::ZLIB PkgConfig::ZSTD TIMEOUT 300)

# inputs read once (<(...), stdin, FIFOs; each under a timeout) and
# decompression bombs (300 MB of blanks: time and peak RSS bounded; --max-token)
add_test(NAME reliability.streams COMMAND bash ${rel_dir}/streams.sh ${OVTRACE_BIN})
set_tests_properties(reliability.streams PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
add_test(NAME reliability.bombs COMMAND bash ${rel_dir}/bombs.sh ${OVTRACE_BIN})
set_tests_properties(reliability.bombs PROPERTIES LABELS soak TIMEOUT 600 RUN_SERIAL ON SKIP_RETURN_CODE 77)
# timestamps at +-9.2e15 us (spans past int64) skipped with a counted
# warning; spans of 2^63 - 2 ns through stats, stats --json and view --dump (UBSan
# under tests/sanitize.sh)
add_test(NAME reliability.overflow COMMAND bash ${rel_dir}/overflow.sh ${OVTRACE_BIN})
set_tests_properties(reliability.overflow PROPERTIES TIMEOUT 300)

# record --simulate at high rates killed with -9 after 0.5 s and 1 s:
# the -o file exists and loads, nothing else is left
add_test(NAME reliability.record_kill COMMAND bash ${rel_dir}/record_kill.sh ${OVTRACE_BIN})
set_tests_properties(reliability.record_kill PROPERTIES LABELS soak TIMEOUT 300 SKIP_RETURN_CODE 77)
