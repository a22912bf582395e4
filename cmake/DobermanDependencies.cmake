# Finds every Debian-packaged dependency once, as imported targets (see ../shared/docs/toolchain.md).
find_package(PkgConfig REQUIRED)

# Runtime side: Hyperscan's runtime-only library, libsodium, xxHash, FlatBuffers headers.
pkg_check_modules(HS REQUIRED IMPORTED_TARGET libhs)
find_library(HS_RUNTIME_LIBRARY NAMES hs_runtime REQUIRED)
add_library(doberman_hs_runtime INTERFACE)
target_include_directories(doberman_hs_runtime SYSTEM INTERFACE ${HS_INCLUDE_DIRS})
target_link_libraries(doberman_hs_runtime INTERFACE ${HS_RUNTIME_LIBRARY})
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(FlatBuffers CONFIG REQUIRED)
find_program(FLATC_EXECUTABLE flatc REQUIRED)

if(DOBERMAN_BUILD_COMPILER)
  find_package(yaml-cpp CONFIG REQUIRED)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(antlr4-runtime CONFIG REQUIRED)
  find_program(ANTLR4_TOOL antlr4 REQUIRED)
endif()
if(DOBERMAN_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
