// Envelope encoding and authenticated opening. Nothing in the payload is looked at before the
// signature verifies; the header's own fields are decoded only after that too, except the bounds
// needed to find the signature.
#include "envelope.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>

namespace doberman::internal {
namespace {

void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::string GetFixedString(const uint8_t* p, size_t n) {
  size_t len = 0;
  while (len < n && p[len] != 0) ++len;
  return std::string(reinterpret_cast<const char*>(p), len);
}

// Header layout (offsets in bytes).
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 8;
constexpr size_t kOffHeaderSize = 12;
constexpr size_t kOffRevision = 16;
constexpr size_t kOffCreated = 24;
constexpr size_t kOffExpires = 32;
constexpr size_t kOffKeyId = 40;
constexpr size_t kOffHsVersion = 48;
constexpr size_t kOffPlatform = kOffHsVersion + kHsVersionField;   // 96
constexpr size_t kOffPayloadSize = kOffPlatform + kPlatformField;  // 112
constexpr size_t kOffBlobsSize = kOffPayloadSize + 8;              // 120
static_assert(kOffBlobsSize + 8 <= kHeaderSize);

// Shared by the verified and unverified paths: bounds, magic, version, payload and blob sizes.
doberman_status CheckFrame(std::span<const uint8_t> bytes, uint64_t* payload_size,
                           uint64_t* blobs_size, std::string* error) {
  if (bytes.size() < kHeaderSize + kSignatureSize) {
    *error = "pack is " + std::to_string(bytes.size()) + " bytes, smaller than any envelope";
    return DOBERMAN_E_TRUNCATED;
  }
  if (std::memcmp(bytes.data() + kOffMagic, kPackMagic.data(), kPackMagic.size()) != 0) {
    *error = "not a Doberman pack (bad magic)";
    return DOBERMAN_E_MAGIC;
  }
  uint32_t version = GetU32(bytes.data() + kOffVersion);
  if (version < kOldestEnvelopeVersion || version > kEnvelopeVersion ||
      GetU32(bytes.data() + kOffHeaderSize) != kHeaderSize) {
    *error = "envelope version " + std::to_string(version) +
             " is not supported (this runtime reads " + std::to_string(kOldestEnvelopeVersion) +
             " to " + std::to_string(kEnvelopeVersion) + "; rebuild the pack with this dobermanc)";
    return DOBERMAN_E_ENVELOPE_VERSION;
  }
  const uint64_t size = GetU64(bytes.data() + kOffPayloadSize);
  const uint64_t blobs = GetU64(bytes.data() + kOffBlobsSize);
  const uint64_t held = bytes.size() - kHeaderSize - kSignatureSize;
  if (size > kMaxPayloadSize || blobs > kMaxPayloadSize || size + blobs != held) {
    *error = "envelope says the payload and databases are " + std::to_string(size) + " + " +
             std::to_string(blobs) + " bytes but the file holds " + std::to_string(held);
    return DOBERMAN_E_TRUNCATED;
  }
  *payload_size = size;
  *blobs_size = blobs;
  return DOBERMAN_OK;
}

EnvelopeParts Parts(std::span<const uint8_t> bytes, uint64_t payload_size, uint64_t blobs_size) {
  return {bytes.subspan(kHeaderSize, payload_size),
          bytes.subspan(kHeaderSize + payload_size + kSignatureSize, blobs_size)};
}

void DecodeHeader(std::span<const uint8_t> bytes, EnvelopeHeader* h) {
  const uint8_t* p = bytes.data();
  h->revision = GetU64(p + kOffRevision);
  h->created_unix = static_cast<int64_t>(GetU64(p + kOffCreated));
  h->expires_unix = static_cast<int64_t>(GetU64(p + kOffExpires));
  std::memcpy(h->key_id.data(), p + kOffKeyId, kKeyIdSize);
  h->hs_version = GetFixedString(p + kOffHsVersion, kHsVersionField);
  h->platform = GetFixedString(p + kOffPlatform, kPlatformField);
  h->payload_size = GetU64(p + kOffPayloadSize);
  h->blobs_size = GetU64(p + kOffBlobsSize);
}

}  // namespace

KeyId ComputeKeyId(const uint8_t public_key[32]) {
  uint8_t digest[32];
  crypto_generichash(digest, sizeof digest, public_key, 32, nullptr, 0);
  KeyId id{};
  std::memcpy(id.data(), digest, kKeyIdSize);
  return id;
}

bool EncodeHeader(const EnvelopeHeader& h, std::array<uint8_t, kHeaderSize>* out) {
  if (h.hs_version.size() >= kHsVersionField || h.platform.size() >= kPlatformField) return false;
  out->fill(0);
  uint8_t* p = out->data();
  std::memcpy(p + kOffMagic, kPackMagic.data(), kPackMagic.size());
  PutU32(p + kOffVersion, kEnvelopeVersion);
  PutU32(p + kOffHeaderSize, kHeaderSize);
  PutU64(p + kOffRevision, h.revision);
  PutU64(p + kOffCreated, static_cast<uint64_t>(h.created_unix));
  PutU64(p + kOffExpires, static_cast<uint64_t>(h.expires_unix));
  std::memcpy(p + kOffKeyId, h.key_id.data(), kKeyIdSize);
  std::memcpy(p + kOffHsVersion, h.hs_version.data(), h.hs_version.size());
  std::memcpy(p + kOffPlatform, h.platform.data(), h.platform.size());
  PutU64(p + kOffPayloadSize, h.payload_size);
  PutU64(p + kOffBlobsSize, h.blobs_size);
  return true;
}

doberman_status OpenEnvelope(std::span<const uint8_t> bytes,
                             std::span<const doberman_public_key> trusted, EnvelopeHeader* header,
                             EnvelopeParts* parts, std::string* error) {
  uint64_t payload_size = 0, blobs_size = 0;
  if (doberman_status s = CheckFrame(bytes, &payload_size, &blobs_size, error); s != DOBERMAN_OK) {
    return s;
  }
  if (sodium_init() < 0) {
    *error = "libsodium failed to initialise";
    return DOBERMAN_E_INTERNAL;
  }
  const uint8_t* key_id = bytes.data() + kOffKeyId;
  const doberman_public_key* signer = nullptr;
  for (const doberman_public_key& key : trusted) {
    KeyId id = ComputeKeyId(key.bytes);
    if (std::memcmp(id.data(), key_id, kKeyIdSize) == 0) {
      signer = &key;
      break;
    }
  }
  if (signer == nullptr) {
    *error = "pack is signed by a key that is not trusted here";
    return DOBERMAN_E_UNKNOWN_KEY;
  }
  const size_t signed_size = kHeaderSize + payload_size;
  const auto message =
      SignedMessage(bytes.first(kHeaderSize), bytes.subspan(kHeaderSize, payload_size));
  if (crypto_sign_verify_detached(bytes.data() + signed_size, message.data(), message.size(),
                                  signer->bytes) != 0) {
    *error = "signature does not verify: the pack was modified or signed by another key";
    return DOBERMAN_E_SIGNATURE;
  }
  DecodeHeader(bytes, header);
  *parts = Parts(bytes, payload_size, blobs_size);
  return DOBERMAN_OK;
}

doberman_status UNVERIFIED_PeekHeader(std::span<const uint8_t> bytes, EnvelopeHeader* header,
                                      EnvelopeParts* parts, std::string* error) {
  uint64_t payload_size = 0, blobs_size = 0;
  if (doberman_status s = CheckFrame(bytes, &payload_size, &blobs_size, error); s != DOBERMAN_OK) {
    return s;
  }
  DecodeHeader(bytes, header);
  *parts = Parts(bytes, payload_size, blobs_size);
  return DOBERMAN_OK;
}

std::array<uint8_t, kHeaderSize + 64> SignedMessage(std::span<const uint8_t> header,
                                                    std::span<const uint8_t> payload) {
  std::array<uint8_t, kHeaderSize + 64> message{};
  std::memcpy(message.data(), header.data(), std::min(header.size(), kHeaderSize));
  crypto_generichash(message.data() + kHeaderSize, 64, payload.data(), payload.size(), nullptr, 0);
  return message;
}

bool BlobMatchesDigest(std::span<const uint8_t> blob, std::span<const uint8_t> digest) {
  if (digest.size() != kBlobDigestSize || sodium_init() < 0) return false;
  uint8_t actual[kBlobDigestSize];
  crypto_generichash(actual, sizeof actual, blob.data(), blob.size(), nullptr, 0);
  return sodium_memcmp(actual, digest.data(), kBlobDigestSize) == 0;
}

}  // namespace doberman::internal
