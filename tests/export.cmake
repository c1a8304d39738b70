# Export tests: unit tests on hand-built traces and on the DeepSeek trace, and shell
# tests that drive `ovtrace export` with the standard tools (gzip, zstd,
# python3 -m json.tool).
pkg_check_modules(EXPORT_ZLIB REQUIRED IMPORTED_TARGET zlib)
set(export_dir ${CMAKE_CURRENT_LIST_DIR}/export)

ovtrace_unit_test(export.handbuilt SOURCES ${export_dir}/test_handbuilt.c LIBS PkgConfig::EXPORT_ZLIB ovtrace_cli_signals TIMEOUT 60)
ovtrace_unit_test(export.deepseek SOURCES ${export_dir}/test_deepseek.c TIMEOUT 60)
# launch links by correlation id (fixture; DeepSeek part skips without ../shared).
ovtrace_unit_test(export.launch_links SOURCES ${export_dir}/test_launch_links.c LIBS PkgConfig::EXPORT_ZLIB)

add_test(NAME export.cli COMMAND sh ${export_dir}/cli.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK})
set_tests_properties(export.cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# -o naming a FIFO, a character device, "-" or a symlink; export and record
add_test(NAME export.special_out COMMAND bash ${export_dir}/special_out.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(export.special_out PROPERTIES TIMEOUT 120)

# a merged export reopens with the ranks and figures of its inputs.
add_test(NAME export.merge_roundtrip
  COMMAND sh ${export_dir}/merge_roundtrip.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_LIST_DIR}/data ${OVTRACE_DEEPSEEK})
set_tests_properties(export.merge_roundtrip PROPERTIES TIMEOUT 120)

# a clipped range export has the range's figures and reopens on it.
add_test(NAME export.clip_range
  COMMAND sh ${export_dir}/clip_range.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_LIST_DIR}/data ${OVTRACE_DEEPSEEK})
set_tests_properties(export.clip_range PROPERTIES TIMEOUT 120)

# what ovtrace writes (exports of every input kind, record outputs, the samples) follows
# the rules of Perfetto's JSON importer (tests/export/perfetto_rules.py).
add_test(NAME export.perfetto_import
  COMMAND sh ${export_dir}/perfetto_import.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_LIST_DIR}/data
          ${PROJECT_SOURCE_DIR}/sample-traces ${OVTRACE_DEEPSEEK})
set_tests_properties(export.perfetto_import PROPERTIES TIMEOUT 120)
