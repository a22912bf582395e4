// Fuzz target for the text normalizers (unicode_fold, encoded_runs, data_strings, confusables):
// runs FoldText, ForEachEncodedRun, DecodeRun, the data-string scanner and the Latin skeleton over
// arbitrary bytes and aborts when an invariant the turn gate relies on breaks (bounded output,
// ordered in-bounds runs, decoded size within limits, idempotent folding of valid UTF-8, a bounded
// number of data strings each no longer than the text, a final skeleton no longer than its text).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "confusables.h"
#include "data_strings.h"
#include "encoded_runs.h"
#include "unicode_fold.h"

namespace {

using doberman::internal::DecodeLimits;
using doberman::internal::DecodeRun;
using doberman::internal::EncodedRun;
using doberman::internal::Encoding;
using doberman::internal::FindNextEncodedRun;
using doberman::internal::FoldText;
using doberman::internal::ForEachDataString;
using doberman::internal::ForEachEncodedRun;
using doberman::internal::kMaxDataStrings;
using doberman::internal::LatinSkeleton;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_text invariant failed: %s\n", what);
    std::abort();
  }
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsBase64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '-' || c == '_';
}

// Independent of the library's decoder on purpose: Unicode Table 3-7.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 < 0x80) {
      len = 1;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

// Obviously-correct folding of pure ASCII, to check the word-at-a-time fast path against.
std::string ReferenceAsciiFold(std::string_view in) {
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  std::string out;
  bool pending = false;
  for (char c : in) {
    if (is_space(c)) {
      pending = true;
      continue;
    }
    if (pending && !out.empty()) out += ' ';
    pending = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  return out;
}

void CheckFold(std::string_view in) {
  std::string out;
  const size_t changes = FoldText(in, &out);
  Check(out.size() <= 4 * in.size() + 16, "FoldText output bounded by 4x input");
  // Tighter than the 4x above: the largest replacement is a 2-byte digraph becoming 3 bytes.
  Check(out.size() <= in.size() + in.size() / 2, "FoldText output bounded by 3/2 input");
  Check(changes <= in.size(), "FoldText changes bounded by input size");
  Check(changes != 0 || out == in, "FoldText returned 0 but changed the text");
  Check(out != in || changes == 0, "FoldText counted changes but returned the input");
  Check(out.empty() || (out.front() != ' ' && out.back() != ' '), "FoldText trims spaces");
  Check(out.find("  ") == std::string::npos, "FoldText collapses white space");
  for (char c : out) {
    Check(c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v',
          "FoldText maps white space to ' '");
    Check(c < 'A' || c > 'Z', "FoldText lower-cases ASCII");
  }
  // Reusing the buffer gives the same answer.
  std::string again = "previous content";
  Check(FoldText(in, &again) == changes && again == out,
        "FoldText is deterministic with a reused buffer");
  if (std::all_of(in.begin(), in.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    Check(out == ReferenceAsciiFold(in), "FoldText matches the ASCII reference");
  }
  if (IsValidUtf8(in)) {
    Check(IsValidUtf8(out), "FoldText keeps valid UTF-8 valid");
    std::string twice;
    Check(FoldText(out, &twice) == 0 && twice == out, "FoldText is idempotent on valid UTF-8");
  }
}

size_t CountEscapes(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (s[i] == '%' && IsHex(s[i + 1]) && IsHex(s[i + 2])) {
      ++n;
      i += 2;
    }
  }
  return n;
}

void CheckRunShape(std::string_view text, const EncodedRun& run, const DecodeLimits& limits) {
  const std::string_view s = text.substr(run.begin, run.end - run.begin);
  switch (run.encoding) {
    case Encoding::kHex:
      Check(s.size() % 2 == 0 && s.size() >= std::max<size_t>(limits.min_hex, 2), "hex run length");
      Check(std::all_of(s.begin(), s.end(), IsHex), "hex run is all hex digits");
      break;
    case Encoding::kBase64: {
      const size_t body = std::min(s.find('='), s.size());
      Check(s.size() - body <= 2, "base64 run has at most two '='");
      Check(std::all_of(s.begin() + static_cast<std::ptrdiff_t>(body), s.end(),
                        [](char c) { return c == '='; }),
            "base64 padding only at the end");
      Check(body >= std::max<size_t>(limits.min_base64, 1), "base64 run length");
      Check(std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(body), IsBase64),
            "base64 run is in the alphabet");
      break;
    }
    case Encoding::kPercent:
      Check(CountEscapes(s) >= std::max<size_t>(limits.min_percent, 1),
            "percent run has enough escapes");
      break;
  }
}

void CheckRuns(std::string_view text, const DecodeLimits& limits) {
  size_t prev_end = 0;
  size_t count = 0;
  std::string decoded;
  std::vector<EncodedRun> fast;
  const bool more = ForEachEncodedRun(text, limits, [&](const EncodedRun& run) {
    fast.push_back(run);
    Check(run.begin >= prev_end, "runs are increasing and disjoint");
    Check(run.begin < run.end, "runs are not empty");
    Check(run.end <= text.size(), "runs are in bounds");
    prev_end = run.end;
    ++count;
    CheckRunShape(text, run, limits);
    const bool ok = DecodeRun(text, run, limits, &decoded);
    Check(decoded.size() <= limits.max_run_bytes, "decoded size bounded by max_run_bytes");
    Check(ok || decoded.empty(), "failed decode leaves output empty");
    Check(ok || run.encoding == Encoding::kBase64, "found hex and percent runs always decode");
  });
  Check(count <= limits.max_runs, "at most max_runs runs");
  Check(!more || count == limits.max_runs, "overflow only after max_runs runs");
  // The same runs come out of the byte loop (FindNextEncodedRun without the skipping cache, the
  // reference its word-at-a-time paths must equal).
  EncodedRun run{};
  size_t from = 0;
  for (const EncodedRun& expected : fast) {
    Check(FindNextEncodedRun(text, from, limits, &run), "the byte loop finds the same run");
    Check(
        run.begin == expected.begin && run.end == expected.end && run.encoding == expected.encoding,
        "the byte loop finds the same run");
    from = run.end;
  }
  if (!more) Check(!FindNextEncodedRun(text, from, limits, &run), "the byte loop finds no more");
  Check(FindNextEncodedRun(text, text.size(), limits, &run) == false, "no run starts at the end");
}

}  // namespace

void CheckDataStrings(std::string_view text) {
  std::string buffer;
  size_t count = 0;
  ForEachDataString(text, &buffer, [&](std::string_view v) {
    ++count;
    // Unescaping never lengthens a value by more than \uXXXX (6 bytes) -> 3 bytes of UTF-8 does.
    Check(v.size() <= text.size(), "a data string is no longer than its text");
  });
  Check(count <= kMaxDataStrings, "data strings bounded");
}

// The skeleton never grows the text (a replaced character becomes one ASCII byte) and is final:
// what it leaves non-ASCII has no look-alike, so a second pass replaces nothing.
void CheckSkeleton(std::string_view text) {
  std::string once, twice;
  if (!LatinSkeleton(text, &once)) return;
  Check(once.size() <= text.size(), "skeleton no longer than its text");
  Check(!LatinSkeleton(once, &twice), "skeleton is final");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckFold(text);
  CheckRuns(text, DecodeLimits{});
  CheckDataStrings(text);
  CheckSkeleton(text);
  if (size < 4) return 0;

  // Small limits from the first bytes, to reach the edges (minimums of 0, tiny max_run_bytes,
  // max_runs).
  DecodeLimits limits;
  limits.min_base64 = data[0] % 32;
  limits.min_hex = data[1] % 40;
  limits.min_percent = data[2] % 5;
  limits.max_runs = data[3] % 8;
  limits.max_run_bytes = static_cast<size_t>(data[size - 1]) * 3;
  CheckRuns(text, limits);

  // DecodeRun on an arbitrary, possibly invalid, range and encoding.
  EncodedRun run{data[0] % (size + 2), data[1] % (size + 2), static_cast<Encoding>(data[2] % 4)};
  std::string decoded = "stale";
  const bool ok = DecodeRun(text, run, limits, &decoded);
  Check(ok || decoded.empty(), "failed decode leaves output empty");
  Check(decoded.size() <= limits.max_run_bytes, "decoded size bounded by max_run_bytes");
  Check(!ok || (run.begin <= run.end && run.end <= size), "decode succeeds only in bounds");
  return 0;
}
