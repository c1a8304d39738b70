# Comparing two runs: name grouping keys, `ovtrace diff` on the shipped pair
# (tests/data/diff), and the DeepSeek trace against a perturbed copy with known changes.
set(diff_dir ${CMAKE_CURRENT_SOURCE_DIR}/diff)
ovtrace_unit_test(diff.kname SOURCES ${diff_dir}/test_kname.c)
add_test(NAME diff.cli COMMAND bash ${diff_dir}/cli.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
add_test(NAME diff.deepseek COMMAND bash ${diff_dir}/deepseek.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK})
set_tests_properties(diff.deepseek PROPERTIES SKIP_RETURN_CODE 77)
# view A B --align: run clocks and labels (analysis/align.c), the panel's figures, and tmux
if(TARGET ovtrace_tui)
  ovtrace_unit_test(diff.align SOURCES ${diff_dir}/test_align.c LIBS ovtrace_tui)
  target_include_directories(test_diff_align PRIVATE ${PROJECT_SOURCE_DIR}/tui) # compare.h is private to tui/
  add_test(NAME diff.view_compare COMMAND bash ${diff_dir}/view_compare.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(diff.view_compare PROPERTIES LABELS tmux SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
