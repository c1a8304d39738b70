# The base layer's IO part (base/file.c, regex.c, parse.c, zwriter.c, atomicfile.c;
# label "base").
add_executable(test_base_io ${CMAKE_CURRENT_LIST_DIR}/baseio/test_base_io.c)
target_link_libraries(test_base_io PRIVATE ovtrace_base PkgConfig::CMOCKA)
add_test(NAME base.io COMMAND test_base_io)
set_tests_properties(base.io PROPERTIES LABELS "base" SKIP_RETURN_CODE 77)

add_executable(test_atomicfile ${CMAKE_CURRENT_LIST_DIR}/baseio/test_atomicfile.c)
target_link_libraries(test_atomicfile PRIVATE ovtrace_base PkgConfig::CMOCKA)
add_test(NAME base.atomicfile COMMAND test_atomicfile)
set_tests_properties(base.atomicfile PROPERTIES LABELS "base")
