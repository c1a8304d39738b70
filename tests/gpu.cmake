# The GPU run's consumer (ovtrace-gpucheck, tests/gpu/gpucheck.cmake) on the CPU, with the
# live stand-in program: its counts, overlap figures and the stop handshake. Included
# from tests/CMakeLists.txt after live.cmake (live_fake_program).
add_test(NAME collector.gpucheck COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/gpu/test_gpucheck.sh
  $<TARGET_FILE:ovtrace-gpucheck> $<TARGET_FILE:live_fake_program>)
set_tests_properties(collector.gpucheck PROPERTIES LABELS collector TIMEOUT 60)
