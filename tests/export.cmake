# Export tests (label "export"): unit tests on hand-built traces and on the DeepSeek
# trace, and a shell test that drives `ovtrace export` with the standard tools
# (gzip, zstd, python3 -m json.tool). Included from tests/CMakeLists.txt.
pkg_check_modules(EXPORT_ZLIB REQUIRED IMPORTED_TARGET zlib)

ovtrace_unit_test(test_export SOURCES export/test_export.c LIBS PkgConfig::EXPORT_ZLIB ovtrace_cli_signals LABELS export)
ovtrace_unit_test(test_export_deepseek SOURCES export/test_export_deepseek.c LABELS export)
target_include_directories(test_export PRIVATE ${CMAKE_CURRENT_LIST_DIR}/export)
target_include_directories(test_export_deepseek PRIVATE ${CMAKE_CURRENT_LIST_DIR}/export)
set_tests_properties(test_export test_export_deepseek PROPERTIES TIMEOUT 60)

add_test(NAME export.cli
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/export/export_cli.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK})
set_tests_properties(export.cli PROPERTIES LABELS export SKIP_RETURN_CODE 77 TIMEOUT 60)

# -o naming a FIFO, a character device, "-" or a symlink; export and record
add_test(NAME export.special_out COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/export/special_out.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(export.special_out PROPERTIES LABELS export TIMEOUT 120)
# launch links by correlation id (fixture; DeepSeek part skips without ../shared).
ovtrace_unit_test(test_launch_links SOURCES export/test_launch_links.c LIBS PkgConfig::EXPORT_ZLIB LABELS export)
target_include_directories(test_launch_links PRIVATE ${CMAKE_CURRENT_LIST_DIR}/export)

# a merged export reopens with the ranks and figures of its inputs.
add_test(NAME export.merge_roundtrip
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/export/merge_roundtrip.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_LIST_DIR}/data ${OVTRACE_DEEPSEEK})
set_tests_properties(export.merge_roundtrip PROPERTIES LABELS export TIMEOUT 120)

# a clipped range export has the range's figures and reopens on it.
add_test(NAME export.clip_range
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/export/clip_range.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_LIST_DIR}/data ${OVTRACE_DEEPSEEK})
set_tests_properties(export.clip_range PROPERTIES LABELS export TIMEOUT 120)
