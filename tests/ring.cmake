# Ring / shared-memory transport / name table tests (label "ring").
# Included from tests/CMakeLists.txt; paths are relative to this file.
if(NOT TARGET PkgConfig::CMOCKA)
  pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()

foreach(t basic stress overflow shm names)
  add_executable(test_ring_${t} ${CMAKE_CURRENT_LIST_DIR}/ring/test_ring_${t}.c)
  target_include_directories(test_ring_${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/ring)
  target_link_libraries(test_ring_${t} PRIVATE ovtrace_ring PkgConfig::CMOCKA)
  add_test(NAME ring.${t} COMMAND test_ring_${t})
  set_tests_properties(ring.${t} PROPERTIES LABELS "ring" TIMEOUT 120)
endforeach()
