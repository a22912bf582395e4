// IR + compiled databases -> the FlatBuffers payload (schema owned by runtime/schema/pack.fbs).
#ifndef DOBERMAN_COMPILER_PAYLOAD_WRITER_H_
#define DOBERMAN_COMPILER_PAYLOAD_WRITER_H_

#include <cstdint>
#include <vector>

#include "hs_builder.h"
#include "ir.h"

namespace doberman::compiler {

// Deterministic: the same IR and databases give the same bytes.
std::vector<uint8_t> WritePayload(const IrPack& pack, const std::vector<CompiledDatabase>& databases,
                                  const std::string& hs_version);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_PAYLOAD_WRITER_H_
