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

#include "call_units.h"
#include "doberman/doberman.h"
#include "encoded_runs.h"
#include "mention.h"
#include "pack.h"
#include "shell_normalizer.h"
#include "unicode_fold.h"
#include "validators.h"

namespace doberman::internal {

inline constexpr size_t kMaxHits = 64;
inline constexpr size_t kMaxCappedSpans = 64;
inline constexpr size_t kMaxMarkers = 64;
// Any matches of rules with excuse patterns, and those patterns' spans, kept per unit. Past the
// first bound the unit's excusable rules count as unexcused; past the second an excuse is dropped:
// fewer excuses, never more.
inline constexpr size_t kMaxExcusable = 64;
inline constexpr size_t kMaxExcuses = 64;

// A validated pattern's consecutive match ends judged one by one before only the run's last end
// is (OnMatch).
inline constexpr uint32_t kExactEnds = 16;

// Where a validated pattern's run of consecutive match ends stands in the unit being scanned.
struct ValidationRun {
  size_t judged_until = 0;  // end of the last value judged: later ends inside it are skipped
  size_t last_to = 0;       // the pattern's last reported end (0: none yet in this unit)
  uint32_t judged = 0;      // values judged in the current run
  size_t pending_from = 0, pending_to = 0;  // the run's latest end, held back (pending_to 0: none)
};

struct CappedSpan {
  uint32_t pattern;
  ByteSpan span;
};

// An any match of a rule with excuse patterns (`pattern` is the any pattern), or an excuse
// pattern's match (`pattern` is the excuse): judged together when the unit's rules are.
using ExcusableMatch = CappedSpan;
using ExcuseMatch = CappedSpan;

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
  // SipHash-2-4 key of value tags (doberman_value_tags), derived from fingerprint_key.
  uint8_t tag_key[16];
  void SetFingerprintKey(const uint8_t key[32]);

  // Reused views (the walk over a call's units).
  UnitBuffers views;

  // Per unit.
  std::vector<uint8_t> pattern_hit;
  std::vector<ByteSpan> pattern_span;
  std::vector<uint32_t> touched_patterns;
  std::vector<ValidationRun> validation_run;  // per pattern: see ValidationRun
  std::vector<uint32_t> validated_patterns;   // the patterns with a validation_run this unit
  size_t pending_runs = 0;                    // of them, those with an end held back
  std::vector<uint32_t> touched_rules;
  std::vector<uint8_t> rule_touched;
  std::array<CappedSpan, kMaxCappedSpans> capped{};
  size_t capped_count = 0;
  bool capped_overflow = false;
  std::array<MentionMarker, kMaxMarkers> markers{};
  size_t marker_count = 0;
  std::array<ExcusableMatch, kMaxExcusable> excusable{};
  size_t excusable_count = 0;
  bool excusable_overflow = false;
  std::array<ExcuseMatch, kMaxExcuses> excuses{};
  size_t excuse_count = 0;

  // Per call.
  std::vector<uint8_t> rule_matched;
  std::vector<uint8_t> rule_fired;
  std::vector<doberman_verdict> rule_verdict;
  std::vector<RuleLocation> rule_location;
  std::vector<uint32_t> matched_rules;
  std::vector<uint32_t> fired_rules;
  std::vector<uint8_t> tag_on;
  // One pipeline of a script being written (call_units.h) as a tag space of its own: the rules
  // that matched in its commands at any verdict, their tags, and where the first matched. Its AUTH
  // hits do not count, but combinations of them (a secret file and an upload) are judged like a
  // command line's, for BLOCK, when the walk leaves the pipeline.
  std::vector<uint8_t> script_rule_on;
  std::vector<uint8_t> script_tag_on;
  std::vector<uint32_t> script_rules;
  RuleLocation script_location;
  doberman_field script_field = DOBERMAN_FIELD_TOOL;
  uint32_t script_pipeline = UINT32_MAX;
  std::vector<doberman_hit> hits;
  doberman_status status = DOBERMAN_OK;
  // Content gates (PackDatabase::gate_rules): per gated database, unknown (-1), closed (0) or open
  // (1) for this call; judged at its first content unit over the rules settled by then, which
  // fire into early_fired and early_tags (the call's own rule_fired and tag_on fill at the end).
  std::vector<int8_t> gate_state;
  std::vector<uint8_t> early_fired, early_tags;
  std::vector<uint32_t> early_fired_rules;
  bool early_judged = false;

  // Tests only (tests/api/conditional_equivalence_test.cc): scan conditional databases for every
  // unit, to check that skipping them when no trigger matched never changes a decision.
  bool scan_all_conditions = false;
  // Tests only: scan gated content databases whatever their gates say, and every database of a
  // prompt scope whatever origins its rules read (same test).
  bool scan_all_gates = false;
  bool scan_every_origin = false;
  // Tests only (tests/api/conditional_equivalence_test.cc): judge every end of a validated
  // pattern's run (kExactEnds unbounded), and the count of values judged in the last call.
  bool judge_every_end = false;
  size_t values_judged = 0;
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
