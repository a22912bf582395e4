// Fuzz target for the DSL front-end: parse, diagnostics, checker, both printers with a read-back
// oracle (fuzz_oracle.h). Seeds: tests/fuzz/corpus/fuzz_dsl/.
#include "fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  doberman::compiler::fuzz::RunOne(data, size, /*dsl=*/true);
  return 0;
}
