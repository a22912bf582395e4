// Key file parsing and formatting via libsodium's constant-time base64.
#include "key_file.h"

#include <sodium.h>

#include "envelope.h"
#include "regular_file.h"

namespace doberman::internal {

std::string KeyIdHex(const uint8_t public_key[32]) {
  KeyId id = ComputeKeyId(public_key);
  char hex[2 * kKeyIdSize + 1];
  sodium_bin2hex(hex, sizeof hex, id.data(), id.size());
  return hex;
}

std::string FormatKeyText(std::string_view header, const uint8_t* key, size_t size,
                          const uint8_t public_key[32]) {
  std::string b64(sodium_base64_encoded_len(size, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(b64.data(), b64.size(), key, size, sodium_base64_VARIANT_ORIGINAL);
  b64.resize(b64.find('\0'));
  std::string out(header);
  out += "\nid: " + KeyIdHex(public_key) + "\n" + b64 + "\n";
  sodium_memzero(b64.data(), b64.size());
  return out;
}

bool ParseKeyText(std::string_view text, std::string_view expected_header, uint8_t* out,
                  size_t size, std::string* error) {
  if (sodium_init() < 0) {
    *error = "libsodium failed to initialise";
    return false;
  }
  std::string_view rest = text;
  auto next_line = [&rest]() {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  if (next_line() != expected_header) {
    *error = "not a " + std::string(expected_header) + " file";
    return false;
  }
  std::string_view id_line = next_line();
  if (id_line.rfind("id: ", 0) != 0) {
    *error = "key file has no id line";
    return false;
  }
  std::string_view b64 = next_line();
  size_t decoded = 0;
  if (sodium_base642bin(out, size, b64.data(), b64.size(), nullptr, &decoded, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      decoded != size) {
    *error = "key file does not hold a " + std::to_string(size) + "-byte key";
    return false;
  }
  return true;
}

bool ReadPublicKeyFile(const std::string& path, doberman_public_key* key, std::string* error) {
  // A key file is three short lines; anything larger is not one. Never waits on a FIFO.
  std::string text;
  if (!ReadRegularFile(path, 4096, "public key", &text, error)) return false;
  if (!ParseKeyText(text, kPublicKeyHeader, key->bytes, sizeof key->bytes, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace doberman::internal
