# TUI: cell-grid unit tests (cmocka) and end-to-end tests of the real
# binary in tmux (label tui-e2e; skipped with 77 when tmux or the DeepSeek trace is
# missing).
set(tui_dir ${CMAKE_CURRENT_SOURCE_DIR}/tui)
ovtrace_unit_test(test_tui_grid SOURCES ${tui_dir}/test_grid.c LIBS ovtrace_tui LABELS tui)
ovtrace_unit_test(test_tui_viewstate SOURCES ${tui_dir}/test_viewstate.c LIBS ovtrace_tui LABELS tui)
ovtrace_unit_test(test_tui_render SOURCES ${tui_dir}/test_render.c LIBS ovtrace_tui LABELS tui)
ovtrace_unit_test(test_tui_index SOURCES ${tui_dir}/test_index.c LIBS ovtrace_tui LABELS tui)
ovtrace_unit_test(test_tui_app SOURCES ${tui_dir}/test_app.c LIBS ovtrace_tui LABELS tui)
ovtrace_unit_test(test_tui_loading SOURCES ${tui_dir}/test_loading.c LIBS ovtrace_tui LABELS tui)

foreach(t open search zoom launch range quit headless)
  add_test(NAME tui_e2e_${t}
    COMMAND bash ${tui_dir}/e2e.sh ${t} $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${PROJECT_SOURCE_DIR}/sample-traces)
  # generous: under ASan (tests/sanitize.sh, OVTRACE_TEST_TIMEOUT_SCALE=3) the waits of
  # tests/lib/tmux.sh may take 3x their deadlines; a passing test ends at once
  set_tests_properties(tui_e2e_${t} PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# Progressive load: loading screen before the timeline, q / Ctrl-C while
# loading, load errors after the terminal is restored (a 150 MB trace generated into
# a temp directory with gen_trace and deleted afterwards).
add_test(NAME tui_e2e_progressive_load
  COMMAND bash ${tui_dir}/e2e_load.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:gen_trace> ${OVTRACE_DEEPSEEK})
set_tests_properties(tui_e2e_progressive_load PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 900)
# Live preview while loading: bucket model, rendering, fed by the loader.
ovtrace_unit_test(test_tui_preview SOURCES ${tui_dir}/test_preview.c LIBS ovtrace_tui LABELS tui)
add_test(NAME tui_e2e_load_preview
  COMMAND bash ${tui_dir}/e2e_preview.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:gen_trace> ${OVTRACE_DEEPSEEK})
set_tests_properties(tui_e2e_load_preview PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 600)

# The new user's viewer: live title and freeze, details args and scrolling, wide
# range panel, lane clutter, Home/cursor/--range, in pure functions and the headless app.
ovtrace_unit_test(test_tui_newuser SOURCES ${tui_dir}/test_newuser.c LIBS ovtrace_tui LABELS tui)
foreach(t details clutter wide cursor live)
  add_test(NAME tui_e2e_newuser_${t}
    COMMAND bash ${tui_dir}/e2e_newuser.sh ${t} $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR}/tests/data
            ${PROJECT_SOURCE_DIR}/sample-traces ${OVTRACE_DEEPSEEK})
  set_tests_properties(tui_e2e_newuser_${t} PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# counter lanes (sparklines, lines, range figures) and the kernel table.
ovtrace_unit_test(test_tui_counter_lane SOURCES ${tui_dir}/test_counter_lane.c LIBS ovtrace_tui LABELS tui)
foreach(t counters counters_ascii ktable ktable_nocopy)
  add_test(NAME tui_e2e_issue18_${t}
    COMMAND bash ${tui_dir}/e2e_issue18.sh ${t} $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(tui_e2e_issue18_${t} PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
ovtrace_unit_test(test_tui_kernel_table SOURCES ${tui_dir}/test_kernel_table.c LIBS ovtrace_tui LABELS tui)
# collectives in the viewer (wait glyphs, details, range split, x / X keys).
ovtrace_unit_test(test_tui_collview SOURCES ${tui_dir}/test_collview.c LIBS ovtrace_tui LABELS tui)
add_test(NAME tui_e2e_collectives COMMAND bash ${tui_dir}/e2e_coll.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(tui_e2e_collectives PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
# e names its filter, clips by default; the file has the panel's figures.
add_test(NAME tui_e2e_export
  COMMAND bash ${tui_dir}/e2e_export.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(tui_e2e_export PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
# the lazy rank overview (GPU lanes first, CPU lanes loaded behind it).
add_test(NAME tui_e2e_lazy_overview COMMAND bash ${tui_dir}/e2e_lazy.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(tui_e2e_lazy_overview PROPERTIES LABELS "tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
# The unit tests see tui's private headers.
foreach(t grid viewstate render index app loading preview newuser counter_lane kernel_table collview)
  target_include_directories(test_tui_${t} PRIVATE ${PROJECT_SOURCE_DIR}/tui)
endforeach()
