# Install rules for the data files, and the Debian package (CPack DEB) of everything `cmake --install`
# installs: the tools, the runtime (shared, static, headers, pkg-config, CMake package), the Python
# module, the pack sources, the systemd user units, the examples and the documentation
# (docs/packaging.md). scripts/package-deb builds it; tests/package/deb_install_test.sh installs it
# into a clean Debian 12 root.
#
# The package holds no compiled pack: a pack is signed by its operator's key, so the package ships
# the sources (packs/ and rules/) for `dobermanc build /usr/share/doberman/packs --key ... --out ...`.
include(GNUInstallDirs)

# The pack sources: packs/default.yaml includes ../rules/, so both keep their places side by side.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/packs ${PROJECT_SOURCE_DIR}/rules
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doberman)
# Examples: the Squid egress broker's configuration template and the hook payloads scripts/run shows.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/squid DESTINATION ${CMAKE_INSTALL_DATADIR}/doberman/examples)
install(FILES ${PROJECT_SOURCE_DIR}/examples/decisions.jsonl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doberman/examples)
# The documentation.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The systemd user units (socket-activated service). lib/systemd/user under the prefix is where
# systemd looks for vendor user units under /usr and /usr/local alike. The service names the guard by
# its installed path rather than the example's /usr/local/bin.
set(DOBERMAN_SYSTEMD_USER_UNIT_DIR lib/systemd/user CACHE STRING
    "systemd user unit directory, relative to the prefix")
set(systemd_src ${PROJECT_SOURCE_DIR}/examples/systemd)
set(systemd_out ${PROJECT_BINARY_DIR}/packaging/systemd)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${systemd_src}/doberman-guard.service ${systemd_src}/doberman-guard.socket)
file(READ ${systemd_src}/doberman-guard.service unit)
string(REGEX REPLACE "ExecStart=[^ \n]*/doberman-guard " "ExecStart=${CMAKE_INSTALL_FULL_BINDIR}/doberman-guard "
       unit "${unit}")
if(NOT unit MATCHES "ExecStart=${CMAKE_INSTALL_FULL_BINDIR}/doberman-guard ")
  message(FATAL_ERROR "examples/systemd/doberman-guard.service: no ExecStart=.../doberman-guard line to point at "
                      "${CMAKE_INSTALL_FULL_BINDIR}")
endif()
file(CONFIGURE OUTPUT ${systemd_out}/doberman-guard.service CONTENT "${unit}" @ONLY)
configure_file(${systemd_src}/doberman-guard.socket ${systemd_out}/doberman-guard.socket COPYONLY)
install(FILES ${systemd_out}/doberman-guard.service ${systemd_out}/doberman-guard.socket
        DESTINATION ${DOBERMAN_SYSTEMD_USER_UNIT_DIR})

# A stripped install (`cmake --install --strip`, and so the package: CPACK_STRIP_FILES) strips the
# executables and the shared libraries; the static archive keeps its symbols and loses only its
# debugging sections (RelWithDebInfo makes them most of its size).
string(CONFIGURE [[
  if(CMAKE_INSTALL_DO_STRIP AND NOT "@CMAKE_STRIP@" STREQUAL "")
    set(_archive "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/@CMAKE_INSTALL_LIBDIR@/libdoberman_runtime.a")
    if(EXISTS "${_archive}")
      execute_process(COMMAND "@CMAKE_STRIP@" --strip-debug "${_archive}" COMMAND_ERROR_IS_FATAL ANY)
    endif()
  endif()
]] strip_archive @ONLY)
install(CODE "${strip_archive}")

# --- CPack: one Debian package, `doberman` -------------------------------------------------------------
set(DOBERMAN_PACKAGE_MAINTAINER
    "Doberman maintainers <maintainers@users.noreply.a-seed-1c140aaf.example>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME doberman)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Doberman")
set(CPACK_PACKAGE_CONTACT "${DOBERMAN_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # doberman_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_NAME doberman)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DOBERMAN_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"policy compiler and runtime that guard AI coding agents
Doberman judges every shell command, file write, tool call and prompt turn of
an AI coding agent (Claude Code, Codex, Cursor, any MCP client) before it runs:
PASS, AUTH (a person must approve) or BLOCK. It fails closed.

This package holds dobermanc (compiles YAML or DSL rule packs into signed
packs), doberman-guard (hooks, the warm service, the MCP proxy, the Squid ACL
helper), doberman-hook (the service's thin client), libdoberman_runtime
(shared and static, headers, pkg-config and CMake files), the Python module
`doberman`, the default pack's sources in /usr/share/doberman (to be built
and signed with the operator's own key), systemd user units and examples.")
# Dependencies from dpkg-shlibdeps (dobermanc, the shared runtime and the Python module are
# dynamically linked; doberman-guard (a static PIE) and doberman-hook (static) need nothing). The Python
# module does not link libpython, so shlibdeps cannot see the interpreter: name the Python it was
# built for (its file name carries that ABI, cpython-3XY).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # a shlibs file for libdoberman_runtime.so.1
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(doberman_depends "")
if(TARGET doberman_python)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  math(EXPR next_minor "${Python3_VERSION_MINOR} + 1")
  set(doberman_depends
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~), python3 (<< ${Python3_VERSION_MAJOR}.${next_minor})")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${doberman_depends}")
# Building hosts against the static runtime or the CMake package needs these; squid for the broker.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libhyperscan-dev, libsodium-dev, libxxhash-dev, liblz4-dev, pkg-config, squid")

# The package installs under /usr, and the install rules' paths (the multiarch library directory,
# Debian's dist-packages for the Python module, the guard's path in the service unit) were decided
# when the build was configured: cpack refuses a build configured for any other prefix.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/packaging/CPackProjectConfig.cmake)
file(CONFIGURE OUTPUT ${CPACK_PROJECT_CONFIG_FILE} CONTENT [[
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT "@CMAKE_INSTALL_PREFIX@" STREQUAL CPACK_PACKAGING_INSTALL_PREFIX)
  message(FATAL_ERROR "The Debian package installs under ${CPACK_PACKAGING_INSTALL_PREFIX}, but this build "
    "was configured with CMAKE_INSTALL_PREFIX=@CMAKE_INSTALL_PREFIX@ (library and Python paths follow it): "
    "configure with -DCMAKE_INSTALL_PREFIX=${CPACK_PACKAGING_INSTALL_PREFIX}, as scripts/package-deb does.")
endif()
]] @ONLY)

# `make package_source` never takes build trees, keys or compiled packs.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/out/" "/\\\\.dev-keys/" "\\\\.dpack$"
    "\\\\.key$" "__pycache__")

include(CPack)
