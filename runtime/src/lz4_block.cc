// DecodeLz4Block: one sequence at a time (token, literals, offset, match), every length checked
// against both the input left and the output left before any byte moves.
#include "lz4_block.h"

#include <algorithm>
#include <cstring>

namespace doberman::internal {
namespace {

constexpr size_t kMinMatch = 4;
// Copies in fixed 16-byte steps may run up to 15 bytes past their end: only where both the input
// and the output have that much left, so the overshoot lands on bytes later sequences overwrite.
constexpr size_t kWild = 16;

void WildCopy(uint8_t* to, const uint8_t* from, size_t n) {
  for (size_t i = 0; i < n; i += kWild) std::memcpy(to + i, from + i, kWild);
}

// A length nibble of 15 continues in the following bytes, each added, until one is not 255.
bool ReadLength(const uint8_t** ip, const uint8_t* end, size_t limit, size_t* length) {
  uint8_t b = 0;
  do {
    if (*ip == end) return false;
    b = *(*ip)++;
    *length += b;
    if (*length > limit) return false;  // also keeps the sum far from overflowing
  } while (b == 255);
  return true;
}

// out[i] = out[i - offset] for `length` bytes, which may overlap what it copies (a run of one
// repeated byte is offset 1). Once `done` bytes are written the `offset`-periodic stretch before
// the cursor is offset + done long, so each memcpy may take that many bytes without overlapping its
// source: log(length / offset) calls rather than one per byte.
void CopyMatch(uint8_t* op, size_t offset, size_t length) {
  const uint8_t* from = op - offset;
  size_t done = 0;
  while (done < length) {
    const size_t n = std::min(length - done, done + offset);
    std::memcpy(op + done, from, n);
    done += n;
  }
}

}  // namespace

bool DecodeLz4Block(std::span<const uint8_t> in, std::span<uint8_t> out) {
  const uint8_t* ip = in.data();
  const uint8_t* const in_end = ip + in.size();
  uint8_t* op = out.data();
  uint8_t* const out_begin = op;
  uint8_t* const out_end = op + out.size();
  for (;;) {
    if (ip == in_end) return false;  // every block ends with a sequence of literals only
    const uint8_t token = *ip++;
    size_t literals = token >> 4;
    const auto out_left = static_cast<size_t>(out_end - op);
    if (literals == 15 && !ReadLength(&ip, in_end, out_left, &literals)) return false;
    if (literals > out_left || literals > static_cast<size_t>(in_end - ip)) return false;
    if (out_left - literals >= kWild && static_cast<size_t>(in_end - ip) - literals >= kWild) {
      WildCopy(op, ip, literals);  // there is room to overshoot, and it is cheaper than memcpy(n)
    } else if (literals != 0) {
      std::memcpy(op, ip, literals);  // (op may be null when the output is empty)
    }
    op += literals;
    ip += literals;
    if (ip == in_end) return op == out_end;
    if (in_end - ip < 2) return false;
    const size_t offset = ip[0] | (static_cast<size_t>(ip[1]) << 8);
    ip += 2;
    if (offset == 0 || offset > static_cast<size_t>(op - out_begin)) return false;
    size_t match = token & 15;
    const auto room = static_cast<size_t>(out_end - op);
    if (match == 15 && !ReadLength(&ip, in_end, room, &match)) return false;
    match += kMinMatch;
    if (match > room) return false;
    if (match <= 2 * kWild && offset >= kWild && room - match >= kWild) {
      // Short: one or two fixed copies, each reading bytes written at least 16 earlier. (Long
      // matches in steps of 16 would read what the previous step just stored, and stall on it.)
      WildCopy(op, op - offset, match);
    } else {
      CopyMatch(op, offset, match);
    }
    op += match;
  }
}

uint64_t MaxLz4DecodedSize(uint64_t in_size) {
  // Best case: a 1-byte token, 2-byte offset and then 255 per extra length byte, so just under
  // 255 bytes of output per byte of input; rounded up generously.
  return in_size * 256 + 64;
}

}  // namespace doberman::internal
