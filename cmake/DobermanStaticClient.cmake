# Static linking of the small C programs a host spawns on every tool call (doberman-hook, and the
# empty program the bench measures it against). With Debian's musl (musl-tools) the program is a
# 60 KB static executable that starts in about half the time of a glibc static PIE, whose start-up
# (self-relocation, IRELATIVE and tunables) costs more than the whole client does (bench/run,
# docs/performance.md). Without musl, or in sanitizer and fuzzer builds, glibc static PIE.
option(DOBERMAN_CLIENT_MUSL "Link doberman-hook with musl when musl-gcc's specs are installed" ON)

if(CMAKE_LIBRARY_ARCHITECTURE)
  string(REPLACE "-linux-gnu" "-linux-musl" _doberman_musl_triple "${CMAKE_LIBRARY_ARCHITECTURE}")
  find_file(DOBERMAN_MUSL_SPECS musl-gcc.specs PATHS "/usr/lib/${_doberman_musl_triple}" NO_DEFAULT_PATH)
endif()

# doberman_static_client(TARGET [GLIBC]): links TARGET statically, with musl when available;
# GLIBC asks for the glibc static PIE whatever is installed.
function(doberman_static_client target)
  if(DOBERMAN_SANITIZE OR DOBERMAN_LIBFUZZER)
    return()  # sanitizer runtimes need the dynamic glibc
  endif()
  if(NOT "GLIBC" IN_LIST ARGN AND DOBERMAN_CLIENT_MUSL AND DOBERMAN_MUSL_SPECS
     AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
    # The specs file swaps glibc's headers, start files and libc for musl's.
    target_compile_options(${target} PRIVATE -specs=${DOBERMAN_MUSL_SPECS})
    target_link_options(${target} PRIVATE -specs=${DOBERMAN_MUSL_SPECS} -static -s)
  else()
    target_compile_options(${target} PRIVATE -fPIE)
    target_link_options(${target} PRIVATE -static-pie)
  endif()
endfunction()
