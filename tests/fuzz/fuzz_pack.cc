// Fuzz target for pack loading: the input as a whole envelope (bounds, magic, version, key lookup,
// signature check must refuse it without crashing), then as a bare payload through the FlatBuffers
// verifier and the table decoder (FUZZING_ONLY_DecodePayload), and as an envelope past the
// signature (FUZZING_ONLY_LoadUnsigned: blob bounds and digests), which the signature otherwise
// shields.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace doberman::internal;
  static const doberman_public_key kKey = [] {
    doberman_public_key k{};
    for (int i = 0; i < 32; ++i) k.bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    return k;
  }();
  std::vector<uint8_t> bytes(data, data + size);
  LoadOptions options;
  options.trusted = {&kKey, 1};
  std::unique_ptr<Pack> pack;
  std::string error;
  doberman_status s = LoadPack(bytes, options, &pack, &error);
  // No input can be signed by this key: loading must always be refused.
  if (s == DOBERMAN_OK || pack != nullptr) __builtin_trap();
  // Payload decoding on an aligned copy, as the loader sees it after the header.
  std::vector<uint64_t> aligned((size + 7) / 8 + 1);
  if (size > 0) std::memcpy(aligned.data(), data, size);
  FUZZING_ONLY_DecodePayload({reinterpret_cast<const uint8_t*>(aligned.data()), size}, &error);
  // The whole envelope past the signature: blob offsets, sizes and digests.
  FUZZING_ONLY_LoadUnsigned({reinterpret_cast<const uint8_t*>(aligned.data()), size}, &error);
  return 0;
}
