// `dobermanc inspect` and `verify`: a pack's header and rule table as text or JSON.
#ifndef DOBERMAN_COMPILER_INSPECT_H_
#define DOBERMAN_COMPILER_INSPECT_H_

#include <cstdint>
#include <span>
#include <string>

namespace doberman::compiler {

// Renders the pack. The signature is NOT checked here (use verify); `verified` is only printed.
// Returns false with `error` set when the bytes are not a readable pack.
bool RenderPack(std::span<const uint8_t> bytes, bool json, bool verified, std::string* out,
                std::string* error);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_INSPECT_H_
