# Install and packaging: cmake --install into a temporary prefix, the .deb (cpack,
# dpkg-deb), the CUDA/-Werror options, and the man page and completions checked against
# every command's --help.
include(GNUInstallDirs)
set(_idir ${CMAKE_CURRENT_SOURCE_DIR}/install)
add_executable(install_findhelper ${_idir}/findhelper.c)
target_link_libraries(install_findhelper PRIVATE ovtrace_collector)

add_test(NAME install.prefix
  COMMAND bash ${_idir}/prefix.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} $<TARGET_FILE:install_findhelper>)
set_tests_properties(install.prefix PROPERTIES TIMEOUT 120 ENVIRONMENT
  "BINDIR=${CMAKE_INSTALL_BINDIR};PKGLIBDIR=${CMAKE_INSTALL_LIBDIR}/ovtrace;PKGLIBEXECDIR=${CMAKE_INSTALL_LIBEXECDIR}/ovtrace;MANDIR=${CMAKE_INSTALL_MANDIR};DATADIR=${CMAKE_INSTALL_DATADIR};DOCDIR=${CMAKE_INSTALL_DOCDIR};HAVE_WORKLOAD=$<TARGET_EXISTS:ovtrace-workload>;HAVE_INJECT=$<TARGET_EXISTS:ovtrace_inject>")

# cpack runs the build dir's preinstall step: not beside the other install test
add_test(NAME install.deb COMMAND bash ${_idir}/deb.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION})
set_tests_properties(install.deb PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
set_tests_properties(install.prefix install.deb PROPERTIES RESOURCE_LOCK ovtrace_build_dir)

add_test(NAME install.configure_options
  COMMAND bash ${_idir}/configure_options.sh ${PROJECT_SOURCE_DIR} $<TARGET_EXISTS:ovtrace_inject>)
set_tests_properties(install.configure_options PROPERTIES TIMEOUT 180)

# the man page and the completions name every option of every command's --help
foreach(kind man bash zsh)
  if(kind STREQUAL man)
    set(_f ${PROJECT_BINARY_DIR}/packaging/ovtrace.1)
  elseif(kind STREQUAL bash)
    set(_f ${PROJECT_SOURCE_DIR}/packaging/ovtrace.bash)
  else()
    set(_f ${PROJECT_SOURCE_DIR}/packaging/_ovtrace)
  endif()
  add_test(NAME install.options.${kind} COMMAND python3 ${_idir}/options.py ${kind} $<TARGET_FILE:ovtrace> ${_f})
  set_tests_properties(install.options.${kind} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
