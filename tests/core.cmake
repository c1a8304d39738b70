# Core library: time parsing, loader, classification, overlap, DeepSeek figures,
# differential test against cJSON, CLI.
set(core_dir ${CMAKE_CURRENT_SOURCE_DIR}/core)
set(data_dir ${CMAKE_CURRENT_SOURCE_DIR}/data)
ovtrace_unit_test(core.timeunits SOURCES ${core_dir}/test_timeunits.c)
ovtrace_unit_test(core.loader SOURCES ${core_dir}/test_loader.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD)
ovtrace_unit_test(core.classify SOURCES ${core_dir}/test_classify.c LABELS threads)
ovtrace_unit_test(core.overlap SOURCES ${core_dir}/test_overlap.c)
# the hardware line of a recording on a GPU (stats prints it)
ovtrace_unit_test(core.hardware SOURCES ${core_dir}/test_hardware.c)
ovtrace_unit_test(core.deepseek SOURCES ${core_dir}/test_deepseek.c)
ovtrace_unit_test(core.differential SOURCES ${core_dir}/test_differential.c LIBS PkgConfig::CJSON m)
ovtrace_unit_test(core.jsonindex SOURCES ${core_dir}/test_jsonindex.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD)
ovtrace_unit_test(core.jsonshape SOURCES ${core_dir}/test_jsonshape.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD)
add_test(NAME core.cli COMMAND bash ${core_dir}/cli.sh $<TARGET_FILE:ovtrace> ${OVTRACE_DEEPSEEK} ${data_dir})
# every subcommand's options: --opt value and --opt=value, errors, positional arguments
add_test(NAME core.options COMMAND bash ${core_dir}/options.sh $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(core.options PROPERTIES TIMEOUT 300)
# the demo sample's generator: a real argument parser, its default output the shipped sample
add_test(NAME core.make_demo COMMAND sh ${core_dir}/make_demo.sh ${PROJECT_SOURCE_DIR})
# library code reads no environment, but for the listed exceptions
add_test(NAME core.no_getenv COMMAND sh ${core_dir}/no_getenv.sh ${PROJECT_SOURCE_DIR})
add_test(NAME core.one_oom_policy COMMAND sh ${core_dir}/one_oom_policy.sh ${PROJECT_SOURCE_DIR})
ovtrace_unit_test(core.parallel SOURCES ${core_dir}/test_parallel.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS threads)
ovtrace_unit_test(core.many_files SOURCES ${core_dir}/test_many_files.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD LABELS threads)
ovtrace_unit_test(core.finish SOURCES ${core_dir}/test_finish.c LABELS threads)
# stats --json byte-identical with 1, 2 and 3 parser threads on every test trace.
add_test(NAME core.stats_threads
  COMMAND sh ${core_dir}/stats_threads.sh $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR} ${OVTRACE_DEEPSEEK})
set_tests_properties(core.stats_threads PROPERTIES LABELS threads TIMEOUT 300)
# the terminal sanitiser and JSON string escapes
ovtrace_unit_test(core.termsafe SOURCES ${core_dir}/test_termsafe.c)
# Counter series (every series of a counter event kept).
ovtrace_unit_test(core.counters SOURCES ${core_dir}/test_counters.c)
add_test(NAME core.counters_cli COMMAND sh ${core_dir}/counters_cli.sh $<TARGET_FILE:ovtrace> ${data_dir})
# baseTimeNanoseconds: relative times per file, exact; mixed bases align and merge
add_test(NAME core.base_time COMMAND sh ${core_dir}/base_time.sh $<TARGET_FILE:ovtrace> ${PROJECT_SOURCE_DIR}/tests/export/perfetto_rules.py)
ovtrace_unit_test(core.serve_stats SOURCES ${core_dir}/test_serve_stats.c)
# sub-rows against a brute-force greedy; big lanes (1.1M identical, 600k nested) take
# minutes with a quadratic scan: the timeout catches one.
ovtrace_unit_test(core.subrows SOURCES ${core_dir}/test_subrows.c TIMEOUT 120)
# stats, stats --json, view --dump to /dev/full exit 1 with a message.
add_test(NAME core.write_errors COMMAND bash ${core_dir}/write_errors.sh $<TARGET_FILE:ovtrace> ${data_dir}/kineto-2node.json)
set_tests_properties(core.write_errors PROPERTIES SKIP_RETURN_CODE 77)
# cross-rank collective matching, waits and exposed-comm split on hand-built traces.
ovtrace_unit_test(core.collectives SOURCES ${core_dir}/test_collectives.c LIBS PkgConfig::ZLIB PkgConfig::ZSTD)
add_test(NAME core.collectives_cli COMMAND bash ${core_dir}/collectives_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(core.collectives_cli PROPERTIES TIMEOUT 120)
# the shipped DeepSeek-like trace pair against the figures its generator computed.
add_test(NAME core.moe_ep COMMAND sh ${core_dir}/moe_ep.sh $<TARGET_FILE:ovtrace> ${data_dir})
# one JSON member loop - escaped keys and syntax errors alike on every path.
ovtrace_unit_test(core.members SOURCES ${core_dir}/test_members.c LIBS PkgConfig::CJSON)
ovtrace_unit_test(core.evsort SOURCES ${core_dir}/test_evsort.c)
# the GPU-first load behind the lazy rank overview gives the full load's
# figures (overlap, collectives, exposed-comm split) and GPU lanes, event for event.
ovtrace_unit_test(core.lazy SOURCES ${core_dir}/test_lazy.c LIBS ovtrace_live ovtrace_schedule ovtrace_collector TIMEOUT 120)
# Nsight Systems input: make.py writes the fixture (an export laid out by NVIDIA's
# documented schema, and its Kineto twin) into the build tree; the loader reads it into
# the model its twin gives, and names what a database it cannot read lacks.
add_test(NAME core.nsys_fixture COMMAND python3 ${data_dir}/nsys/make.py ${CMAKE_CURRENT_BINARY_DIR}/nsys)
set_tests_properties(core.nsys_fixture PROPERTIES FIXTURES_SETUP nsys)
ovtrace_unit_test(core.nsys SOURCES ${core_dir}/test_nsys.c LIBS PkgConfig::SQLITE)
target_compile_definitions(${test_exe} PRIVATE OVTRACE_NSYS_FIXTURE="${CMAKE_CURRENT_BINARY_DIR}/nsys")
set_tests_properties(core.nsys PROPERTIES FIXTURES_REQUIRED nsys)
