// Fixed-width fields of the image cache's files (image headers, scratch records): Hyperscan's
// version string in a zero-padded field, and integers in the machine's byte order (the files never
// leave the machine that wrote them: a cache of this process's own deserialized databases).
#ifndef DOBERMAN_RUNTIME_CACHE_FILE_FIELDS_H_
#define DOBERMAN_RUNTIME_CACHE_FILE_FIELDS_H_

#include <hs/hs_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace doberman::internal {

constexpr size_t kHsVersionFieldBytes = 64;

// Hyperscan's version string, truncated and zero-padded to kHsVersionFieldBytes.
inline void HsVersionField(uint8_t out[kHsVersionFieldBytes]) {
  std::memset(out, 0, kHsVersionFieldBytes);
  std::strncpy(reinterpret_cast<char*>(out), hs_version(), kHsVersionFieldBytes - 1);
}

template <typename T>
T LoadField(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void StoreField(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_CACHE_FILE_FIELDS_H_
