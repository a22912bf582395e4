// Payload text -> parsed payload -> one decision over its calls, and a decision -> the `check`
// line.
#include "guard_output.h"

#include <algorithm>

#include "json.h"

namespace doberman::guard {
namespace {

using internal::AppendJsonString;

const char* FieldName(doberman_field f) {
  switch (f) {
    case DOBERMAN_FIELD_TOOL:
      return "tool";
    case DOBERMAN_FIELD_COMMAND:
      return "command";
    case DOBERMAN_FIELD_PATH:
      return "path";
    case DOBERMAN_FIELD_CONTENT:
      return "content";
    case DOBERMAN_FIELD_URL:
      return "url";
    case DOBERMAN_FIELD_ARGS:
      return "args";
    case DOBERMAN_FIELD_PROMPT:
      return "prompt";
    default:
      return "none";
  }
}

std::string StatusReason(doberman_status s) {
  switch (s) {
    case DOBERMAN_E_LIMIT:
      return "error:limit_exceeded";
    case DOBERMAN_E_UNPARSEABLE:
      return "error:unparseable_command";
    case DOBERMAN_E_SCAN:
      return "error:scan_failed";
    default:
      return std::string("error:") + doberman_status_name(s);
  }
}

std::string StatusMessage(doberman_status s) {
  switch (s) {
    case DOBERMAN_E_LIMIT:
      return "input exceeds a scan bound; a person must look at it";
    case DOBERMAN_E_UNPARSEABLE:
      return "the shell command cannot be parsed (unbalanced quoting)";
    default:
      return std::string("internal check failed: ") + doberman_status_name(s);
  }
}

void AppendList(const std::vector<std::string>& v, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(v[i], out);
  }
  out->push_back(']');
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  bool nonzero = false;
  for (size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
    nonzero = nonzero || p[i] != 0;
  }
  return nonzero ? s : std::string();
}

}  // namespace

void Decision::Raise(doberman_verdict v, const std::string& reason, const std::string& message) {
  verdict = std::max(verdict, v);
  ++raises;
  Explain(reason, message);
}

void Decision::Explain(const std::string& reason, const std::string& message) {
  if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
  if (std::find(messages.begin(), messages.end(), message) == messages.end())
    messages.push_back(message);
}

std::vector<std::string> Decision::DecidedBy() const {
  std::vector<std::string> out;
  for (const auto& [label, v] : pack_verdicts) {
    if (v == verdict) out.push_back(label);
  }
  return out;
}

std::string Decision::Explanation() const {
  std::string s;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i) s += "; ";
    s += messages[i];
  }
  if (!rules.empty()) {
    s += " [";
    for (size_t i = 0; i < rules.size(); ++i) s += (i ? ", " : "") + rules[i];
    s += "]";
  }
  return s;
}

Decision DecidePayload(const doberman_pack* pack, doberman_scratch* scratch,
                       const ParsedPayload& payload) {
  Decision d;
  d.verdict = DOBERMAN_PASS;
  std::vector<doberman_string> args;
  std::vector<doberman_prompt_segment> prompt;
  for (size_t index = 0; index < payload.calls.size(); ++index) {
    const CallInput& input = payload.calls[index];
    doberman_call call = input.View(&args, &prompt);
    doberman_result result{};
    result.struct_size = sizeof result;
    doberman_status s = doberman_decide(pack, scratch, &call, &result);
    // The verdict is the library's own (raise-only across calls). Hits only explain it; a hit above
    // it would mean the library's combine is broken, which is reported as an internal error (and
    // the verdict raised, fail closed) rather than silently repaired, so tests see it.
    d.verdict = std::max(d.verdict, result.verdict);
    if (s != DOBERMAN_OK) {
      d.status = doberman_status_name(s);
      d.Raise(DOBERMAN_AUTH, StatusReason(s), StatusMessage(s));
    }
    bool outbound = false;
    for (size_t i = 0; i < result.hit_count; ++i) {
      const doberman_hit& h = result.hits[i];
      outbound = outbound || doberman_rule_has_tag(pack, h.rule, "egress") != 0;
      const bool secret = doberman_rule_has_tag(pack, h.rule, "secret") != 0;
      std::array<uint8_t, 16> fp{};
      std::copy(std::begin(h.fingerprint), std::end(h.fingerprint), fp.begin());
      // (An all-zero fingerprint means the hit had no value span.)
      if (secret && fp != decltype(fp){} &&
          std::find(d.secret_values.begin(), d.secret_values.end(), fp) == d.secret_values.end()) {
        d.secret_values.push_back(fp);
      }
      uint32_t tags = 0;
      if (doberman_rule_has_tag(pack, h.rule, "injection") != 0) tags |= kTagInjection;
      if (doberman_rule_has_tag(pack, h.rule, "injection_heuristic") != 0)
        tags |= kTagInjectionHeuristic;
      if (doberman_rule_has_tag(pack, h.rule, "secret_export") != 0) tags |= kTagSecretExport;
      if (doberman_rule_has_tag(pack, h.rule, "sensitive_intent") != 0) tags |= kTagSensitiveIntent;
      d.seen_tags |= tags;
      if (h.verdict == DOBERMAN_PASS) continue;  // signals feed when-rules; they decide nothing
      d.raised_tags |= tags;
      if (doberman_rule_has_tag(pack, h.rule, "proxy_enforceable") == 0)
        d.only_proxy_enforceable = false;
      d.flagged = d.flagged || !secret;
      std::string id = doberman_rule_id(pack, h.rule);
      if (std::find(d.rules.begin(), d.rules.end(), id) == d.rules.end()) d.rules.push_back(id);
      if (h.verdict > result.verdict) {
        d.status = doberman_status_name(DOBERMAN_E_INTERNAL);
        d.Raise(h.verdict, "error:verdict_below_hits",
                "internal check failed: the decision is lower than a rule that fired");
      }
      d.Explain(doberman_rule_reason(pack, h.rule), doberman_rule_message(pack, h.rule));
      d.hits.push_back({id, doberman_verdict_name(h.verdict), FieldName(h.field), h.unit, h.start,
                        h.end, Hex(h.fingerprint, sizeof h.fingerprint), h.decoded != 0});
    }
    if (outbound) d.outbound_calls.push_back(index);
    if (result.hits_dropped > 0)
      d.Raise(DOBERMAN_AUTH, "hits_truncated", "more rules fired than reported");
  }
  return d;
}

std::string CheckLine(const Decision& d, const ParsedPayload* payload) {
  std::string out = "{";
  if (payload != nullptr && payload->has_id) {
    out += "\"id\":";
    AppendJsonString(payload->id, &out);
    out += ",";
  }
  out += "\"verdict\":\"";
  out += doberman_verdict_name(d.verdict);
  out += "\",\"status\":";
  AppendJsonString(d.status, &out);
  out += ",\"reasons\":";
  AppendList(d.reasons, &out);
  out += ",\"rules\":";
  AppendList(d.rules, &out);
  out += ",\"messages\":";
  AppendList(d.messages, &out);
  if (!d.pack_verdicts.empty()) {
    out += ",\"decided_by\":";
    AppendList(d.DecidedBy(), &out);
  }
  out += ",\"hits\":[";
  for (size_t i = 0; i < d.hits.size(); ++i) {
    const HitOut& h = d.hits[i];
    if (i) out += ",";
    out += "{\"rule\":";
    AppendJsonString(h.rule, &out);
    out += ",\"verdict\":\"" + h.verdict + "\",\"field\":\"" + h.field +
           "\",\"unit\":" + std::to_string(h.unit) + ",\"start\":" + std::to_string(h.start) +
           ",\"end\":" + std::to_string(h.end);
    if (!h.fingerprint.empty()) out += ",\"fingerprint\":\"" + h.fingerprint + "\"";
    if (h.decoded) out += ",\"decoded\":true";
    out += "}";
  }
  out += "]}\n";
  return out;
}

bool ParsePayloadText(std::string_view text, Host host, ParsedPayload* payload, Decision* failure) {
  doberman::internal::JsonValue json;
  doberman::internal::JsonError jerr;
  doberman::internal::JsonLimits limits;
  limits.max_bytes = kMaxPayloadBytes;
  if (!doberman::internal::ParseJson(text, limits, &json, &jerr)) {
    failure->Raise(DOBERMAN_AUTH, "error:bad_payload",
                   "payload is not valid JSON (" + jerr.message + " at byte " +
                       std::to_string(jerr.offset) + ")");
    failure->status = "DOBERMAN_E_ARGUMENT";
    return false;
  }
  std::string error;
  if (!doberman::guard::ConvertPayload(json, host, payload, &error)) {
    failure->Raise(DOBERMAN_AUTH, "error:bad_payload", error);
    failure->status = "DOBERMAN_E_ARGUMENT";
    return false;
  }
  return true;
}

}  // namespace doberman::guard
