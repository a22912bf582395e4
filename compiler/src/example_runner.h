// Runs every rule's inline examples through the real runtime, on the signed pack bytes just built:
// a `match:` example must make its rule fire, a `pass:` example must not.
#ifndef DOBERMAN_COMPILER_EXAMPLE_RUNNER_H_
#define DOBERMAN_COMPILER_EXAMPLE_RUNNER_H_

#include <cstdint>
#include <span>

#include "diagnostics.h"
#include "ir.h"

namespace doberman::compiler {

struct ExampleStats {
  size_t run = 0;
  size_t failed = 0;
};

// Reports E5001/E5002 per failing example, E5003 when the pack does not load.
ExampleStats RunExamples(const IrPack& pack, std::span<const uint8_t> signed_pack,
                         const uint8_t public_key[32], Diagnostics& diags);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_EXAMPLE_RUNNER_H_
