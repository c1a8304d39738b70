# Query tests: the events table's pushdown against SQLite's own filtering on a
# generated trace, the other tables and functions against the analysis they read and
# against figures computed independently, `devices` against `stats --json`, the CLI.
set(query_dir ${CMAKE_CURRENT_LIST_DIR}/query)
ovtrace_unit_test(query.events SOURCES ${query_dir}/test_events.c LIBS ovtrace_query)
ovtrace_unit_test(query.tables SOURCES ${query_dir}/test_tables.c LIBS ovtrace_query PkgConfig::ZLIB PkgConfig::ZSTD)

# `devices` equals the devices of `stats --json`, name for name and value for value.
add_test(NAME query.devices_stats.moe_ep
  COMMAND sh ${query_dir}/devices_stats.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data/moe-ep)
add_test(NAME query.devices_stats.deepseek
  COMMAND sh ${query_dir}/devices_stats.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK})
set_tests_properties(query.devices_stats.moe_ep query.devices_stats.deepseek PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

# -c in order, --csv, --json, errors with their place, SQL on standard input, hostile names.
add_test(NAME query.cli COMMAND bash ${query_dir}/cli.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)

# the prompt in tmux: .tables, continuation lines, history, Ctrl-C, Ctrl-D.
add_test(NAME query.prompt COMMAND bash ${query_dir}/prompt.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(query.prompt PROPERTIES LABELS "tmux" SKIP_RETURN_CODE 77 TIMEOUT 120)
