// The decision engine: builds the units of a call (segments, fields, folded and decoded views),
// scans each with its scope's Hyperscan database, evaluates rules per unit, then `when:` programs
// across the call, and combines verdicts by maximum. Per-thread state lives in Scratch; the Pack is
// read-only.
#ifndef DOBERMAN_RUNTIME_DECIDER_H_
#define DOBERMAN_RUNTIME_DECIDER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "doberman/doberman.h"
#include "encoded_runs.h"
#include "mention.h"
#include "pack.h"
#include "shell_normalizer.h"
#include "unicode_fold.h"
#include "validators.h"

namespace doberman::internal {

// The encoded runs of `raw` that are decoded and rescanned, in order. Identifier- and path-shaped
// base64 runs are not encoded payloads: they are skipped without counting against the bound, so
// ordinary large source files do not exhaust it. Returns true when the bound cut the list short
// (the caller raises DOBERMAN_E_LIMIT). Shared with bench/ so the peers scan exactly the same
// units.
template <typename F>
bool ForEachRunToRescan(std::string_view raw, const DecodeLimits& limits, F&& on_run) {
  size_t decoded_runs = 0;
  size_t next_percent = 0;
  EncodedRun run{};
  for (size_t from = 0; FindNextEncodedRun(raw, from, limits, &run, &next_percent);
       from = run.end) {
    if (run.encoding == Encoding::kBase64 &&
        LooksLikeIdentifierOrPath(raw.substr(run.begin, run.end - run.begin))) {
      continue;
    }
    if (decoded_runs++ == limits.max_runs) return true;
    on_run(run);
  }
  return false;
}

inline constexpr size_t kMaxHits = 64;
inline constexpr size_t kMaxCappedSpans = 64;
inline constexpr size_t kMaxMarkers = 64;

struct CappedSpan {
  uint32_t pattern;
  ByteSpan span;
};

struct RuleLocation {
  doberman_field field = DOBERMAN_FIELD_NONE;
  uint32_t unit = 0;
  ByteSpan span;
  bool som = false;
  bool decoded = false;
  uint8_t fingerprint[16] = {};
};

struct Scratch {
  explicit Scratch(const Pack& pack);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const Pack& pack;
  // Hyperscan scratch per slot of the pack's scratch prototypes; a database is scanned with the
  // one of its PackDatabase::scratch_slot. Filled by CloneHsScratch.
  std::array<hs_scratch_t*, kScratchSlots> hs{};
  uint8_t fingerprint_key[32];

  // Reused views.
  SegmentList segments;
  std::string folded, decoded, decoded_folded, path;

  // Per unit.
  std::vector<uint8_t> pattern_hit;
  std::vector<ByteSpan> pattern_span;
  std::vector<uint32_t> touched_patterns;
  std::vector<size_t> validated_until;  // per pattern: end of the last value its validators judged
  std::vector<uint32_t> validated_patterns;
  std::vector<uint32_t> touched_rules;
  std::vector<uint8_t> rule_touched;
  std::array<CappedSpan, kMaxCappedSpans> capped{};
  size_t capped_count = 0;
  bool capped_overflow = false;
  std::array<size_t, kMaxMarkers> marker_ends{};
  size_t marker_count = 0;

  // Per call.
  std::vector<uint8_t> rule_matched;
  std::vector<uint8_t> rule_fired;
  std::vector<doberman_verdict> rule_verdict;
  std::vector<RuleLocation> rule_location;
  std::vector<uint32_t> matched_rules;
  std::vector<uint32_t> fired_rules;
  std::vector<uint8_t> tag_on;
  std::vector<doberman_hit> hits;
  doberman_status status = DOBERMAN_OK;

  // Tests only (tests/api/conditional_equivalence_test.cc): scan conditional databases for every
  // unit, to check that skipping them when no trigger matched never changes a decision.
  bool scan_all_conditions = false;
};

// Gives `scratch` its own copy of each of the pack's scratch prototypes: DOBERMAN_OK, or
// DOBERMAN_E_NO_MEMORY (then `scratch` holds what was cloned and must not be used to decide).
doberman_status CloneHsScratch(Scratch& scratch);

// Decides one call. Never returns PASS with a non-OK status.
doberman_status Decide(Scratch& scratch, const doberman_call& call, doberman_result* result);

}  // namespace doberman::internal

struct doberman_scratch : doberman::internal::Scratch {
  using Scratch::Scratch;
};

#endif  // DOBERMAN_RUNTIME_DECIDER_H_
