// Encoded runs: finding the base64, hex and percent-encoded stretches of a text and decoding one
// layer of each, so that encoded payloads can be rescanned. Runtime side, allocation-free once the
// output has grown.
#ifndef DOBERMAN_RUNTIME_ENCODED_RUNS_H_
#define DOBERMAN_RUNTIME_ENCODED_RUNS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pack_model.h"

namespace doberman::internal {

enum class Encoding : uint8_t { kBase64 = 0, kHex = 1, kPercent = 2 };

// One encoded run found in a text: [begin, end) in the input, and how it is encoded.
struct EncodedRun {
  size_t begin;
  size_t end;
  Encoding encoding;
};

// What counts as a run (maximal base64/hex stretches, percent stretches, which one wins where they
// meet) is spelled out above FindNextEncodedRun in encoded_runs.cc. Calls `on_run(const
// EncodedRun&)` for each encoded run in `text`, left to right, at most limits.max_runs times.
// Returns true when there were more runs than max_runs (the caller fails closed).
template <typename F>
bool ForEachEncodedRun(std::string_view text, const DecodeLimits& limits, F&& on_run);

// Decodes one run into `out` (cleared first). Returns false when the run does not decode (bad
// padding, odd hex length); `out` is then empty. Decoded bytes are not interpreted further (one
// layer only).
bool DecodeRun(std::string_view text, const EncodedRun& run, const DecodeLimits& limits,
               std::string* out);

// Implementation detail of ForEachEncodedRun, non-template so it lives in the .cc file.
// Finds the first run starting at or after `from`; returns false when there is none.
// `next_percent` (optional) caches the position of the next '%' between calls over the same text
// with growing `from`: start it at 0. With it, runs are found by skipping ahead (same results);
// without it, byte by byte.
bool FindNextEncodedRun(std::string_view text, size_t from, const DecodeLimits& limits,
                        EncodedRun* run, size_t* next_percent = nullptr);

template <typename F>
bool ForEachEncodedRun(std::string_view text, const DecodeLimits& limits, F&& on_run) {
  size_t from = 0;
  size_t found = 0;
  size_t next_percent = 0;
  EncodedRun run{};
  while (FindNextEncodedRun(text, from, limits, &run, &next_percent)) {
    if (found == limits.max_runs) return true;
    ++found;
    on_run(run);
    from = run.end;
  }
  return false;
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_ENCODED_RUNS_H_
