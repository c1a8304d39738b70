# The base layer's IO part (base/file.c, regex.c, parse.c, zwriter.c, atomicfile.c), linked alone.
ovtrace_unit_test(base.io SOURCES ${CMAKE_CURRENT_LIST_DIR}/base/test_io.c LIBS ovtrace_base BARE)
ovtrace_unit_test(base.atomicfile SOURCES ${CMAKE_CURRENT_LIST_DIR}/base/test_atomicfile.c LIBS ovtrace_base BARE)
ovtrace_unit_test(base.hash SOURCES ${CMAKE_CURRENT_LIST_DIR}/base/test_hash.c BARE)
target_include_directories(${test_exe} PRIVATE ${PROJECT_SOURCE_DIR}/include)
