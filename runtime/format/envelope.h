// The signed envelope around a pack: a fixed 128-byte little-endian header, the FlatBuffers payload
// (rule tables), a 64-byte Ed25519 signature over header and payload, then the blob area holding
// the Hyperscan databases. Blobs are not under the signature directly: the signed payload carries
// each one's offset, size and BLAKE2b-256 digest, checked before the blob is used. So the signature
// check reads only the tables, and a process hashes only the databases it loads
// (docs/pack-format.md). The runtime opens envelopes; the compiler writes the header with
// EncodeHeader and signs it (compiler/src/signing.cc).
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
// Written: 3 (databases may be stored as LZ4 blocks, which a version-2 runtime would hand to
// Hyperscan and fail on with an unhelpful error). Read: 2 and 3; version 2 never sets an encoding.
inline constexpr uint32_t kEnvelopeVersion = 3;
inline constexpr uint32_t kOldestEnvelopeVersion = 2;
inline constexpr size_t kHeaderSize = 128;
inline constexpr size_t kSignatureSize = 64;
inline constexpr size_t kKeyIdSize = 8;
inline constexpr size_t kHsVersionField = 48;
inline constexpr size_t kPlatformField = 16;
inline constexpr size_t kBlobDigestSize = 32;  // BLAKE2b-256
// A pack whose payload or blob area is larger than this is refused before its signature is checked.
inline constexpr uint64_t kMaxPayloadSize = 256ull << 20;

using KeyId = std::array<uint8_t, kKeyIdSize>;

struct EnvelopeHeader {
  uint64_t revision = 0;
  int64_t created_unix = 0;
  int64_t expires_unix = 0;  // 0: never
  KeyId key_id{};
  std::string hs_version;  // hs_version() of the compiler that built the databases
  std::string platform;    // "generic" or the best variant inside
  uint64_t payload_size = 0;
  uint64_t blobs_size = 0;
};

// The key id is the first 8 bytes of BLAKE2b-256 over the public key: enough to pick among pinned
// keys.
KeyId ComputeKeyId(const uint8_t public_key[32]);

// Serializes a header into exactly kHeaderSize bytes. Returns false when a string field does not
// fit.
bool EncodeHeader(const EnvelopeHeader& header, std::array<uint8_t, kHeaderSize>* out);

// The parts of an envelope, pointing into its bytes.
struct EnvelopeParts {
  std::span<const uint8_t> payload;  // signed
  std::span<const uint8_t> blobs;    // each blob checked against its signed digest before use
};

// Checks bounds, magic and version, finds the signer among `trusted`, verifies the signature over
// the header and payload, and only then decodes the header.
doberman_status OpenEnvelope(std::span<const uint8_t> bytes,
                             std::span<const doberman_public_key> trusted, EnvelopeHeader* header,
                             EnvelopeParts* parts, std::string* error);

// Reads the header without verifying anything. For `dobermanc inspect` on a pack whose key is not
// at hand; never for loading. The name says so.
doberman_status UNVERIFIED_PeekHeader(std::span<const uint8_t> bytes, EnvelopeHeader* header,
                                      EnvelopeParts* parts, std::string* error);

// What the Ed25519 signature covers: the 128-byte header followed by BLAKE2b-512 of the payload
// (hashing the tables with BLAKE2b instead of inside Ed25519's SHA-512 halves the check's cost).
std::array<uint8_t, kHeaderSize + 64> SignedMessage(std::span<const uint8_t> header,
                                                    std::span<const uint8_t> payload);

// True when `blob` hashes to `digest` (BLAKE2b-256).
bool BlobMatchesDigest(std::span<const uint8_t> blob, std::span<const uint8_t> digest);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_ENVELOPE_H_
