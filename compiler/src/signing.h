// Keys and sealing on the compiler side: key generation (secret key file 0600), loading a secret
// key (refused when group or others can read it), and sealing a payload into a signed envelope.
#ifndef DOBERMAN_COMPILER_SIGNING_H_
#define DOBERMAN_COMPILER_SIGNING_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "envelope.h"

namespace doberman::compiler {

struct SigningKey {
  std::array<uint8_t, 64> secret{};  // libsodium Ed25519 secret key (seed || public key)
  std::array<uint8_t, 32> public_key{};
  ~SigningKey();
};

// Writes BASE.key (0600, refuses to overwrite unless `force`) and BASE.pub. Returns false with a
// message on failure.
bool GenerateKeyPair(const std::string& base, bool force, std::string* key_id, std::string* error);

// A fresh key pair in memory (for `dobermanc test`, which never writes a pack).
void EphemeralKey(SigningKey* key);

// Loads a secret key file. Refuses files readable by group or others.
bool LoadSigningKey(const std::string& path, SigningKey* key, std::string* error);

// header.key_id, payload_size and blobs_size are filled in here. The signature covers header and
// payload; the payload names each blob's digest.
std::vector<uint8_t> SealPack(internal::EnvelopeHeader header, std::span<const uint8_t> payload,
                              std::span<const uint8_t> blobs, const SigningKey& key);

// Writes `bytes` to `path` through a temporary file and rename, so that no partial file is ever
// seen.
bool WriteFileAtomic(const std::string& path, std::span<const uint8_t> bytes, unsigned mode,
                     std::string* error);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_SIGNING_H_
