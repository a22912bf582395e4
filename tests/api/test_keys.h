// Test helper: reads a public key file (header, id line, base64 line) with only the public headers,
// the way a host that does not link the tools' key code would.
#ifndef DOBERMAN_TESTS_API_TEST_KEYS_H_
#define DOBERMAN_TESTS_API_TEST_KEYS_H_

#include <cstdint>
#include <fstream>
#include <string>

#include "doberman/doberman.h"

inline doberman_public_key ReadTestKey(const std::string& path, size_t* decoded = nullptr) {
  std::ifstream in(path);
  std::string header, id, b64;
  std::getline(in, header);
  std::getline(in, id);
  std::getline(in, b64);
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  doberman_public_key key{};
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (char c : b64) {
    size_t v = kAlphabet.find(c);
    if (v == std::string::npos) break;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8 && n < 32) {
      bits -= 8;
      key.bytes[n++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  if (decoded != nullptr) *decoded = n;
  return key;
}

#endif  // DOBERMAN_TESTS_API_TEST_KEYS_H_
