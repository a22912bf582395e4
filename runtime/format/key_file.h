// Key file formats shared by dobermanc (writes both) and the runtime (reads public keys):
//   doberman public key (ed25519) v1        doberman secret key (ed25519) v1
//   id: <16 hex digits>                      id: <16 hex digits>
//   <base64 of 32 bytes>                     <base64 of 64 bytes>
#ifndef DOBERMAN_RUNTIME_KEY_FILE_H_
#define DOBERMAN_RUNTIME_KEY_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "doberman/doberman.h"

namespace doberman::internal {

inline constexpr std::string_view kPublicKeyHeader = "doberman public key (ed25519) v1";
inline constexpr std::string_view kSecretKeyHeader = "doberman secret key (ed25519) v1";

// Parses a key file's text; `expected_header` picks the kind; `out` receives `size` bytes.
bool ParseKeyText(std::string_view text, std::string_view expected_header, uint8_t* out,
                  size_t size, std::string* error);

// Reads and parses a public key file.
bool ReadPublicKeyFile(const std::string& path, doberman_public_key* key, std::string* error);

// Formats a key file (header, id line, base64 line).
std::string FormatKeyText(std::string_view header, const uint8_t* key, size_t size,
                          const uint8_t public_key[32]);

// Hex of the 8-byte key id of `public_key`.
std::string KeyIdHex(const uint8_t public_key[32]);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_KEY_FILE_H_
