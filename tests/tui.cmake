# TUI: cell-grid unit tests (cmocka) and end-to-end tests of the real
# binary in tmux (label tmux; skipped with 77 when tmux or the DeepSeek trace is
# missing).
set(tui_dir ${CMAKE_CURRENT_SOURCE_DIR}/tui)
ovtrace_unit_test(tui.grid SOURCES ${tui_dir}/test_grid.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.viewstate SOURCES ${tui_dir}/test_viewstate.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.render SOURCES ${tui_dir}/test_render.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.index SOURCES ${tui_dir}/test_index.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.app SOURCES ${tui_dir}/test_app.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.loading SOURCES ${tui_dir}/test_loading.c LIBS ovtrace_tui)

foreach(t open search zoom launch range quit headless)
  add_test(NAME tui.viewer.${t}
    COMMAND bash ${tui_dir}/viewer.sh ${t} $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${PROJECT_SOURCE_DIR}/sample-traces)
  # generous: under ASan (tests/sanitize.sh, OVTRACE_TEST_TIMEOUT_SCALE=3) the waits of
  # tests/lib/tmux.sh may take 3x their deadlines; a passing test ends at once
  set_tests_properties(tui.viewer.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# Progressive load: loading screen before the timeline, q / Ctrl-C while
# loading, load errors after the terminal is restored (a 150 MB trace generated into
# a temp directory with gen_trace and deleted afterwards).
add_test(NAME tui.progressive_load
  COMMAND bash ${tui_dir}/progressive_load.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:gen_trace> ${OVTRACE_DEEPSEEK})
set_tests_properties(tui.progressive_load PROPERTIES LABELS "tmux;soak" SKIP_RETURN_CODE 77 TIMEOUT 900)
# Live preview while loading: bucket model, rendering, fed by the loader.
ovtrace_unit_test(tui.preview SOURCES ${tui_dir}/test_preview.c LIBS ovtrace_tui)
add_test(NAME tui.load_preview
  COMMAND bash ${tui_dir}/load_preview.sh $<TARGET_FILE:ovtrace> $<TARGET_FILE:gen_trace> ${OVTRACE_DEEPSEEK})
set_tests_properties(tui.load_preview PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 600)
# Many lanes: the viewer's peak memory near --dump's (memory), q and SIGTERM at once
# while the loader is in a step that does not poll the cancel request (cancel).
foreach(t memory cancel)
  add_test(NAME tui.many_lanes.${t} COMMAND bash ${tui_dir}/many_lanes.sh ${t} $<TARGET_FILE:ovtrace>)
  set_tests_properties(tui.many_lanes.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The new user's viewer: live title and freeze, details args and scrolling, wide
# range panel, lane clutter, Home/cursor/--range, in pure functions and the headless app.
ovtrace_unit_test(tui.newuser SOURCES ${tui_dir}/test_newuser.c LIBS ovtrace_tui)
foreach(t details clutter wide cursor live)
  add_test(NAME tui.newuser.${t}
    COMMAND bash ${tui_dir}/newuser.sh ${t} $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR}/tests/data
            ${PROJECT_SOURCE_DIR}/sample-traces ${OVTRACE_DEEPSEEK})
  set_tests_properties(tui.newuser.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# counter lanes (sparklines, lines, range figures) and the kernel table.
ovtrace_unit_test(tui.counter_lane SOURCES ${tui_dir}/test_counter_lane.c LIBS ovtrace_tui)
foreach(t unicode ascii)
  add_test(NAME tui.counter_lanes.${t}
    COMMAND bash ${tui_dir}/counter_lanes.sh ${t} $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(tui.counter_lanes.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
foreach(t copy nocopy)
  add_test(NAME tui.kernel_table.${t}
    COMMAND bash ${tui_dir}/kernel_table.sh ${t} $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR}/sample-traces)
  set_tests_properties(tui.kernel_table.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
ovtrace_unit_test(tui.kernel_table SOURCES ${tui_dir}/test_kernel_table.c LIBS ovtrace_tui)
ovtrace_unit_test(tui.kname SOURCES ${tui_dir}/test_kname.c LIBS ovtrace_tui)
# collectives in the viewer (wait glyphs, details, range split, x / X keys).
ovtrace_unit_test(tui.collview SOURCES ${tui_dir}/test_collview.c LIBS ovtrace_tui)
add_test(NAME tui.collectives COMMAND bash ${tui_dir}/collectives.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(tui.collectives PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
# e names its filter, clips by default; the file has the panel's figures.
add_test(NAME tui.export
  COMMAND bash ${tui_dir}/export.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(tui.export PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
# the lazy rank overview (GPU lanes first, CPU lanes loaded behind it).
add_test(NAME tui.lazy_overview COMMAND bash ${tui_dir}/lazy_overview.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(tui.lazy_overview PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
# Quitting it while the full load runs: a model of many groups (slow), a step that does
# not poll the cancel request (stall); q, Ctrl-C, SIGINT, SIGTERM end it within 2 s.
foreach(t slow stall)
  add_test(NAME tui.lazy_quit.${t} COMMAND bash ${tui_dir}/lazy_quit.sh ${t} $<TARGET_FILE:ovtrace>)
  set_tests_properties(tui.lazy_quit.${t} PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# The unit tests see tui's private headers.
foreach(t grid viewstate render index app loading preview newuser counter_lane kernel_table kname collview)
  target_include_directories(test_tui_${t} PRIVATE ${PROJECT_SOURCE_DIR}/tui)
endforeach()
# The side panels show every number whole at 80x24, 160x45 and 200x50 (headless).
add_test(NAME tui.panels COMMAND bash ${tui_dir}/panels.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)

# An 8-rank run: the overview's labels explained, the range panel's straggler and
# arrivals equal to stats --range (headless).
add_test(NAME tui.rank_range COMMAND bash ${tui_dir}/rank_range.sh $<TARGET_FILE:ovtrace>)
# The kernel table and the range panel count a range's kernels alike and say how.
add_test(NAME tui.range_kernels COMMAND bash ${tui_dir}/range_kernels.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
# Counter values beside the plot, never over it; their min..max as stats gives it.
add_test(NAME tui.counter_values COMMAND bash ${tui_dir}/counter_values.sh $<TARGET_FILE:ovtrace>)
