# Live pipeline tests (label "live"): schedule description, simulator, store,
# recording, session; CLI record/live end to end. Included from tests/CMakeLists.txt.
foreach(t schedule overlap store)
  ovtrace_unit_test(live_${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/live/test_live_${t}.c
    LIBS ovtrace_live ovtrace_schedule ovtrace_collector PkgConfig::CJSON LABELS live)
  set_tests_properties(live_${t} PROPERTIES TIMEOUT 60)
endforeach()

add_test(NAME live.cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/live/test_live_cli.sh $<TARGET_FILE:ovtrace>)
set_tests_properties(live.cli PROPERTIES LABELS live TIMEOUT 60)
