# CUPTI collector, launcher and CUDA workload tests (GPU-only ones are labelled "gpu"
# and skip with 77 without a driver).
set(_cdir ${CMAKE_CURRENT_LIST_DIR}/collector)

# Launcher: a stand-in program streams through the exported ring set (no GPU).
add_executable(collector_fake_target ${_cdir}/fake_target.c)
target_link_libraries(collector_fake_target PRIVATE ovtrace_collector Threads::Threads)
ovtrace_unit_test(collector.launch SOURCES ${_cdir}/test_launch.c LIBS ovtrace_collector TIMEOUT 120)
target_compile_definitions(${test_exe} PRIVATE FAKE_TARGET="$<TARGET_FILE:collector_fake_target>")
add_dependencies(${test_exe} collector_fake_target)
if(TARGET ovtrace_inject)
  target_compile_definitions(${test_exe} PRIVATE INJECT_LIB="$<TARGET_FILE:ovtrace_inject>")
  add_dependencies(${test_exe} ovtrace_inject)
endif()

# The workload's host-side plan against the simulator (pure C).
ovtrace_unit_test(collector.workload_plan SOURCES ${_cdir}/test_workload_plan.c
  LIBS ovtrace_workload_plan ovtrace_live ovtrace_schedule ovtrace_collector)

# Translation of synthesised CUPTI records (CUPTI headers only, no libcupti, no GPU).
if(TARGET ovtrace_cupti_translate)
  ovtrace_unit_test(collector.translate SOURCES ${_cdir}/test_translate.c
    LIBS ovtrace_cupti_translate ovtrace_workload_plan ovtrace_live ovtrace_collector)
  # The collector's glue (buffers, locks, flusher, stop, fork) against a stand-in
  # libcupti: the real cupti_collector.c, no GPU, no libcupti.
  ovtrace_unit_test(collector.cupti SOURCES ${PROJECT_SOURCE_DIR}/collector/cupti_collector.c
    ${_cdir}/fake_cupti.c ${_cdir}/test_cupti.c LIBS ovtrace_cupti_translate TIMEOUT 60)
  # The injection library's stop signals: an interrupted program hands over what CUPTI
  # holds before it ends (the real inject.c and cupti_collector.c, stand-in libcupti).
  ovtrace_unit_test(collector.inject_signal SOURCES ${PROJECT_SOURCE_DIR}/collector/inject.c
    ${PROJECT_SOURCE_DIR}/collector/cupti_collector.c ${_cdir}/fake_cupti.c ${_cdir}/test_inject_signal.c
    LIBS ovtrace_cupti_translate TIMEOUT 60)
endif()

# The GPU run's own consumer (ovtrace-gpucheck, tests/gpu/) on the live stand-in program:
# its counts, overlap figures and the stop handshake.
add_test(NAME collector.gpucheck COMMAND sh ${_cdir}/gpucheck.sh
  $<TARGET_FILE:ovtrace-gpucheck> $<TARGET_FILE:live_fake_program>)
set_tests_properties(collector.gpucheck PROPERTIES TIMEOUT 60)

if(TARGET ovtrace_inject)
  add_test(NAME collector.inject_exports COMMAND sh ${_cdir}/inject_exports.sh $<TARGET_FILE:ovtrace_inject>)
  set_tests_properties(collector.inject_exports PROPERTIES SKIP_RETURN_CODE 77)
endif()

if(TARGET ovtrace-workload AND TARGET ovtrace_inject)
  add_test(NAME collector.runpath COMMAND sh ${_cdir}/runpath.sh ${OVTRACE_CUPTI_LIBDIR}
    $<TARGET_FILE:ovtrace-workload> $<TARGET_FILE:ovtrace_inject>)
  set_tests_properties(collector.runpath PROPERTIES SKIP_RETURN_CODE 77)
endif()

if(TARGET ovtrace-workload)
  add_test(NAME collector.kernel_names COMMAND sh ${_cdir}/kernel_names.sh $<TARGET_FILE:ovtrace-workload>)
  set_tests_properties(collector.kernel_names PROPERTIES SKIP_RETURN_CODE 77)
  # --gpus N without a GPU: NCCL loaded at run time, clear errors; the real library (the
  # toolkit's, when it has one) must load with every call the workload makes.
  find_library(OVTRACE_NCCL_LIBRARY NAMES libnccl.so.2 nccl
    HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib ${CUDAToolkit_TARGET_DIR}/lib)
  set(_nccl "")
  if(OVTRACE_NCCL_LIBRARY)
    set(_nccl ${OVTRACE_NCCL_LIBRARY})
  endif()
  add_test(NAME collector.workload_nccl_cli
    COMMAND sh ${_cdir}/workload_nccl_cli.sh $<TARGET_FILE:ovtrace-workload> ${_nccl})
  set_tests_properties(collector.workload_nccl_cli PROPERTIES TIMEOUT 60)
  set(_wl $<TARGET_FILE:ovtrace-workload>)
else()
  set(_wl "")
endif()

# No driver: clear error, non-zero, no crash (skips where a driver is installed).
add_test(NAME collector.nogpu_cli COMMAND sh ${_cdir}/nogpu_cli.sh $<TARGET_FILE:ovtrace> ${_wl})
set_tests_properties(collector.nogpu_cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# GPU only: both collectors end to end on the real workload (skips with 77 without a
# driver; run on hardware when a GPU is available).
if(TARGET ovtrace-workload AND TARGET ovtrace_inject)
  ovtrace_unit_test(collector.gpu_collect SOURCES ${_cdir}/test_gpu_collect.c
    LIBS ovtrace_live ovtrace_collector ovtrace_workload_plan LABELS gpu TIMEOUT 300)
  target_compile_definitions(${test_exe} PRIVATE
    WORKLOAD_BIN="$<TARGET_FILE:ovtrace-workload>" INJECT_LIB="$<TARGET_FILE:ovtrace_inject>")
  add_dependencies(${test_exe} ovtrace-workload ovtrace_inject)
endif()
