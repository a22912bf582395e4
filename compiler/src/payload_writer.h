// IR + compiled databases -> the FlatBuffers payload (schema owned by runtime/schema/pack.fbs).
#ifndef DOBERMAN_COMPILER_PAYLOAD_WRITER_H_
#define DOBERMAN_COMPILER_PAYLOAD_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hs_builder.h"
#include "ir.h"

namespace doberman::compiler {

// Deterministic: the same IR and databases give the same bytes. The databases go to `blobs` (the
// envelope's blob area), each named in the payload by offset, size and BLAKE2b-256 digest, and
// stored as an LZ4 block when `compress` and that is smaller.
std::vector<uint8_t> WritePayload(const IrPack& pack,
                                  const std::vector<CompiledDatabase>& databases,
                                  const std::string& hs_version, std::vector<uint8_t>* blobs,
                                  bool compress = true);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_PAYLOAD_WRITER_H_
