# Core library: time parsing, loader, classification, overlap, DeepSeek figures,
# differential test against cJSON, CLI.
set(core_dir ${CMAKE_CURRENT_SOURCE_DIR}/core)
ovtrace_unit_test(test_timeunits SOURCES ${core_dir}/test_timeunits.c LABELS core)
ovtrace_unit_test(test_loader SOURCES ${core_dir}/test_loader.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS core)
ovtrace_unit_test(test_classify SOURCES ${core_dir}/test_classify.c LABELS core)
ovtrace_unit_test(test_overlap SOURCES ${core_dir}/test_overlap.c LABELS core)
ovtrace_unit_test(test_deepseek SOURCES ${core_dir}/test_deepseek.c LABELS core)
ovtrace_unit_test(test_differential SOURCES ${core_dir}/test_differential.c LIBS PkgConfig::CJSON m LABELS core)
add_test(NAME test_cli COMMAND bash ${core_dir}/test_cli.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(test_cli PROPERTIES LABELS core)
# every subcommand's options: --opt value and --opt=value, errors, positional arguments
add_test(NAME test_options COMMAND bash ${core_dir}/test_options.sh $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_options PROPERTIES LABELS core TIMEOUT 300)
# library code reads no environment, but for the listed exceptions
add_test(NAME test_no_getenv COMMAND sh ${core_dir}/test_no_getenv.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(test_no_getenv PROPERTIES LABELS core)
add_test(NAME test_one_oom_policy COMMAND sh ${core_dir}/test_one_oom_policy.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(test_one_oom_policy PROPERTIES LABELS core)
ovtrace_unit_test(test_parallel SOURCES ${core_dir}/test_parallel.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS core threads)
ovtrace_unit_test(test_finish SOURCES ${core_dir}/test_finish.c LABELS core)
# stats --json byte-identical with 1, 2 and 3 parser threads on every test trace.
add_test(NAME test_stats_threads COMMAND sh ${core_dir}/test_stats_threads.sh $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR} ${OVTRACE_DEEPSEEK})
set_tests_properties(test_stats_threads PROPERTIES LABELS "core;threads" TIMEOUT 300)
# the terminal sanitiser and JSON string escapes
ovtrace_unit_test(test_termsafe SOURCES ${core_dir}/test_termsafe.c LABELS core)
# Counter series (every series of a counter event kept).
ovtrace_unit_test(test_counters SOURCES ${core_dir}/test_counters.c LABELS core)
add_test(NAME test_counters_cli COMMAND sh ${core_dir}/test_counters_cli.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(test_counters_cli PROPERTIES LABELS core)
ovtrace_unit_test(test_serve_stats SOURCES ${core_dir}/test_serve_stats.c LABELS core)
# sub-rows against a brute-force greedy; big lanes (1.1M identical,
# 600k nested) took minutes with the old quadratic scan: the timeout catches a relapse.
ovtrace_unit_test(test_subrows SOURCES ${core_dir}/test_subrows.c LABELS core)
set_tests_properties(test_subrows PROPERTIES TIMEOUT 120)
# stats, stats --json, view --dump to /dev/full exit 1 with a message.
add_test(NAME test_write_errors COMMAND bash ${core_dir}/test_write_errors.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data/kineto-2node.json)
set_tests_properties(test_write_errors PROPERTIES LABELS core SKIP_RETURN_CODE 77)
# cross-rank collective matching, waits and exposed-comm split on hand-built traces.
ovtrace_unit_test(test_collectives SOURCES ${core_dir}/test_collectives.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS core)
add_test(NAME test_collectives_cli COMMAND bash ${core_dir}/test_collectives_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(test_collectives_cli PROPERTIES LABELS core TIMEOUT 120)
# the shipped DeepSeek-like trace pair against the figures its generator computed.
add_test(NAME test_moe_ep COMMAND sh ${core_dir}/test_moe_ep.sh $<TARGET_FILE:ovtrace> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(test_moe_ep PROPERTIES LABELS core)
# one JSON member loop - escaped keys and syntax errors alike on every path.
ovtrace_unit_test(test_members SOURCES ${core_dir}/test_members.c LIBS PkgConfig::CJSON LABELS core)
ovtrace_unit_test(test_evsort SOURCES ${core_dir}/test_evsort.c LABELS core)
# the GPU-first load behind the lazy rank overview gives the full load's
# figures (overlap, collectives, exposed-comm split) and GPU lanes, event for event.
ovtrace_unit_test(test_lazy SOURCES ${core_dir}/test_lazy.c LIBS ovtrace_live ovtrace_schedule ovtrace_collector LABELS core)
set_tests_properties(test_lazy PROPERTIES TIMEOUT 120)
