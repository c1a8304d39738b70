# Ring / shared-memory transport / name table tests, linked with the ring library alone.
foreach(t basic stress overflow shm names)
  ovtrace_unit_test(ring.${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/ring/test_${t}.c LIBS ovtrace_ring BARE TIMEOUT 120)
endforeach()
