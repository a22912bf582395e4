// Text normalization for prompts and written content: Unicode folding for turn signatures, and the
// one layer of base64/hex/percent decoding that lets encoded payloads be rescanned. Runtime side,
// allocation-free once the output buffers have grown.
#ifndef DOBERMAN_RUNTIME_TEXT_NORMALIZER_H_
#define DOBERMAN_RUNTIME_TEXT_NORMALIZER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pack_model.h"

namespace doberman::internal {

// Folds `in` into `out` (cleared first) for matching turn signatures:
//  - NFKC-style compatibility folding of the forms attackers use: full-width ASCII (U+FF01-FF5E),
//    ideographic space, mathematical alphanumerics (U+1D400-1D7FF), enclosed/circled letters, small
//    capitals and the like map to plain ASCII;
//  - zero-width characters (U+200B-200D, U+2060, U+FEFF, U+180E), bidi controls (U+200E/F,
//  U+202A-202E,
//    U+2066-2069), Unicode tag characters (U+E0000-E007F) and variation selectors are removed;
//  - runs of white space (ASCII and Unicode spaces, newlines) collapse to one ASCII space;
//  - letters are lower-cased (ASCII, Latin-1, Greek and Cyrillic basic ranges);
//  - invalid UTF-8 bytes are kept as they are (never dropped, so they cannot hide a keyword by
//  splitting it).
// Returns the number of input characters removed or mapped; 0 means `out` equals `in` (plain lower
// ASCII, or any text with nothing to fold).
size_t FoldText(std::string_view in, std::string* out);

enum class Encoding : uint8_t { kBase64 = 0, kHex = 1, kPercent = 2 };

// One encoded run found in a text: [begin, end) in the input, and how it is encoded.
struct EncodedRun {
  size_t begin;
  size_t end;
  Encoding encoding;
};

// What counts as a run (maximal base64/hex stretches, percent stretches, which one wins where they
// meet) is spelled out above FindNextEncodedRun in text_normalizer.cc. Calls `on_run(const
// EncodedRun&)` for each encoded run in `text`, left to right, at most limits.max_runs times.
// Returns true when there were more runs than max_runs (the caller fails closed).
template <typename F>
bool ForEachEncodedRun(std::string_view text, const DecodeLimits& limits, F&& on_run);

// Decodes one run into `out` (cleared first). Returns false when the run does not decode (bad
// padding, odd hex length); `out` is then empty. Decoded bytes are not interpreted further (one
// layer only).
bool DecodeRun(std::string_view text, const EncodedRun& run, const DecodeLimits& limits,
               std::string* out);

// "ASCII smuggling": Unicode tag characters U+E0020-E007E mirror printable ASCII and are invisible
// in most interfaces, but models read them. Writes the ASCII they spell (other characters dropped)
// into `out` and returns true when `in` holds at least `min_chars` of them; FoldText removes them,
// so the hidden text is only seen through this view.
bool DecodeTagCharacters(std::string_view in, size_t min_chars, std::string* out);

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

#endif  // DOBERMAN_RUNTIME_TEXT_NORMALIZER_H_
