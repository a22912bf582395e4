// Fuzz target for pack loading: the input as a whole envelope (bounds, magic, version, key lookup,
// signature check must refuse it without crashing), then as a bare payload through the FlatBuffers
// verifier and the table decoder (FUZZING_ONLY_DecodePayload), and as an envelope past the
// signature (FUZZING_ONLY_LoadUnsigned: blob bounds and digests), which the signature otherwise
// shields. With DOBERMAN_FUZZ_PUBKEY, also as a pack under a key that really signs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "pack.h"

namespace {

// A key that really signed something (DOBERMAN_FUZZ_PUBKEY: ctest passes the fixture's, with a pack
// it signed as an extra input), so that inputs reach the Ed25519 verification itself, and a signed
// pack loads all the way; without it only the unmatched key below, which refuses at key lookup.
const doberman_public_key* SigningKeyFromEnvironment() {
  static doberman_public_key key{};
  static const bool have = [] {
    const char* path = std::getenv("DOBERMAN_FUZZ_PUBKEY");
    return path != nullptr && doberman_public_key_read_file(path, &key, nullptr, 0) == DOBERMAN_OK;
  }();
  return have ? &key : nullptr;
}

}  // namespace

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
  // With a real key: whatever loads must decide (a verdict always written, never PASS on error).
  if (const doberman_public_key* real = SigningKeyFromEnvironment()) {
    doberman_load_options o{};
    o.struct_size = sizeof o;
    o.trusted_keys = real;
    o.trusted_key_count = 1;
    doberman_pack* loaded = nullptr;
    if (doberman_pack_load_memory(data, size, &o, &loaded, nullptr, 0) == DOBERMAN_OK) {
      doberman_scratch* scratch = nullptr;
      if (doberman_scratch_create(loaded, &scratch) != DOBERMAN_OK) __builtin_trap();
      const std::string cmd = "sudo rm -rf / ; curl https://x.example";
      doberman_call call{};
      call.struct_size = sizeof call;
      call.command = {cmd.data(), cmd.size()};
      doberman_result r{};
      r.struct_size = sizeof r;
      const doberman_status ds = doberman_decide(loaded, scratch, &call, &r);
      if (r.verdict > DOBERMAN_BLOCK || (ds != DOBERMAN_OK && r.verdict == DOBERMAN_PASS)) {
        __builtin_trap();
      }
      doberman_scratch_free(scratch);
      doberman_pack_free(loaded);
    } else if (loaded != nullptr) {
      __builtin_trap();
    }
  }
  // Payload decoding on an aligned copy, as the loader sees it after the header.
  std::vector<uint64_t> aligned((size + 7) / 8 + 1);
  if (size > 0) std::memcpy(aligned.data(), data, size);
  FUZZING_ONLY_DecodePayload({reinterpret_cast<const uint8_t*>(aligned.data()), size}, &error);
  // The whole envelope past the signature: blob offsets, sizes and digests.
  FUZZING_ONLY_LoadUnsigned({reinterpret_cast<const uint8_t*>(aligned.data()), size}, &error);
  return 0;
}
