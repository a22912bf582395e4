// From a parsed payload to a combined decision (maximum over its calls), and from a decision to the
// `check` output line (host answers: host_answer.h).
// Messages name rules and reasons only: never the matched text.
#ifndef DOBERMAN_GUARD_GUARD_OUTPUT_H_
#define DOBERMAN_GUARD_GUARD_OUTPUT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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

// Tags session memory acts on (bits of Decision::raised_tags and seen_tags).
enum MemoryTag : uint32_t {
  kTagInjection = 1u << 0,           // `injection`: Tier-0 turn signatures
  kTagInjectionHeuristic = 1u << 1,  // `injection_heuristic`: Tier-1 turn signatures
  kTagSecretExport = 1u << 2,        // `secret_export`: asks to send secrets somewhere
  kTagSensitiveIntent = 1u << 3,  // `sensitive_intent`: touches credentials, production, money...
};

struct Decision {
  doberman_verdict verdict = DOBERMAN_AUTH;
  std::vector<std::string> reasons;   // reason codes, unique, in rule order; errors as "error:..."
  std::vector<std::string> rules;     // ids of rules that raised the verdict (AUTH or BLOCK)
  std::vector<std::string> messages;  // one per rule, human-readable
  std::vector<HitOut> hits;
  std::string status = "DOBERMAN_OK";
  // For session memory (session_memory.h): the calls that can send data off the machine (a rule
  // tagged `egress` matched, signals included), the keyed fingerprints of the secret values the
  // payload carries (hits of rules tagged `secret`), and whether a rule that is not a secret rule
  // raised the payload (flagged content: injection signatures and the like).
  std::vector<size_t> outbound_calls;
  std::vector<std::array<uint8_t, 16>> secret_values;
  bool flagged = false;
  uint32_t raised_tags = 0;  // MemoryTag bits of the rules that raised the payload (AUTH, BLOCK)
  uint32_t seen_tags = 0;    // MemoryTag bits of every rule that matched, signals included
  // For the egress broker (egress_broker.h): every rule that raised the payload is tagged
  // `proxy_enforceable` (its concern is a connection a forward proxy decides), and nothing was
  // raised outside the rules (no error, bound or session-memory finding).
  bool only_proxy_enforceable = true;
  int raises = 0;  // Raise() calls
  // With several packs (--pack repeated): each pack's own verdict, by its label ("name version
  // rREVISION"), in pack order, so that the answer can say which pack decided (DecidedBy).
  std::vector<std::pair<std::string, doberman_verdict>> pack_verdicts;

  // Raises to at least `v`, recording why.
  void Raise(doberman_verdict v, const std::string& reason, const std::string& message);
  // Records why without touching the verdict (a rule's contribution, already in the library's).
  void Explain(const std::string& reason, const std::string& message);
  std::string Explanation() const;  // "message [rule]; message [rule]"
  // The labels of the packs whose own verdict is the final one. Empty with one pack, and when the
  // final verdict came from outside the packs (session memory, an error, a bound).
  std::vector<std::string> DecidedBy() const;
};

inline constexpr size_t kMaxPayloadBytes = 64u << 20;

// Parses one payload (JSON text) for `host` (kAny: any host's events); on failure returns false
// with `failure` raised to AUTH naming the cause, status DOBERMAN_E_ARGUMENT.
bool ParsePayloadText(std::string_view text, Host host, ParsedPayload* payload, Decision* failure);

// Decides every call of the payload; the verdict is the maximum.
Decision DecidePayload(const doberman_pack* pack, doberman_scratch* scratch,
                       const ParsedPayload& payload);

// `check` output:
// {"id":..,"verdict":..,"status":..,"reasons":[..],"rules":[..],"messages":[..],"hits":[..]}
std::string CheckLine(const Decision& d, const ParsedPayload* payload);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_GUARD_OUTPUT_H_
