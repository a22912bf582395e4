// The state directory's 8-byte integers (the log chain's digest input, its meta row, ledger.gen)
// are little-endian, whatever the machine (and the log journal's record lengths).
#ifndef DOBERMAN_STATE_LITTLE_ENDIAN_H_
#define DOBERMAN_STATE_LITTLE_ENDIAN_H_

#include <cstdint>

namespace doberman::state {

inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

inline void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_LITTLE_ENDIAN_H_
