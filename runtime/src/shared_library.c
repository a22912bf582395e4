/* libdoberman_runtime.so's own translation unit: the library is the runtime core's objects whole
 * (see runtime/CMakeLists.txt); this file only pins, at build time, that the soname CMake gives the
 * library is the ABI version doberman.h declares. */
#include "doberman/doberman.h"

#if DOBERMAN_ABI_VERSION != DOBERMAN_EXPECTED_ABI_VERSION
#error "runtime/CMakeLists.txt's DOBERMAN_ABI_VERSION (the soname) differs from doberman.h's"
#endif
typedef int doberman_shared_library_unit; /* ISO C wants one declaration */
