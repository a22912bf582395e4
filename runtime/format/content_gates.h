// Content gates: which rules' `when:` is already decided when a call's content field is scanned.
// A database holding only such rules' content patterns needs no scan when none of those `when`s
// holds (rules that cannot fire need no matches). The compiler groups those rules apart
// (hs_builder.cc); the runtime reads the rules itself at load and skips a database only when it
// can prove every rule in it idle (decider.cc). Both use this reading, so they agree; the
// runtime's is the one that decides, and a database it cannot prove idle is scanned.
#ifndef DOBERMAN_FORMAT_CONTENT_GATES_H_
#define DOBERMAN_FORMAT_CONTENT_GATES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "doberman/doberman.h"
#include "pack_model.h"

namespace doberman::internal {

// The scopes a call's units are scanned in before its content field (WalkCallUnits, call_units.h:
// tool, command_text, command, path, then content).
inline constexpr uint32_t kScopesBeforeContent =
    (1u << kScopeTool) | (1u << kScopeCommandText) | (1u << kScopeCommand) | (1u << kScopePath);
// The commands of a script being written are scanned after the content, in these scopes; there
// only BLOCK verdicts and secret rules are recorded (EvaluateUnit), and the pattern-less rules
// judged over a pipeline fire then too (JudgeScriptPipeline).
inline constexpr uint32_t kScriptScopes = (1u << kScopeCommand) | (1u << kScopeCommandText);

namespace gates_detail {

template <class Rule>
bool InputsFinal(const Rule& rule, const std::vector<uint8_t>& final_rule,
                 const std::vector<std::vector<uint32_t>>& producers) {
  for (const WhenInstr& in : rule.when) {
    if (in.op == WhenOp::kRule && (in.arg >= final_rule.size() || !final_rule[in.arg]))
      return false;
    if (in.op == WhenOp::kTag) {
      if (in.arg >= producers.size()) return false;
      for (uint32_t p : producers[in.arg]) {
        if (!final_rule[p]) return false;
      }
    }
  }
  return true;
}

}  // namespace gates_detail

// The reading, per rule (1 or 0):
//  - settled: whether it fires is settled before the content field is scanned. That holds for a
//    rule with patterns that serves only the scopes scanned before content, that a script's
//    commands cannot record (not BLOCK, not a secret rule, when it serves a script scope), and
//    whose `when:` (if any) names only such rules and tags only such rules carry. Pattern-less
//    rules are never settled early.
//  - gated: its content patterns can be left unscanned while its `when:` is false. It has
//    patterns, serves the content scope, and its `when:` names only settled rules and tags.
struct ContentGates {
  std::vector<uint8_t> settled, gated;
};

// `Rule` is IrRule or RuleInfo (scopes, verdict, family, tags, when, patterns); `verdict` is the
// one the runtime judges with (tier 1 clamped).
template <class Rule>
ContentGates ReadContentGates(std::span<const Rule> rules, size_t tag_count) {
  std::vector<std::vector<uint32_t>> producers(tag_count);
  std::vector<uint8_t> candidate(rules.size(), 0);
  ContentGates out{std::vector<uint8_t>(rules.size(), 0), std::vector<uint8_t>(rules.size(), 0)};
  for (size_t r = 0; r < rules.size(); ++r) {
    const Rule& rule = rules[r];
    for (uint32_t t : rule.tags) {
      if (t < tag_count) producers[t].push_back(static_cast<uint32_t>(r));
    }
    const bool recorded_by_scripts = (rule.scopes & kScriptScopes) != 0 &&
                                     (rule.verdict == DOBERMAN_BLOCK || rule.family == "secret");
    candidate[r] = !rule.patterns.empty() && (rule.scopes & ~kScopesBeforeContent) == 0 &&
                   !recorded_by_scripts;
  }
  // Least fixed point: a rule is settled once every input of its `when` is.
  std::vector<uint8_t>& settled = out.settled;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < rules.size(); ++r) {
      if (settled[r] || !candidate[r] || !gates_detail::InputsFinal(rules[r], settled, producers))
        continue;
      settled[r] = 1;
      changed = true;
    }
  }
  for (size_t r = 0; r < rules.size(); ++r) {
    const Rule& rule = rules[r];
    out.gated[r] = !rule.patterns.empty() && !rule.when.empty() &&
                   (rule.scopes & (1u << kScopeContent)) != 0 &&
                   gates_detail::InputsFinal(rule, settled, producers);
  }
  return out;
}

}  // namespace doberman::internal

#endif  // DOBERMAN_FORMAT_CONTENT_GATES_H_
