// The signed envelope around a pack payload: a fixed 128-byte little-endian header, the FlatBuffers
// payload, then a 64-byte Ed25519 signature over every byte before it. The runtime opens envelopes; the
// compiler writes the header with EncodeHeader and signs it (compiler/src/signing.cc).
#ifndef DOBERMAN_RUNTIME_ENVELOPE_H_
#define DOBERMAN_RUNTIME_ENVELOPE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "doberman/doberman.h"

namespace doberman::internal {

inline constexpr std::string_view kPackMagic = "DOBRPACK";
inline constexpr uint32_t kEnvelopeVersion = 1;
inline constexpr size_t kHeaderSize = 128;
inline constexpr size_t kSignatureSize = 64;
inline constexpr size_t kKeyIdSize = 8;
inline constexpr size_t kHsVersionField = 48;
inline constexpr size_t kPlatformField = 16;
// A pack larger than this is refused before its signature is checked (verification reads every byte).
inline constexpr uint64_t kMaxPayloadSize = 256ull << 20;

using KeyId = std::array<uint8_t, kKeyIdSize>;

struct EnvelopeHeader {
  uint64_t revision = 0;
  int64_t created_unix = 0;
  int64_t expires_unix = 0;  // 0: never
  KeyId key_id{};
  std::string hs_version;    // hs_version() of the compiler that built the databases
  std::string platform;      // "generic" or the best variant inside
  uint64_t payload_size = 0;
};

// The key id is the first 8 bytes of BLAKE2b-256 over the public key: enough to pick among pinned keys.
KeyId ComputeKeyId(const uint8_t public_key[32]);

// Serializes a header into exactly kHeaderSize bytes. Returns false when a string field does not fit.
bool EncodeHeader(const EnvelopeHeader& header, std::array<uint8_t, kHeaderSize>* out);

// Checks bounds, magic and version, finds the signer among `trusted`, verifies the signature over
// every byte but itself, and only then decodes the header. `payload` points into `bytes`.
doberman_status OpenEnvelope(std::span<const uint8_t> bytes,
                             std::span<const doberman_public_key> trusted, EnvelopeHeader* header,
                             std::span<const uint8_t>* payload, std::string* error);

// Reads the header without verifying anything. For `dobermanc inspect` on a pack whose key is not at
// hand; never for loading. The name says so.
doberman_status UNVERIFIED_PeekHeader(std::span<const uint8_t> bytes, EnvelopeHeader* header,
                                      std::span<const uint8_t>* payload, std::string* error);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_ENVELOPE_H_
