// Pack rendering. Reads through the runtime's envelope code and the generated FlatBuffers
// accessors, after running the FlatBuffers verifier (an unverified buffer is never walked).
#include "inspect.h"

#include <ctime>
#include <vector>

#include "envelope.h"
#include "ir.h"
#include "json.h"
#include "lz4_block.h"
#include "pack_generated.h"
#include "pattern_text.h"

namespace doberman::compiler {
namespace {

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

std::string Time(int64_t t) {
  if (t == 0) return "never";
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

const char* VerdictName(fb::Verdict v) {
  return v == fb::Verdict::Pass ? "PASS" : v == fb::Verdict::Auth ? "AUTH" : "BLOCK";
}
const char* RoleName(fb::PatternRole r) {
  return r == fb::PatternRole::Any    ? "any"
         : r == fb::PatternRole::All  ? "all"
         : r == fb::PatternRole::None ? "none"
                                      : "excuse";
}

// The rule's mention-marker kind as the rule language spells it; packs that predate `marker` say
// only the bool.
const char* MarkerName(const fb::Rule& r) {
  switch (r.marker()) {
    case fb::MentionMarker::Sentence:
      return "sentence";
    case fb::MentionMarker::Before:
      return "before";
    case fb::MentionMarker::Negation:
      return "negation";
    case fb::MentionMarker::NegatedPhrase:
      return "negated_phrase";
    default:
      return r.mention_marker() ? "sentence" : "false";
  }
}

std::string Scopes(uint32_t mask) {
  std::string s;
  for (int i = 0; i < internal::kScopeCount; ++i) {
    if (mask & (1u << i))
      s += std::string(s.empty() ? "" : ",") + std::string(internal::kScopeNames[i]);
  }
  return s;
}

// The scopes a database serves (packs may name only the first, in `scope`).
std::string DatabaseScopes(const fb::Database& d) {
  return d.scopes() != 0 ? Scopes(d.scopes())
                         : std::string(internal::kScopeNames[static_cast<int>(d.scope())]);
}

// Hyperscan's size of a database, whether or not the pack stores it compressed.
uint64_t DatabaseBytes(const fb::Database& d) {
  return d.encoding() == fb::BlobEncoding::Lz4Block ? d.raw_size() : d.blob_size();
}

std::string StoredAs(const fb::Database& d) {
  if (d.encoding() != fb::BlobEncoding::Lz4Block) return "";
  return " (lz4 " + std::to_string(d.blob_size()) + ")";
}

void J(std::string_view s, std::string* out) { internal::AppendJsonString(s, out); }

// The patterns' expressions, in pattern order: from the pattern-text blob when the pack has one
// (bounds, its BLAKE2b-256 against the digest in the tables, LZ4 decoding to the declared size and
// the FlatBuffers verifier, in that order: nothing is read before its digest matched), else from
// Pattern.expression (packs written before the blob existed).
bool PatternExpressions(const fb::Pack& p, std::span<const uint8_t> blobs,
                        std::vector<std::string>* out, std::string* error) {
  const uint32_t n = p.patterns() ? p.patterns()->size() : 0;
  out->assign(n, std::string());
  if (p.pattern_text_size() == 0) {
    for (uint32_t k = 0; k < n; ++k) (*out)[k] = Str(p.patterns()->Get(k)->expression());
    return true;
  }
  if (!internal::PatternTextEntryOk(p, blobs.size())) {
    *error = "the pattern-text entry is malformed";
    return false;
  }
  const std::span<const uint8_t> stored =
      blobs.subspan(p.pattern_text_offset(), p.pattern_text_size());
  if (!internal::BlobMatchesDigest(
          stored, {p.pattern_text_digest()->data(), p.pattern_text_digest()->size()})) {
    *error = "the pattern-text blob does not match its digest";
    return false;
  }
  std::vector<uint8_t> decoded;
  std::span<const uint8_t> text = stored;
  if (p.pattern_text_encoding() == fb::BlobEncoding::Lz4Block) {
    constexpr uint64_t kMaxText = 64u << 20;  // inspect's own bound on what it will allocate
    if (p.pattern_text_raw_size() > kMaxText) {
      *error = "the pattern-text blob declares an implausible size";
      return false;
    }
    decoded.resize(p.pattern_text_raw_size());
    if (!internal::DecodeLz4Block(stored, decoded)) {
      *error = "the pattern-text blob does not decode";
      return false;
    }
    text = decoded;
  }
  flatbuffers::Verifier verifier(text.data(), text.size(), 32, 4u << 20);
  if (!verifier.VerifyBuffer<fb::PatternTexts>(nullptr)) {
    *error = "the pattern-text blob fails FlatBuffers verification";
    return false;
  }
  const auto* texts = flatbuffers::GetRoot<fb::PatternTexts>(text.data())->expressions();
  if (texts == nullptr || texts->size() != n) {
    *error = "the pattern-text blob does not hold one expression per pattern";
    return false;
  }
  for (uint32_t k = 0; k < n; ++k) (*out)[k] = Str(texts->Get(k));
  return true;
}

std::string WhenText(const fb::Pack& p, const fb::Rule& r) {
  // Postfix back to infix, fully parenthesized.
  std::vector<std::string> st;
  if (!r.when() || r.when()->size() == 0) return "";  // no when: (an empty program)
  for (const fb::WhenInstr* in : *r.when()) {
    switch (in->op()) {
      case fb::WhenOp::Rule:
        st.push_back(p.rules()->size() > in->arg() ? Str(p.rules()->Get(in->arg())->id()) : "?");
        break;
      case fb::WhenOp::Tag:
        st.push_back("tag:" + (p.tags() && p.tags()->size() > in->arg()
                                   ? Str(p.tags()->Get(in->arg()))
                                   : "?"));
        break;
      case fb::WhenOp::True:
        st.push_back("true");
        break;
      case fb::WhenOp::Not:
        if (!st.empty()) st.back() = "not " + st.back();
        break;
      case fb::WhenOp::And:
      case fb::WhenOp::Or: {
        if (st.size() < 2) return "?";
        std::string b = st.back();
        st.pop_back();
        st.back() = "(" + st.back() + (in->op() == fb::WhenOp::And ? " and " : " or ") + b + ")";
        break;
      }
    }
  }
  return st.size() == 1 ? st[0] : "?";
}

}  // namespace

bool RenderPack(std::span<const uint8_t> bytes, bool json, bool verified, std::string* out,
                std::string* error) {
  internal::EnvelopeHeader h;
  internal::EnvelopeParts parts;
  if (internal::UNVERIFIED_PeekHeader(bytes, &h, &parts, error) != DOBERMAN_OK) return false;
  const std::span<const uint8_t> payload = parts.payload;
  flatbuffers::Verifier verifier(payload.data(), payload.size(), 32, 4u << 20);
  if (!fb::VerifyPackBuffer(verifier)) {
    *error = "payload fails FlatBuffers verification";
    return false;
  }
  const fb::Pack& p = *fb::GetPack(payload.data());
  std::vector<std::string> expressions;
  if (!PatternExpressions(p, parts.blobs, &expressions, error)) return false;
  const uint32_t nrules = p.rules() ? p.rules()->size() : 0;
  const uint32_t npatterns = p.patterns() ? p.patterns()->size() : 0;
  size_t db_bytes = 0, stored_bytes = 0;
  if (p.databases()) {
    for (const fb::Database* d : *p.databases()) {
      db_bytes += DatabaseBytes(*d);
      stored_bytes += d->blob_size();
    }
  }
  std::string& o = *out;
  if (!json) {
    o += "pack         " + Str(p.name()) + " " + Str(p.version()) + " (revision " +
         std::to_string(h.revision) + ")\n";
    if (!Str(p.description()).empty()) o += "description  " + Str(p.description()) + "\n";
    o += "created      " + Time(h.created_unix) + "\n";
    o += "expires      " + Time(h.expires_unix) + "\n";
    o += "key id       " + Hex(h.key_id.data(), h.key_id.size()) +
         (verified ? " (signature verified)" : " (signature not checked; use verify)") + "\n";
    o += "hyperscan    " + h.hs_version + "\n";
    std::string platforms;
    if (p.databases()) {
      for (const fb::Database* d : *p.databases()) {
        std::string pl = Str(d->platform());
        if (platforms.find(pl) == std::string::npos)
          platforms += (platforms.empty() ? "" : ", ") + pl;
      }
    }
    o += "platforms    " + platforms + "\n";
    o += "size         " + std::to_string(bytes.size()) + " bytes (databases " +
         std::to_string(db_bytes) + ", stored in " + std::to_string(stored_bytes) + ")\n";
    o += "sources      xxh3-128 " + Str(p.sources_digest()) + "\n";
    o +=
        "rules        " + std::to_string(nrules) + ", patterns " + std::to_string(npatterns) + "\n";
    if (p.databases()) {
      for (const fb::Database* d : *p.databases()) {
        o += "database     " + DatabaseScopes(*d) + (d->conditional() ? " (conditional)" : "") +
             ", " + Str(d->platform()) + ", " +
             std::to_string(d->pattern_ids() ? d->pattern_ids()->size() : 0) + " patterns, " +
             std::to_string(DatabaseBytes(*d)) + " bytes" + StoredAs(*d) + "\n";
      }
    }
    o += "\n";
    for (uint32_t i = 0; i < nrules; ++i) {
      const fb::Rule& r = *p.rules()->Get(i);
      o += Str(r.id()) + "  [" + Str(r.family()) + "] " + VerdictName(r.verdict()) + " tier " +
           std::to_string(r.tier()) + "  scopes " + Scopes(r.scopes()) + "  reason " +
           Str(r.reason()) + "  (" + Str(r.source()) + ")\n";
      std::string when = WhenText(p, r);
      if (!when.empty()) o += "    when " + when + "\n";
      for (uint32_t k = 0; k < npatterns; ++k) {
        const fb::Pattern& pat = *p.patterns()->Get(k);
        if (pat.rule() != i) continue;
        o += std::string("    ") + RoleName(pat.role()) + " " + expressions[k] + "\n";
      }
    }
    return true;
  }
  o += "{\"header\":{\"name\":";
  J(Str(p.name()), &o);
  o += ",\"version\":";
  J(Str(p.version()), &o);
  o += ",\"revision\":" + std::to_string(h.revision) +
       ",\"created\":" + std::to_string(h.created_unix) +
       ",\"expires\":" + std::to_string(h.expires_unix) + ",\"key_id\":";
  J(Hex(h.key_id.data(), h.key_id.size()), &o);
  o += ",\"signature_verified\":" + std::string(verified ? "true" : "false") + ",\"hs_version\":";
  J(h.hs_version, &o);
  o += ",\"size\":" + std::to_string(bytes.size()) +
       ",\"database_bytes\":" + std::to_string(db_bytes) +
       ",\"stored_database_bytes\":" + std::to_string(stored_bytes) + ",\"sources_digest\":";
  J(Str(p.sources_digest()), &o);
  o += ",\"databases\":[";
  if (p.databases()) {
    for (uint32_t i = 0; i < p.databases()->size(); ++i) {
      const fb::Database* d = p.databases()->Get(i);
      o += std::string(i ? "," : "") + "{\"scope\":";
      J(DatabaseScopes(*d), &o);
      o += ",\"platform\":";
      J(Str(d->platform()), &o);
      o += ",\"patterns\":" + std::to_string(d->pattern_ids() ? d->pattern_ids()->size() : 0) +
           ",\"bytes\":" + std::to_string(DatabaseBytes(*d)) +
           ",\"stored_bytes\":" + std::to_string(d->blob_size()) +
           ",\"conditional\":" + (d->conditional() ? "true" : "false") + ",\"ids\":[";
      if (d->pattern_ids()) {
        for (uint32_t k = 0; k < d->pattern_ids()->size(); ++k) {
          o += std::string(k ? "," : "") + std::to_string(d->pattern_ids()->Get(k));
        }
      }
      o += "]}";
    }
  }
  o += "]},\"rules\":[";
  for (uint32_t i = 0; i < nrules; ++i) {
    const fb::Rule& r = *p.rules()->Get(i);
    o += std::string(i ? "," : "") + "{\"id\":";
    J(Str(r.id()), &o);
    o += ",\"family\":";
    J(Str(r.family()), &o);
    o += ",\"scopes\":";
    J(Scopes(r.scopes()), &o);
    o += ",\"verdict\":\"" + std::string(VerdictName(r.verdict())) +
         "\",\"tier\":" + std::to_string(r.tier()) + ",\"reason\":";
    J(Str(r.reason()), &o);
    o += ",\"message\":";
    J(Str(r.message()), &o);
    o += ",\"tags\":[";
    if (r.tags()) {
      for (uint32_t t = 0; t < r.tags()->size(); ++t) {
        if (t) o += ",";
        J(p.tags() && p.tags()->size() > r.tags()->Get(t) ? Str(p.tags()->Get(r.tags()->Get(t)))
                                                          : "?",
          &o);
      }
    }
    o += "],\"when\":";
    J(WhenText(p, r), &o);
    const fb::Validators* v = r.validators();
    o += ",\"validators\":{\"min_entropy\":" + std::to_string(v ? v->min_entropy() : 0.0f) +
         ",\"min_length\":" + std::to_string(v ? v->min_length() : 0) +
         ",\"placeholder\":" + (v && v->placeholder() ? "true" : "false") +
         ",\"exempt_hashes\":" + (v && v->exempt_hashes() ? "true" : "false") +
         ",\"exempt_identifiers\":" + (v && v->exempt_identifiers() ? "true" : "false") + "}";
    o += ",\"decode\":" + std::string(r.decode() ? "true" : "false") +
         ",\"origins\":" + std::to_string(r.origins()) + ",\"mention\":\"" +
         VerdictName(r.mention_cap()) + "\",\"mention_marker\":\"" + MarkerName(r) +
         "\",\"patterns\":[";
    bool first = true;
    for (uint32_t k = 0; k < npatterns; ++k) {
      const fb::Pattern& pat = *p.patterns()->Get(k);
      if (pat.rule() != i) continue;
      o += std::string(first ? "" : ",") + "{\"role\":\"" + RoleName(pat.role()) + "\",\"regex\":";
      J(expressions[k], &o);
      o += ",\"flags\":" + std::to_string(pat.flags()) +
           ",\"som\":" + (pat.som() ? "true" : "false") + "}";
      first = false;
    }
    o += "]}";
  }
  o += "]}\n";
  return true;
}

}  // namespace doberman::compiler
