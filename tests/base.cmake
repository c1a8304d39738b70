# The base layer's IO part (base/file.c, regex.c, parse.c, zwriter.c), linked alone.
ovtrace_unit_test(base.io SOURCES ${CMAKE_CURRENT_LIST_DIR}/base/test_io.c LIBS ovtrace_base BARE)
