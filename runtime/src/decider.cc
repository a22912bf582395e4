// Decide(): one call in, one verdict out. The hot path: no allocation once the scratch has grown,
// no locks, no exceptions. Every bound that trips raises the status, and a non-OK status floors the
// verdict at AUTH (fail closed).
#include "decider.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "encoded_runs.h"
#include "unicode_fold.h"
#include "units.h"
#include "validators.h"

namespace doberman::internal {
namespace {

struct UnitContext {
  Scratch* s;
  const PackDatabase* db;  // the database being scanned: its ids map to pack patterns
  std::string_view text;
  doberman_field field;
  uint32_t unit;
  uint32_t origin_bit;
  uint32_t scope_bit;  // a database may serve several scopes: filter by the rule's scopes
  bool decoded;
  bool prompt;
  uint32_t need_conditions = 0;  // the conditional databases the matched patterns' rules need
  bool block_only = false;       // a command of a script being written: only BLOCK verdicts count
};

void Raise(Scratch& s, doberman_status status) {
  if (s.status == DOBERMAN_OK) s.status = status;
}

// Keeps an any match of a rule with excuse patterns, or an excuse's span, for EvaluateUnit.
[[gnu::noinline]] void NoteExcusable(Scratch& s, uint32_t p, Role role, ByteSpan span) {
  if (role == Role::kAny) {
    if (s.excusable_count < kMaxExcusable) {
      s.excusable[s.excusable_count++] = {p, span};
    } else {
      s.excusable_overflow = true;  // too many to judge: unexcused (fail closed)
    }
  } else if (role == Role::kExcuse) {
    // An excuse that can grow (`[^\n]*`) is reported at every end of one start: those widen the
    // span already kept instead of filling the bound, where they would push out the excuses of
    // the unit's other matches and rules.
    for (size_t j = s.excuse_count; j-- > 0;) {
      ExcuseMatch& kept = s.excuses[j];
      if (kept.pattern == p && kept.span.start == span.start) {
        kept.span.end = std::max(kept.span.end, span.end);
        return;
      }
    }
    if (s.excuse_count < kMaxExcuses) s.excuses[s.excuse_count++] = {p, span};
  }
}

// Whether one of rule r's any matches in this unit ends outside every span of its excuse
// patterns; if so, that match becomes the rule's located one.
bool FindUnexcused(Scratch& s, uint32_t r, uint32_t* located) {
  if (s.excusable_overflow) return true;
  const Pack& pack = s.pack;
  for (size_t i = 0; i < s.excusable_count; ++i) {
    const ExcusableMatch& m = s.excusable[i];
    if (pack.patterns[m.pattern].rule != r) continue;
    bool excused = false;
    for (size_t j = 0; j < s.excuse_count && !excused; ++j) {
      const ExcuseMatch& e = s.excuses[j];
      // The match's last byte must lie past the excuse's first: a pattern that ends on the
      // delimiter after its word (`f=@.env ` in `curl -F f=@.env --cert-type PEM`) shares that
      // byte with an excuse that starts on it, and is not the excused word.
      excused = pack.patterns[e.pattern].rule == r && e.span.start + 1 < m.span.end &&
                m.span.end <= e.span.end;
    }
    if (!excused) {
      s.pattern_span[m.pattern] = m.span;
      *located = m.pattern;
      return true;
    }
  }
  return false;
}

// What a match leaves for its unit's rules once its validators passed (or it has none). Inlined
// by force: it runs once per match, and as a call it cost 0.4 % of a command's decision
// (bench/decision_instructions.py).
[[gnu::always_inline]] inline void Accept(UnitContext& u, uint32_t p, const PatternInfo& pi,
                                          const RuleInfo& rule, ByteSpan span) {
  Scratch& s = *u.s;
  u.need_conditions |= pi.conditions_to_scan;
  if (pi.excusable) NoteExcusable(s, p, pi.role, span);
  // Past kMaxMarkers a marker is dropped: fewer mentions, never more.
  if (rule.mention_marker != MarkerKind::kNone && s.marker_count < kMaxMarkers)
    s.markers[s.marker_count++] = {span.end, rule.mention_marker, span.start};
  if (u.prompt && pi.role == Role::kAny && rule.mention_cap < rule.verdict) {
    if (s.capped_count < kMaxCappedSpans) {
      s.capped[s.capped_count++] = {p, span};
    } else {
      s.capped_overflow = true;  // too many to judge: treat as issued (fail closed)
    }
  }
  if (!s.pattern_hit[p]) {
    s.pattern_hit[p] = 1;
    s.pattern_span[p] = span;
    s.touched_patterns.push_back(p);
  }
}

// Judges the value that validated pattern `p`'s match ending at `to` carries.
void Judge(UnitContext& u, uint32_t p, size_t from, size_t to) {
  Scratch& s = *u.s;
  const PatternInfo& pi = s.pack.patterns[p];
  const RuleInfo& rule = s.pack.rules[pi.rule];
  const ByteSpan span{pi.som ? from : to, to};
  size_t value_end = 0;
  const bool ok = PassesValidators(rule.validators, u.text, span.start, span.end, &value_end);
  ValidationRun& run = s.validation_run[p];
  run.judged_until = std::max(value_end, to);
  ++s.values_judged;
  if (ok) Accept(u, p, pi, rule, span);
}

// Judges the last end of `p`'s run of consecutive ends that was held back, if any (OnMatch).
void JudgePending(UnitContext& u, uint32_t p) {
  Scratch& s = *u.s;
  ValidationRun& run = s.validation_run[p];
  if (run.pending_to == 0) return;
  const size_t from = run.pending_from, to = run.pending_to;
  run.pending_to = 0;
  --s.pending_runs;
  if (!s.pattern_hit[p] && to > run.judged_until) Judge(u, p, from, to);
}

int OnMatch(unsigned int id, unsigned long long from, unsigned long long to, unsigned int /*flags*/,
            void* ctx) {
  UnitContext& u = *static_cast<UnitContext*>(ctx);
  Scratch& s = *u.s;
  const uint32_t p = u.db->pattern_ids[id];
  const PatternInfo& pi = s.pack.patterns[p];
  const RuleInfo& rule = s.pack.rules[pi.rule];
  if ((rule.scopes & u.scope_bit) == 0) return 0;
  if (u.decoded && !rule.decode) return 0;
  if ((rule.origins & u.origin_bit) == 0) return 0;
  if (pi.role != Role::kAny || !rule.validators.Any()) {
    Accept(u, p, pi, rule,
           {pi.som ? static_cast<size_t>(from) : static_cast<size_t>(to), static_cast<size_t>(to)});
    return 0;
  }
  // Validated patterns report every match end; one judgement per value is enough. Inside a run
  // of bytes that are not a token's (symbols, UTF-8 text) every end is a longer value with the
  // same start: past the run's first kExactEnds judgements only its last end is judged, when the
  // run ends (JudgePending), or a value of 4 KiB would be judged again at each of its bytes.
  if (s.pattern_hit[p]) return 0;
  ValidationRun& run = s.validation_run[p];
  if (run.last_to == 0) s.validated_patterns.push_back(p);
  const bool continues = to == run.last_to + 1;
  run.last_to = static_cast<size_t>(to);
  if (!continues) {
    JudgePending(u, p);
    run.judged = 0;
  }
  if (s.pattern_hit[p] || to <= run.judged_until) return 0;
  if (run.judged >= kExactEnds && !s.judge_every_end) {
    s.pending_runs += run.pending_to == 0 ? 1 : 0;
    run.pending_from = static_cast<size_t>(from);
    run.pending_to = static_cast<size_t>(to);
    return 0;
  }
  ++run.judged;
  Judge(u, p, static_cast<size_t>(from), static_cast<size_t>(to));
  return 0;
}

void RecordMatch(Scratch& s, uint32_t r, doberman_verdict verdict, const UnitContext& u,
                 uint32_t located_pattern) {
  const bool first = !s.rule_matched[r];
  if (!first && verdict <= s.rule_verdict[r]) return;
  if (first) {
    s.rule_matched[r] = 1;
    s.matched_rules.push_back(r);
  }
  s.rule_verdict[r] = verdict;
  RuleLocation& loc = s.rule_location[r];
  loc.field = u.field;
  loc.unit = u.unit;
  loc.decoded = u.decoded;
  loc.som = located_pattern != UINT32_MAX && s.pack.patterns[located_pattern].som;
  loc.span = located_pattern != UINT32_MAX ? s.pattern_span[located_pattern] : ByteSpan{};
  const RuleInfo& rule = s.pack.rules[r];
  if (!loc.som && located_pattern != UINT32_MAX && (rule.validators.Any() || rule.secret_family) &&
      loc.span.end <= u.text.size()) {
    // A secret's span is its value, recovered from the match end as the validators do.
    std::string_view value = ExtractValue(u.text, loc.span.end, loc.span.end);
    if (!value.empty()) {
      loc.span.start = static_cast<size_t>(value.data() - u.text.data());
      loc.span.end = loc.span.start + value.size();
      loc.som = true;
    }
  }
  std::fill(std::begin(loc.fingerprint), std::end(loc.fingerprint), 0);
  if (loc.som && loc.span.end > loc.span.start && loc.span.end <= u.text.size()) {
    crypto_generichash(loc.fingerprint, sizeof loc.fingerprint,
                       reinterpret_cast<const uint8_t*>(u.text.data()) + loc.span.start,
                       loc.span.end - loc.span.start, s.fingerprint_key, sizeof s.fingerprint_key);
  }
}

bool EvalWhen(std::span<const uint8_t> rule_on, std::span<const uint8_t> tag_on,
              const std::vector<WhenInstr>& program) {
  bool stack[257];
  size_t depth = 0;
  for (const WhenInstr& in : program) {
    switch (in.op) {
      case WhenOp::kRule:
        stack[depth++] = rule_on[in.arg] != 0;
        break;
      case WhenOp::kTag:
        stack[depth++] = tag_on[in.arg] != 0;
        break;
      case WhenOp::kTrue:
        stack[depth++] = true;
        break;
      case WhenOp::kNot:
        stack[depth - 1] = !stack[depth - 1];
        break;
      case WhenOp::kAnd:
        --depth;
        stack[depth - 1] = stack[depth - 1] && stack[depth];
        break;
      case WhenOp::kOr:
        --depth;
        stack[depth - 1] = stack[depth - 1] || stack[depth];
        break;
    }
  }
  return depth == 1 && stack[0];
}

void Fire(Scratch& s, uint32_t r) {
  s.rule_fired[r] = 1;
  for (uint32_t t : s.pack.rules[r].tags) s.tag_on[t] = 1;
}

// Rule r matched in a command of a script being written: into its pipeline's tag space (Scratch).
void NoteScriptMatch(Scratch& s, uint32_t r, const UnitContext& u) {
  if (s.script_rules.empty()) {
    s.script_location = RuleLocation{};
    s.script_location.field = u.field;
    s.script_location.unit = u.unit;
  }
  if (s.script_rule_on[r]) return;
  s.script_rule_on[r] = 1;
  s.script_rules.push_back(r);
  for (uint32_t t : s.pack.rules[r].tags) s.script_tag_on[t] = 1;
}

// The combinations one pipeline of a script being written makes (a secret file and an upload in
// `curl -F f=@$HOME/.ssh/id_rsa ...` or `tar cz ~/.aws | curl --data-binary @- ...`), judged like
// a command line's and for BLOCK only, the bar of its single rules; then the tag space is cleared.
// One pipeline, not the script: a long script reads a certificate in one place and fetches a page
// in another.
void JudgeScriptPipeline(Scratch& s) {
  if (s.script_rules.empty()) return;
  const Pack& pack = s.pack;
  for (uint32_t r : pack.when_rules) {
    const RuleInfo& rule = pack.rules[r];
    if (rule.has_patterns || rule.verdict != DOBERMAN_BLOCK || s.rule_fired[r]) continue;
    if (!EvalWhen(s.script_rule_on, s.script_tag_on, rule.when)) continue;
    Fire(s, r);
    s.rule_verdict[r] = rule.verdict;
    s.rule_location[r] = s.script_location;
  }
  for (uint32_t r : s.script_rules) s.script_rule_on[r] = 0;
  s.script_rules.clear();
  std::fill(s.script_tag_on.begin(), s.script_tag_on.end(), 0);
}

// Fires the rules `keep` admits in the order the end of a call does: the matched rules without
// `when`, then the `when` rules in evaluation order (those with patterns only when matched), each
// `when` read over `rule_on` and `tag_on`, which `fire` fills.
template <typename Keep, typename FireRule>
void FireInOrder(const Scratch& s, std::span<const uint8_t> rule_on,
                 std::span<const uint8_t> tag_on, Keep keep, FireRule fire) {
  const Pack& pack = s.pack;
  for (uint32_t r : s.matched_rules) {
    if (pack.rules[r].when.empty() && keep(r)) fire(r);
  }
  for (uint32_t r : pack.when_rules) {
    const RuleInfo& rule = pack.rules[r];
    if (!keep(r) || (rule.has_patterns && !s.rule_matched[r])) continue;
    if (EvalWhen(rule_on, tag_on, rule.when)) fire(r);
  }
}

// Fires, into the early tag space, the rules settled before content (content_gates.h) as the end
// of the call will. Called at the first content unit, when every unit they can match in has been
// scanned.
void JudgeSettledRules(Scratch& s) {
  for (uint32_t r : s.early_fired_rules) s.early_fired[r] = 0;
  s.early_fired_rules.clear();
  std::fill(s.early_tags.begin(), s.early_tags.end(), 0);
  FireInOrder(
      s, s.early_fired, s.early_tags,
      [&s](uint32_t r) { return s.pack.settled_before_content[r] != 0; },
      [&s](uint32_t r) {
        s.early_fired[r] = 1;
        s.early_fired_rules.push_back(r);
        for (uint32_t t : s.pack.rules[r].tags) s.early_tags[t] = 1;
      });
  s.early_judged = true;
}

// Whether a gated content database can change this call: one of its rules' `when` holds. Its
// inputs are settled (content_gates.h), so a false one stays false to the end of the call, and
// those rules cannot fire whatever their patterns match.
bool GateOpen(Scratch& s, const PackDatabase& db) {
  int8_t& state = s.gate_state[db.gate_index];
  if (state < 0) {
    if (!s.early_judged) JudgeSettledRules(s);
    state = 0;
    for (uint32_t r : db.gate_rules) {
      if (EvalWhen(s.early_fired, s.early_tags, s.pack.rules[r].when)) {
        state = 1;
        break;
      }
    }
  }
  return state == 1 || s.scan_all_gates;
}

// Evaluates every rule that had a pattern hit in this unit, then clears the unit state.
void EvaluateUnit(Scratch& s, const UnitContext& u) {
  const Pack& pack = s.pack;
  for (uint32_t p : s.touched_patterns) {
    uint32_t r = pack.patterns[p].rule;
    if (!s.rule_touched[r]) {
      s.rule_touched[r] = 1;
      s.touched_rules.push_back(r);
    }
  }
  const std::span<const MentionMarker> markers(s.markers.data(), s.marker_count);
  for (uint32_t r : s.touched_rules) {
    s.rule_touched[r] = 0;
    const RuleInfo& rule = pack.rules[r];
    bool any = rule.any_count == 0, all = true, none = true;
    uint32_t located = UINT32_MAX;
    for (uint32_t p : rule.patterns) {
      const bool hit = s.pattern_hit[p] != 0;
      switch (pack.patterns[p].role) {
        case Role::kAny:
          if (hit && !any) {
            any = true;
            located = p;
          } else if (hit && located == UINT32_MAX) {
            located = p;
          }
          break;
        case Role::kAll:
          all = all && hit;
          if (hit && located == UINT32_MAX) located = p;
          break;
        case Role::kNone:
          none = none && !hit;
          break;
        case Role::kExcuse:
          break;
      }
    }
    if (!(any && all && none)) continue;
    if (rule.excuse_count != 0 && !FindUnexcused(s, r, &located)) continue;
    doberman_verdict verdict = rule.verdict;
    if (u.prompt && rule.mention_cap < verdict && !s.capped_overflow) {
      bool issued = false;
      for (size_t i = 0; i < s.capped_count && !issued; ++i) {
        const CappedSpan& c = s.capped[i];
        if (pack.patterns[c.pattern].rule != r) continue;
        issued = !IsMention(u.text, c.span, markers);
      }
      if (!issued) verdict = rule.mention_cap;
    }
    // A credential on a script's command line (`curl -u admin:PASSWORD https://ci...`) goes where
    // the script sends it when run, by design: it counts as a secret in the file (below), not as
    // a secret leaving, so secret rules stay out of the pipelines' tag spaces. Only the script's
    // commands (the command scope) fill them: its whole text, read as a command line's raw text
    // too, would join commands far apart.
    if (u.block_only && u.scope_bit == 1u << kScopeCommand && !rule.secret_family)
      NoteScriptMatch(s, r, u);
    // A script being written runs later, if ever: of its commands only a BLOCK counts now. A
    // credential in its text is there already (`curl -u admin:PASSWORD` in deploy.sh), so secret
    // rules count at their verdict, as they do on the file's content.
    if (u.block_only && verdict != DOBERMAN_BLOCK && !rule.secret_family) continue;
    RecordMatch(s, r, verdict, u, located);
  }
  for (uint32_t p : s.touched_patterns) s.pattern_hit[p] = 0;
  for (uint32_t p : s.validated_patterns) s.validation_run[p] = ValidationRun{};
  s.pending_runs = 0;  // (ScanOne judged every held-back end)
  s.touched_patterns.clear();
  s.validated_patterns.clear();
  s.touched_rules.clear();
  s.capped_count = 0;
  s.capped_overflow = false;
  s.marker_count = 0;
  if (s.excusable_count + s.excuse_count != 0 || s.excusable_overflow) {
    s.excusable_count = 0;
    s.excusable_overflow = false;
    s.excuse_count = 0;
  }
}

class CallScanner {
 public:
  explicit CallScanner(Scratch& s) : s_(s), pack_(s.pack) {}

  void Scan(int scope, doberman_field field, uint32_t unit, std::string_view text, bool decoded,
            uint32_t origin_bit, bool block_only = false) {
    const ScopeDb& sdb = pack_.scopes[scope];
    if (sdb.empty() || text.empty()) return;
    // A script's commands are bounded by the shell's segment limit, and running past max_units
    // there must not raise the status of a call whose every field was read (call_units.h).
    if (!block_only && ++units_ > pack_.limits.max_units) {
      Raise(s_, DOBERMAN_E_LIMIT);
      return;
    }
    UnitContext u{&s_,         nullptr, text,
                  field,       unit,    origin_bit,
                  1u << scope, decoded, scope == kScopePrompt || scope == kScopePromptText};
    u.block_only = block_only;
    // Every database serving the scope sees the unit before its rules are judged together.
    for (const PackDatabase* db : sdb.dbs) {
      // Every match would be dropped (OnMatch).
      if ((db->origins & origin_bit) == 0 && !s_.scan_every_origin) continue;
      if (!db->gate_rules.empty() && !GateOpen(s_, *db)) continue;
      ScanOne(db, text, &u);
    }
    // All/none patterns of rules whose any patterns all missed cannot change this unit's outcome:
    // only the conditional databases of rules that matched are scanned.
    if (u.need_conditions != 0 || s_.scan_all_conditions) {
      for (const PackDatabase* db : sdb.condition_dbs) {
        if (s_.scan_all_conditions || (db->condition_bit & u.need_conditions) != 0)
          ScanOne(db, text, &u);
      }
    }
    EvaluateUnit(s_, u);
  }

  void ScanOne(const PackDatabase* db, std::string_view text, UnitContext* u) {
    u->db = db;
    hs_error_t err = hs_scan(db->db, text.data(), static_cast<unsigned int>(text.size()), 0,
                             s_.hs[db->scratch_slot], OnMatch, u);
    if (err != HS_SUCCESS) Raise(s_, DOBERMAN_E_SCAN);
    // The held-back last ends of runs (OnMatch) are judged before the unit's rules are.
    if (s_.pending_runs != 0) {
      for (uint32_t p : s_.validated_patterns) JudgePending(*u, p);
    }
  }

  // Scans `raw` (folded first when `fold`), then each encoded run in `raw` decoded once.
  // WalkCallUnits' visitor: one unit to scan, and a bound the call exceeded.
  void Unit(int scope, doberman_field field, uint32_t unit, std::string_view text, bool decoded,
            uint32_t origin_bit) {
    Scan(scope, field, unit, text, decoded, origin_bit);
  }
  void ScriptUnit(int scope, doberman_field field, uint32_t unit, std::string_view text,
                  uint32_t pipeline) {
    if (scope == kScopeCommand && (pipeline != s_.script_pipeline || field != s_.script_field)) {
      JudgeScriptPipeline(s_);
      s_.script_pipeline = pipeline;
      s_.script_field = field;
    }
    Scan(scope, field, unit, text, /*decoded=*/false, /*origin_bit=*/kAllOrigins,
         /*block_only=*/true);
  }
  void Status(doberman_status status) { Raise(s_, status); }

 private:
  Scratch& s_;
  const Pack& pack_;
  uint32_t units_ = 0;
};

bool ValidString(const doberman_string& s) { return s.data != nullptr || s.size == 0; }

void ScanCall(Scratch& s, const doberman_call& call) {
  const Pack& pack = s.pack;
  // A handle loaded for some fields only (doberman_load_options.fields) cannot judge the others: a
  // call that has one is answered from what was loaded and floored at AUTH.
  if (pack.loaded_scopes != kAllScopes &&
      (ScopesForFields(FieldsOfCall(call)) & ~pack.loaded_scopes) != 0) {
    Raise(s, DOBERMAN_E_NOT_LOADED);
  }
  CallScanner scanner(s);
  s.script_pipeline = kNoPipeline;
  WalkCallUnits(pack, call, s.views, scanner);
  JudgeScriptPipeline(s);
}

void AddHit(Scratch& s, uint32_t r, doberman_verdict verdict, size_t* dropped) {
  if (s.hits.size() == kMaxHits) {
    ++*dropped;
    return;
  }
  const RuleLocation& loc = s.rule_location[r];
  doberman_hit hit{};
  hit.rule = r;
  hit.verdict = verdict;
  hit.field = loc.field;
  hit.unit = loc.unit;
  hit.start = loc.span.start;
  hit.end = loc.span.end;
  std::copy(std::begin(loc.fingerprint), std::end(loc.fingerprint), hit.fingerprint);
  hit.decoded = loc.decoded ? 1 : 0;
  s.hits.push_back(hit);
}

}  // namespace

void Scratch::SetFingerprintKey(const uint8_t key[32]) {
  std::memcpy(fingerprint_key, key, sizeof fingerprint_key);
  static const char kDomain[] = "doberman value tag v1";
  crypto_generichash(tag_key, sizeof tag_key, reinterpret_cast<const uint8_t*>(kDomain),
                     sizeof kDomain - 1, fingerprint_key, sizeof fingerprint_key);
}

Scratch::Scratch(const Pack& p) : pack(p) {
  uint8_t key[32];
  randombytes_buf(key, sizeof key);
  SetFingerprintKey(key);
  const size_t patterns = pack.patterns.size(), rules = pack.rules.size();
  pattern_hit.assign(patterns, 0);
  pattern_span.assign(patterns, ByteSpan{});
  validation_run.assign(patterns, ValidationRun{});
  validated_patterns.reserve(patterns);
  touched_patterns.reserve(patterns);
  touched_rules.reserve(rules);
  rule_touched.assign(rules, 0);
  rule_matched.assign(rules, 0);
  rule_fired.assign(rules, 0);
  rule_verdict.assign(rules, DOBERMAN_PASS);
  rule_location.assign(rules, RuleLocation{});
  matched_rules.reserve(rules);
  fired_rules.reserve(rules);
  tag_on.assign(pack.tags.size(), 0);
  script_rule_on.assign(rules, 0);
  script_tag_on.assign(pack.tags.size(), 0);
  script_rules.reserve(rules);
  gate_state.assign(pack.gate_count, -1);
  early_fired.assign(rules, 0);
  early_tags.assign(pack.tags.size(), 0);
  early_fired_rules.reserve(rules);
  hits.reserve(kMaxHits);
  views.segments.segments.reserve(16);
}

Scratch::~Scratch() {
  for (hs_scratch_t* s : hs) {
    if (s != nullptr) hs_free_scratch(s);
  }
}

doberman_status CloneHsScratch(Scratch& s) {
  const Pack& pack = s.pack;
  if (pack.adopt_prototypes && !pack.prototypes_adopted.exchange(true)) {
    for (size_t slot = 0; slot < kScratchSlots; ++slot)
      s.hs[slot] = pack.scratch_prototypes[slot].release();
    return DOBERMAN_OK;
  }
  if (pack.prototypes_adopted.load()) {
    for (const auto& db : pack.databases) {
      if (hs_alloc_scratch(db->db, &s.hs[db->scratch_slot]) != HS_SUCCESS)
        return DOBERMAN_E_NO_MEMORY;
    }
    return DOBERMAN_OK;
  }
  for (size_t slot = 0; slot < kScratchSlots; ++slot) {
    const hs_scratch_t* prototype = s.pack.scratch_prototypes[slot].get();
    if (prototype == nullptr || s.hs[slot] != nullptr) continue;
    if (hs_clone_scratch(prototype, &s.hs[slot]) != HS_SUCCESS) return DOBERMAN_E_NO_MEMORY;
  }
  return DOBERMAN_OK;
}

doberman_status Decide(Scratch& s, const doberman_call& call, doberman_result* result) {
  const Pack& pack = s.pack;
  result->verdict = DOBERMAN_AUTH;  // until decided
  result->hits = nullptr;
  result->hit_count = 0;
  result->hits_dropped = 0;
  if (!ValidString(call.tool) || !ValidString(call.command) || !ValidString(call.path) ||
      !ValidString(call.cwd) || !ValidString(call.content) || !ValidString(call.url) ||
      (call.arg_count > 0 && call.args == nullptr) ||
      (call.prompt_count > 0 && call.prompt == nullptr)) {
    result->status = DOBERMAN_E_ARGUMENT;
    return DOBERMAN_E_ARGUMENT;
  }
  for (size_t i = 0; i < call.arg_count; ++i) {
    if (!ValidString(call.args[i])) result->status = DOBERMAN_E_ARGUMENT;
  }
  for (size_t i = 0; i < call.prompt_count; ++i) {
    // A C caller may store any int in the enum; reading it as the C++ enum would be undefined when
    // it is out of range, so its bytes are read as an integer.
    unsigned origin = 0;
    static_assert(sizeof origin == sizeof call.prompt[i].origin);
    std::memcpy(&origin, &call.prompt[i].origin, sizeof origin);
    if (!ValidString(call.prompt[i].text) || origin > 2u) result->status = DOBERMAN_E_ARGUMENT;
  }
  if (result->status == DOBERMAN_E_ARGUMENT) return DOBERMAN_E_ARGUMENT;

  // Reset only what the previous call touched.
  for (uint32_t r : s.matched_rules) {
    s.rule_matched[r] = 0;
    s.rule_fired[r] = 0;
    s.rule_verdict[r] = DOBERMAN_PASS;
  }
  for (uint32_t r : pack.when_rules) s.rule_fired[r] = 0;
  s.matched_rules.clear();
  std::fill(s.tag_on.begin(), s.tag_on.end(), 0);
  s.hits.clear();
  s.status = DOBERMAN_OK;
  s.values_judged = 0;
  std::fill(s.gate_state.begin(), s.gate_state.end(), -1);
  s.early_judged = false;

  ScanCall(s, call);

  doberman_verdict verdict = DOBERMAN_PASS;
  size_t dropped = 0;
  FireInOrder(
      s, s.rule_fired, s.tag_on, [](uint32_t) { return true; },
      [&s](uint32_t r) {
        Fire(s, r);
        const RuleInfo& rule = s.pack.rules[r];
        if (!rule.has_patterns) {
          s.rule_verdict[r] = rule.verdict;
          s.rule_location[r] = RuleLocation{};
        }
      });
  // Hits in rule order, so that output is stable whatever order units were scanned in.
  s.fired_rules.clear();
  for (uint32_t r : s.matched_rules) {
    if (s.rule_fired[r]) s.fired_rules.push_back(r);
  }
  for (uint32_t r : pack.when_rules) {
    if (s.rule_fired[r] && !pack.rules[r].has_patterns) s.fired_rules.push_back(r);
  }
  std::sort(s.fired_rules.begin(), s.fired_rules.end());
  for (uint32_t r : s.fired_rules) {
    verdict = std::max(verdict, s.rule_verdict[r]);
    AddHit(s, r, s.rule_verdict[r], &dropped);
  }
  if (s.status != DOBERMAN_OK) verdict = std::max(verdict, DOBERMAN_AUTH);
  result->verdict = verdict;
  result->status = s.status;
  result->hits = s.hits.data();
  result->hit_count = s.hits.size();
  result->hits_dropped = dropped;
  return s.status;
}

}  // namespace doberman::internal
