// From a parsed payload to a combined decision (maximum over its calls), and from a decision to the
// text each host expects: a JSON line for `check`, Claude Code/Codex and Cursor hook answers.
// Messages name rules and reasons only: never the matched text.
#ifndef DOBERMAN_GUARD_GUARD_OUTPUT_H_
#define DOBERMAN_GUARD_GUARD_OUTPUT_H_

#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "hook_payload.h"

namespace doberman::guard {

struct HitOut {
  std::string rule, verdict, field;
  uint32_t unit;
  uint64_t start, end;
  std::string fingerprint;  // hex, empty when no span
  bool decoded;
};

struct Decision {
  doberman_verdict verdict = DOBERMAN_AUTH;
  std::vector<std::string> reasons;   // reason codes, unique, in rule order; errors as "error:..."
  std::vector<std::string> rules;     // ids of rules that raised the verdict (AUTH or BLOCK)
  std::vector<std::string> messages;  // one per rule, human-readable
  std::vector<HitOut> hits;
  std::string status = "DOBERMAN_OK";

  // Raises to at least `v`, recording why.
  void Raise(doberman_verdict v, const std::string& reason, const std::string& message);
  std::string Explanation() const;  // "message [rule]; message [rule]"
};

// Decides every call of the payload; the verdict is the maximum.
Decision DecidePayload(const doberman_pack* pack, doberman_scratch* scratch,
                       const ParsedPayload& payload);

// `check` output: {"id":..,"verdict":..,"status":..,"reasons":[..],"rules":[..],"messages":[..],"hits":[..]}
std::string CheckLine(const Decision& d, const ParsedPayload* payload);

// Claude Code / Codex answer for the event. Empty when nothing should be printed (PASS).
// `turn_auth_blocks`: whether AUTH on a prompt turn blocks it (else it warns, see docs).
std::string ClaudeAnswer(HookEvent event, const Decision& d, bool turn_auth_blocks);

// Cursor answer: {"permission":"allow"|"ask"|"deny", "userMessage", "agentMessage"}.
std::string CursorAnswer(HookEvent event, const Decision& d);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_GUARD_OUTPUT_H_
