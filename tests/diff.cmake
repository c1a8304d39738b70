# comparing two runs: name grouping keys, `ovtrace diff` on the shipped pair
# (tests/data/diff), and the DeepSeek trace against a perturbed copy with known changes.
set(diff_dir ${CMAKE_CURRENT_SOURCE_DIR}/diff)
ovtrace_unit_test(test_kname SOURCES ${diff_dir}/test_kname.c LABELS diff)
add_test(NAME test_diff_cli COMMAND bash ${diff_dir}/diff_cli.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(test_diff_cli PROPERTIES LABELS diff)
add_test(NAME test_diff_deepseek COMMAND bash ${diff_dir}/diff_deepseek.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK})
set_tests_properties(test_diff_deepseek PROPERTIES LABELS diff SKIP_RETURN_CODE 77)
# view A B --align: run clocks and labels (analysis/align.c), the panel's figures, and tmux
if(TARGET ovtrace_tui)
  ovtrace_unit_test(test_align SOURCES ${diff_dir}/test_align.c LIBS ovtrace_tui LABELS diff)
  add_test(NAME test_view_compare COMMAND bash ${diff_dir}/view_compare.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(test_view_compare PROPERTIES LABELS "diff;tui-e2e" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
