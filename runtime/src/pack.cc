// LoadPack: authenticate, then verify structure, then deserialize (docs/architecture.md, "Where
// each promise is enforced"). Each failure has its own status. After this returns OK the decider
// trusts every index in the pack without re-checking.
#include "pack.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <tuple>

#include "blob_loader.h"
#include "content_gates.h"
#include "lz4_block.h"
#include "pack_generated.h"
#include "pattern_text.h"
#include "rollback_state.h"

namespace doberman::internal {
namespace {

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

doberman_verdict ToVerdict(fb::Verdict v) {
  switch (v) {
    case fb::Verdict::Pass:
      return DOBERMAN_PASS;
    case fb::Verdict::Auth:
      return DOBERMAN_AUTH;
    default:
      return DOBERMAN_BLOCK;
  }
}

doberman_status Fail(doberman_status status, std::string message, std::string* error) {
  *error = std::move(message);
  return status;
}

// Rules whose `when:` reads other rules must come after every rule they read (the compiler orders
// them), so one forward pass evaluates them. Checked here once so the decider can rely on it.
bool WhenOrderIsValid(const Pack& pack) {
  std::vector<uint32_t> last_when_rule_with_tag(pack.tags.size(), 0);
  std::vector<bool> tag_has_when_rule(pack.tags.size(), false);
  for (uint32_t i = 0; i < pack.rules.size(); ++i) {
    const RuleInfo& rule = pack.rules[i];
    if (rule.when.empty()) continue;
    size_t depth = 0;
    for (const WhenInstr& in : rule.when) {
      switch (in.op) {
        case WhenOp::kRule:
          if (in.arg >= i) return false;
          ++depth;
          break;
        case WhenOp::kTag:
          if (in.arg >= pack.tags.size()) return false;
          if (tag_has_when_rule[in.arg] && last_when_rule_with_tag[in.arg] >= i) return false;
          ++depth;
          break;
        case WhenOp::kTrue:
          ++depth;
          break;
        case WhenOp::kNot:
          if (depth < 1) return false;
          break;
        case WhenOp::kAnd:
        case WhenOp::kOr:
          if (depth < 2) return false;
          --depth;
          break;
        default:
          return false;
      }
      if (depth > 256) return false;
    }
    if (depth != 1) return false;
    for (uint32_t t : rule.tags) {
      tag_has_when_rule[t] = true;
      last_when_rule_with_tag[t] = i;
    }
  }
  // A tag read by a when-rule must not be carried by a later when-rule.
  for (uint32_t i = 0; i < pack.rules.size(); ++i) {
    for (const WhenInstr& in : pack.rules[i].when) {
      if (in.op == WhenOp::kTag && tag_has_when_rule[in.arg] &&
          last_when_rule_with_tag[in.arg] >= i)
        return false;
    }
  }
  return true;
}

doberman_status DecodeTables(const fb::Pack& fp, Pack* pack, std::string* error) {
  pack->name = Str(fp.name());
  pack->version = Str(fp.version());
  pack->description = Str(fp.description());
  pack->hs_version = Str(fp.hs_version());
  if (fp.tags()) {
    for (const auto* t : *fp.tags()) pack->tags.push_back(Str(t));
  }
  const uint32_t rule_count = fp.rules() ? fp.rules()->size() : 0;
  const uint32_t pattern_count = fp.patterns() ? fp.patterns()->size() : 0;
  if (rule_count == 0) return Fail(DOBERMAN_E_STRUCTURE, "pack has no rules", error);
  pack->rules.resize(rule_count);
  size_t text_bytes = 0;
  for (uint32_t i = 0; i < rule_count; ++i) {
    const fb::Rule* r = fp.rules()->Get(i);
    for (const flatbuffers::String* s : {r->id(), r->family(), r->reason(), r->message()})
      text_bytes += (s != nullptr ? s->size() : 0) + 1;
  }
  pack->rule_text = std::make_unique_for_overwrite<char[]>(text_bytes);
  char* text_end = pack->rule_text.get();
  auto keep = [&text_end](const flatbuffers::String* s) {
    const size_t size = s != nullptr ? s->size() : 0;
    if (size > 0) std::memcpy(text_end, s->data(), size);
    text_end[size] = '\0';
    const std::string_view kept(text_end, size);
    text_end += size + 1;
    return kept;
  };
  // Each rule's pattern list sized once (a hook process decodes every table on every call: growing
  // thousands of small vectors one push at a time was a large part of its allocations).
  std::vector<uint32_t> patterns_of_rule(rule_count, 0);
  for (uint32_t i = 0; i < pattern_count; ++i) {
    const uint32_t r = fp.patterns()->Get(i)->rule();
    if (r < rule_count) ++patterns_of_rule[r];
  }
  for (uint32_t i = 0; i < rule_count; ++i) {
    const fb::Rule* r = fp.rules()->Get(i);
    RuleInfo& rule = pack->rules[i];
    rule.id = keep(r->id());
    rule.family = keep(r->family());
    rule.secret_family = rule.family == "secret";
    rule.reason = keep(r->reason());
    rule.message = keep(r->message());
    rule.scopes = r->scopes();
    rule.verdict = ToVerdict(r->verdict());
    rule.tier = r->tier();
    if (rule.tier >= 1 && rule.verdict == DOBERMAN_BLOCK)
      rule.verdict = DOBERMAN_AUTH;  // tier 1 clamp
    rule.patterns.reserve(patterns_of_rule[i]);
    if (r->tags()) {
      rule.tags.reserve(r->tags()->size());
      for (uint32_t t : *r->tags()) {
        if (t >= pack->tags.size())
          return Fail(DOBERMAN_E_STRUCTURE, "rule tag out of range", error);
        rule.tags.push_back(t);
      }
    }
    if (r->when()) {
      rule.when.reserve(r->when()->size());
      for (const fb::WhenInstr* in : *r->when()) {
        WhenOp op;
        if (!WhenOpFromSchema(in->op(), &op))
          return Fail(DOBERMAN_E_STRUCTURE, "when-program operator out of range", error);
        rule.when.push_back({op, in->arg()});
      }
      if (!rule.when.empty()) pack->when_rules.push_back(i);
    }
    if (const fb::Validators* v = r->validators()) {
      rule.validators = {v->min_entropy(), v->min_length(), v->placeholder(), v->exempt_hashes(),
                         v->exempt_identifiers()};
    }
    rule.decode = r->decode();
    rule.origins = r->origins();
    rule.mention_cap = ToVerdict(r->mention_cap());
    // Packs written before `marker` existed say Sentence with the bool alone; a newer pack sets
    // both, and they must agree (pack.fbs).
    if (!MarkerKindFromSchema(r->marker(), &rule.mention_marker))
      return Fail(DOBERMAN_E_STRUCTURE, "rule has an unknown mention marker kind", error);
    if (rule.mention_marker == MarkerKind::kNone && r->mention_marker())
      rule.mention_marker = MarkerKind::kSentence;
    if (LegacyMentionMarker(rule.mention_marker) != r->mention_marker())
      return Fail(DOBERMAN_E_STRUCTURE, "rule's mention_marker and marker disagree", error);
    rule.has_patterns = r->has_patterns();
  }
  pack->patterns.resize(pattern_count);
  for (uint32_t i = 0; i < pattern_count; ++i) {
    const fb::Pattern* p = fp.patterns()->Get(i);
    PatternInfo& info = pack->patterns[i];
    if (p->rule() >= rule_count) {
      return Fail(DOBERMAN_E_STRUCTURE, "pattern refers to a rule out of range", error);
    }
    // A role this runtime does not know (a newer pack's) is refused: read as another role it
    // could loosen the rule.
    if (!RoleFromSchema(p->role(), &info.role)) {
      return Fail(DOBERMAN_E_STRUCTURE, "pattern has a role this runtime does not know", error);
    }
    info.rule = p->rule();
    info.som = p->som();
    RuleInfo& rule = pack->rules[info.rule];
    rule.patterns.push_back(i);
    (info.role == Role::kAny    ? rule.any_count
     : info.role == Role::kAll  ? rule.all_count
     : info.role == Role::kNone ? rule.none_count
                                : rule.excuse_count)++;
    // An excuse is a span: without a start it would excuse nothing, or everything before it.
    if (info.role == Role::kExcuse && !info.som) {
      return Fail(DOBERMAN_E_STRUCTURE, "an excuse pattern has no start of match", error);
    }
  }
  for (const RuleInfo& rule : pack->rules) {
    if (rule.has_patterns != (rule.any_count + rule.all_count > 0) ||
        (rule.excuse_count > 0 && (rule.any_count == 0 || rule.validators.Any()))) {
      return Fail(DOBERMAN_E_STRUCTURE,
                  "rule '" + std::string(rule.id) + "' pattern table is inconsistent", error);
    }
  }
  if (!WhenOrderIsValid(*pack)) {
    return Fail(DOBERMAN_E_STRUCTURE, "when-expressions are malformed or out of order", error);
  }
  // The pack's limits (the schema's defaults where a pack has none), mapped onto the runtime's.
  PackLimits pl;
  if (const fb::Limits* l = fp.limits()) {
#define DOBERMAN_LIMIT_READ(name, type, default_value) pl.name = l->name();
    DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_READ)
#undef DOBERMAN_LIMIT_READ
  }
  pack->limits.max_string_bytes = pl.max_string_bytes;
  pack->limits.max_content_bytes = pl.max_content_bytes;
  pack->limits.max_prompt_bytes = pl.max_prompt_bytes;
  pack->limits.max_units = pl.max_units;
  pack->limits.decode.max_runs = pl.max_decoded_runs;
  pack->limits.decode.max_run_bytes = pl.max_decoded_bytes;
  pack->limits.decode.min_base64 = pl.min_base64;
  pack->limits.decode.min_hex = pl.min_hex;
  ShellTables tables;
  ShellLimits shell_limits;
  shell_limits.max_segments = pl.max_segments;
  shell_limits.max_depth = pl.max_depth;
  shell_limits.max_bytes = pl.max_string_bytes;
  if (const fb::ShellTables* st = fp.shell()) {
    if (st->wrappers()) {
      for (const fb::Wrapper* w : *st->wrappers()) {
        WrapperSpec spec{Str(w->name()), {}, w->positional_args()};
        if (w->value_options()) {
          for (const auto* o : *w->value_options()) spec.value_options.push_back(Str(o));
        }
        tables.wrappers.push_back(std::move(spec));
      }
    }
    if (st->shells()) {
      for (const auto* s : *st->shells()) tables.shells.push_back(Str(s));
    }
    if (st->split_flag_commands()) {
      for (const auto* s : *st->split_flag_commands()) tables.split_flag_commands.push_back(Str(s));
    }
    if (st->stdin_programs()) {
      for (const auto* s : *st->stdin_programs()) tables.stdin_programs.push_back(Str(s));
    }
    if (st->runners()) {
      for (const auto* s : *st->runners()) tables.runners.push_back(Str(s));
    }
    if (st->aliases()) {
      for (const fb::FlagAlias* a : *st->aliases()) {
        tables.aliases.push_back({Str(a->command()), Str(a->from()), Str(a->to())});
      }
    }
  }
  pack->shell = std::make_unique<ShellNormalizer>(tables, shell_limits);
  return DOBERMAN_OK;
}

// Databases are grouped by the set of scopes they serve; each group may come in several platform
// variants. For each group the best variant this CPU runs is deserialized, then every scope lists
// the groups that serve it.
doberman_status DeserializeDatabases(const fb::Pack& fp, std::span<const uint8_t> blobs,
                                     uint32_t wanted_scopes, const BlobFetch& fetch_blob,
                                     const ImageCache* images, Pack* pack, std::string* error) {
  pack->loaded_scopes = kAllScopes;
  if (!fp.databases()) return DOBERMAN_OK;
  std::span<const char* const> preferred = PreferredPlatforms();
  // Databases with the same group id are platform variants of one pattern set; every group is
  // loaded. (The scope mask cannot identify a group: two conditional databases of different groups
  // may serve the same scopes.)
  struct Choice {
    uint32_t group;
    uint32_t mask;
    bool conditional;
    int rank;
    const fb::Database* db;
  };
  std::vector<Choice> chosen;
  std::vector<std::pair<uint32_t, std::string>> seen_variants;  // (group, platform)
  bool platform_missing = false;
  for (const fb::Database* d : *fp.databases()) {
    auto scope = static_cast<uint8_t>(d->scope());
    // The scope is checked before it is used as a shift (a value past 31 would be undefined).
    if (scope >= kScopeCount)
      return Fail(DOBERMAN_E_STRUCTURE, "database entry is malformed", error);
    const uint32_t mask = d->scopes() != 0 ? d->scopes() : (1u << scope);
    if ((mask >> kScopeCount) != 0 || !d->pattern_ids() || !d->blob_digest() ||
        d->blob_offset() > blobs.size() || d->blob_size() > blobs.size() - d->blob_offset()) {
      return Fail(DOBERMAN_E_STRUCTURE, "database entry is malformed", error);
    }
    // A decoded size is bounded by what the stored bytes can expand to and by the envelope's own
    // bound on stored bytes, so a pack cannot ask for more memory than its size justifies.
    const bool lz4 = d->encoding() == fb::BlobEncoding::Lz4Block;
    if ((d->encoding() != fb::BlobEncoding::Raw && !lz4) || (lz4 != (d->raw_size() != 0)) ||
        d->raw_size() > MaxLz4DecodedSize(d->blob_size()) || d->raw_size() > kMaxPayloadSize) {
      return Fail(DOBERMAN_E_STRUCTURE, "database entry has an unknown encoding or size", error);
    }
    const std::string platform = Str(d->platform());
    const std::pair<uint32_t, std::string> variant{d->group(), platform};
    if (std::find(seen_variants.begin(), seen_variants.end(), variant) != seen_variants.end()) {
      return Fail(DOBERMAN_E_STRUCTURE, "two databases claim the same group and platform", error);
    }
    seen_variants.push_back(variant);
    int rank = -1;
    for (size_t r = 0; r < preferred.size() && rank < 0; ++r) {
      if (platform == preferred[r]) rank = static_cast<int>(r);
    }
    const bool conditional = d->conditional();
    auto it = std::find_if(chosen.begin(), chosen.end(),
                           [&](const Choice& c) { return c.group == d->group(); });
    if (it == chosen.end()) {
      if (chosen.size() == kMaxDatabaseGroups) {
        return Fail(DOBERMAN_E_STRUCTURE, "pack has more database groups than this runtime allows",
                    error);
      }
      chosen.push_back({d->group(), mask, conditional, rank, d});
    } else {
      if (it->mask != mask || it->conditional != conditional) {
        return Fail(DOBERMAN_E_STRUCTURE,
                    "platform variants of a database group disagree on its scopes", error);
      }
      if (rank >= 0 && (it->rank < 0 || rank < it->rank)) {
        it->rank = rank;
        it->db = d;
      }
    }
  }
  for (const Choice& c : chosen) platform_missing = platform_missing || c.rank < 0;
  if (platform_missing) {
    return Fail(DOBERMAN_E_HS_PLATFORM, "no database variant in the pack runs on this CPU", error);
  }
  // Tables first (cheap, serial), then the blobs this handle needs (hashed and deserialized, maybe
  // on two threads), then results in pack order so the first failure reported does not depend on
  // timing.
  std::vector<std::unique_ptr<PackDatabase>> entries;
  std::vector<uint32_t> rule_conditions(pack->rules.size(), 0);  // bits of its conditional dbs
  uint32_t next_condition_bit = 1;  // at most kMaxDatabaseGroups (32) databases: one bit each
  std::vector<BlobJob> jobs;
  std::vector<size_t> job_of;  // per entry: index into jobs, or SIZE_MAX when not loaded
  for (const Choice& c : chosen) {
    auto entry = std::make_unique<PackDatabase>();
    entry->scopes = c.mask;
    entry->conditional = c.conditional;
    if (c.conditional) {
      entry->condition_bit = next_condition_bit;
      next_condition_bit <<= 1;
    }
    entry->pattern_ids.reserve(c.db->pattern_ids()->size());
    for (uint32_t id : *c.db->pattern_ids()) {
      if (id >= pack->patterns.size())
        return Fail(DOBERMAN_E_STRUCTURE, "pattern id out of range", error);
      const RuleInfo& rule = pack->rules[pack->patterns[id].rule];
      if ((rule.scopes & c.mask) == 0) {
        return Fail(DOBERMAN_E_STRUCTURE, "database holds a pattern outside its rule's scopes",
                    error);
      }
      // A conditional database may hold only what skipping it cannot change: all/none patterns of
      // rules that have any patterns, and no mention markers (their matches count even unfired).
      if (c.conditional && (pack->patterns[id].role == Role::kAny || rule.any_count == 0 ||
                            rule.mention_marker != MarkerKind::kNone)) {
        return Fail(DOBERMAN_E_STRUCTURE,
                    "conditional database holds a pattern that must always be scanned", error);
      }
      if (c.conditional) rule_conditions[pack->patterns[id].rule] |= entry->condition_bit;
      entry->pattern_ids.push_back(id);
      entry->origins |= rule.origins;
      if (rule.decode) {
        for (int s = 0; s < kScopeCount; ++s) {
          if ((rule.scopes & c.mask & (1u << s)) != 0) pack->scopes[s].has_decode_rules = true;
        }
      }
    }
    if ((c.mask & wanted_scopes) == 0) {
      pack->loaded_scopes &= ~c.mask;  // not needed by this handle: neither hashed nor deserialized
      job_of.push_back(SIZE_MAX);
    } else {
      // The blob is outside the signature: its digest, inside it, is what vouches for it.
      BlobJob job;
      job.offset = c.db->blob_offset();
      job.blob = blobs.subspan(c.db->blob_offset(), c.db->blob_size());
      job.digest = {c.db->blob_digest()->data(), c.db->blob_digest()->size()};
      job.decoded_size = c.db->raw_size();
      job_of.push_back(jobs.size());
      jobs.push_back(std::move(job));
    }
    entries.push_back(std::move(entry));
  }
  for (PatternInfo& p : pack->patterns) {
    p.conditions_to_scan = p.role == Role::kAny ? rule_conditions[p.rule] : 0;
    p.excusable =
        pack->rules[p.rule].excuse_count != 0 && (p.role == Role::kAny || p.role == Role::kExcuse);
  }
  // Content gates, read from the rules themselves whatever the compiler grouped: a database
  // serving only the content scope, every pattern of it a gated rule's, is gated by those rules.
  ContentGates gates = ReadContentGates(std::span<const RuleInfo>(pack->rules), pack->tags.size());
  const std::vector<uint8_t>& gated = gates.gated;
  for (const auto& entry : entries) {
    if (entry->conditional || entry->scopes != (1u << kScopeContent)) continue;
    std::vector<uint32_t> gate;
    bool all_gated = !entry->pattern_ids.empty();
    for (uint32_t id : entry->pattern_ids) {
      all_gated = all_gated && gated[pack->patterns[id].rule];
      gate.push_back(pack->patterns[id].rule);
    }
    if (!all_gated) continue;
    std::sort(gate.begin(), gate.end());
    gate.erase(std::unique(gate.begin(), gate.end()), gate.end());
    entry->gate_rules = std::move(gate);
    entry->gate_index = pack->gate_count++;
  }
  pack->settled_before_content = std::move(gates.settled);
  ScratchPrototypes prototypes;
  static_assert(std::tuple_size_v<ScratchPrototypes> == kScratchSlots);
  pack->scratch_from_record = OpenBlobs(jobs, fetch_blob, images, &prototypes);
  // Whatever happens below, every deserialized database and scratch ends up owned by the pack.
  for (size_t slot = 0; slot < kScratchSlots; ++slot) {
    pack->scratch_prototypes[slot].reset(prototypes[slot]);
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    if (job_of[e] == SIZE_MAX) continue;
    entries[e]->db = jobs[job_of[e]].db;
    entries[e]->memory = std::move(jobs[job_of[e]].memory);
    entries[e]->image = std::move(jobs[job_of[e]].image);
    entries[e]->scratch_slot = jobs[job_of[e]].scratch_slot;
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    if (job_of[e] == SIZE_MAX) continue;
    const BlobJob& job = jobs[job_of[e]];
    if (!job.fetched)
      return Fail(DOBERMAN_E_IO, "cannot read a database from the pack file", error);
    if (!job.digest_ok) {
      return Fail(
          DOBERMAN_E_SIGNATURE,
          "signature check failed for a database: it does not match the digest in the signed "
          "tables (the pack was modified after signing)",
          error);
    }
    if (job.undecodable) {
      return Fail(DOBERMAN_E_STRUCTURE,
                  "a database's stored bytes match their signed digest but do not decode to the "
                  "size the tables declare (the pack was built by a broken writer)",
                  error);
    }
    if (job.error == HS_DB_VERSION_ERROR) {
      return Fail(DOBERMAN_E_HS_VERSION,
                  "pack databases were compiled by Hyperscan " + pack->hs_version +
                      ", this runtime has " + hs_version(),
                  error);
    }
    if (job.error == HS_DB_PLATFORM_ERROR) {
      return Fail(DOBERMAN_E_HS_PLATFORM, "no database variant in the pack runs on this CPU",
                  error);
    }
    if (job.error == HS_NOMEM) {
      return Fail(DOBERMAN_E_NO_MEMORY, "out of memory for a database or its scratch", error);
    }
    if (job.error != HS_SUCCESS) {
      return Fail(DOBERMAN_E_HS_DESERIALIZE,
                  "Hyperscan refused a database (error " + std::to_string(job.error) + ")", error);
    }
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    if (job_of[e] == SIZE_MAX) continue;
    for (int s = 0; s < kScopeCount; ++s) {
      if ((entries[e]->scopes & (1u << s)) == 0) continue;
      (entries[e]->conditional ? pack->scopes[s].condition_dbs : pack->scopes[s].dbs)
          .push_back(entries[e].get());
    }
    pack->platform = Str(chosen[e].db->platform());
    pack->databases.push_back(std::move(entries[e]));
  }
  return DOBERMAN_OK;
}

// The pattern-text blob (the expressions `dobermanc inspect` shows; nothing here reads them): where
// it lies and how it is stored are checked on every load, and a load of every field checks its
// digest too, so that such a load still vouches for every byte of the file. Loads of some fields
// check only what they use, as for databases.
doberman_status CheckPatternText(const fb::Pack& fp, std::span<const uint8_t> blobs,
                                 bool every_field, const BlobFetch& fetch, std::string* error) {
  const uint64_t offset = fp.pattern_text_offset(), size = fp.pattern_text_size();
  if (!PatternTextEntryOk(fp, blobs.size()))
    return Fail(DOBERMAN_E_STRUCTURE, "the pattern-text entry is malformed", error);
  if (size == 0 || !every_field) return DOBERMAN_OK;
  std::span<const uint8_t> stored = blobs.subspan(offset, size);
  std::vector<uint8_t> read;
  if (fetch) {
    read.resize(size);
    if (!fetch(offset, size, read.data()))
      return Fail(DOBERMAN_E_IO, "cannot read the pattern text from the pack file", error);
    stored = read;
  }
  if (!BlobMatchesDigest(stored,
                         {fp.pattern_text_digest()->data(), fp.pattern_text_digest()->size()})) {
    return Fail(DOBERMAN_E_SIGNATURE,
                "signature check failed for the pattern text: it does not match the digest in the "
                "signed tables (the pack was modified after signing)",
                error);
  }
  return DOBERMAN_OK;
}

}  // namespace

uint32_t ScopesForFields(uint32_t fields) {
  static constexpr std::pair<doberman_field, uint32_t> kMap[] = {
      {DOBERMAN_FIELD_TOOL, 1u << kScopeTool},
      {DOBERMAN_FIELD_COMMAND, (1u << kScopeCommand) | (1u << kScopeCommandText)},
      {DOBERMAN_FIELD_PATH, 1u << kScopePath},
      {DOBERMAN_FIELD_CONTENT, 1u << kScopeContent},
      {DOBERMAN_FIELD_URL, 1u << kScopeUrl},
      {DOBERMAN_FIELD_ARGS, 1u << kScopeArgs},
      {DOBERMAN_FIELD_PROMPT, (1u << kScopePrompt) | (1u << kScopePromptText)}};
  uint32_t scopes = 0;
  for (const auto& [field, mask] : kMap) {
    if (fields & (1u << field)) scopes |= mask;
  }
  return scopes;
}

uint32_t FieldsOfCall(const doberman_call& call) {
  uint32_t fields = 0;
  auto mark = [&fields](const doberman_string& s, doberman_field field) {
    if (s.size > 0) fields |= 1u << field;
  };
  mark(call.tool, DOBERMAN_FIELD_TOOL);
  mark(call.command, DOBERMAN_FIELD_COMMAND);
  mark(call.path, DOBERMAN_FIELD_PATH);
  mark(call.content, DOBERMAN_FIELD_CONTENT);
  mark(call.url, DOBERMAN_FIELD_URL);
  for (size_t i = 0; i < call.arg_count; ++i) mark(call.args[i], DOBERMAN_FIELD_ARGS);
  for (size_t i = 0; i < call.prompt_count; ++i) mark(call.prompt[i].text, DOBERMAN_FIELD_PROMPT);
  return fields;
}

std::span<const char* const> PreferredPlatforms() {
  static const char* const kAvx512[] = {"avx512", "avx2", "generic"};
  static const char* const kAvx2[] = {"avx2", "generic"};
  static const char* const kGeneric[] = {"generic"};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) return kAvx512;
  if (__builtin_cpu_supports("avx2")) return kAvx2;
  return kGeneric;
}

doberman_status FUZZING_ONLY_DecodePayload(std::span<const uint8_t> payload, std::string* error) {
  flatbuffers::Verifier verifier(payload.data(), payload.size(), 32, 4u << 20);
  if (!fb::VerifyPackBuffer(verifier)) {
    return Fail(DOBERMAN_E_STRUCTURE, "payload fails FlatBuffers verification", error);
  }
  Pack pack;
  return DecodeTables(*fb::GetPack(payload.data()), &pack, error);
}

doberman_status FUZZING_ONLY_LoadUnsigned(std::span<const uint8_t> bytes, std::string* error) {
  Pack pack;
  EnvelopeParts parts;
  doberman_status s = UNVERIFIED_PeekHeader(bytes, &pack.header, &parts, error);
  if (s != DOBERMAN_OK) return s;
  flatbuffers::Verifier verifier(parts.payload.data(), parts.payload.size(), 32, 4u << 20);
  if (!fb::VerifyPackBuffer(verifier)) {
    return Fail(DOBERMAN_E_STRUCTURE, "payload fails FlatBuffers verification", error);
  }
  const fb::Pack* fp = fb::GetPack(parts.payload.data());
  if ((s = DecodeTables(*fp, &pack, error)) != DOBERMAN_OK) return s;
  if ((s = CheckPatternText(*fp, parts.blobs, /*every_field=*/false, nullptr, error)) !=
      DOBERMAN_OK)
    return s;
  return DeserializeDatabases(*fp, parts.blobs, kAllScopes, nullptr, nullptr, &pack, error);
}

doberman_status LoadPack(std::span<const uint8_t> bytes, const LoadOptions& options,
                         std::unique_ptr<Pack>* out, std::string* error) {
  auto pack = std::make_unique<Pack>();
  EnvelopeParts parts;
  if (options.trusted.empty())
    return Fail(DOBERMAN_E_ARGUMENT, "no trusted public key given", error);
  doberman_status s = OpenEnvelope(bytes, options.trusted, &pack->header, &parts, error);
  if (s != DOBERMAN_OK) return s;
  const std::span<const uint8_t> payload = parts.payload;

  // Authenticated from here on; still verify structure, since a signed pack may come from a buggy
  // compiler and Hyperscan databases are unsafe to deserialize when malformed.
  flatbuffers::Verifier verifier(payload.data(), payload.size(), /*max_depth=*/32,
                                 /*max_tables=*/4u << 20);
  if (!fb::VerifyPackBuffer(verifier)) {
    return Fail(DOBERMAN_E_STRUCTURE, "payload fails FlatBuffers verification", error);
  }
  const fb::Pack* fp = fb::GetPack(payload.data());
  if (Str(fp->hs_version()) != pack->header.hs_version) {
    return Fail(DOBERMAN_E_STRUCTURE, "header and payload disagree on the Hyperscan version",
                error);
  }
  if (pack->header.hs_version != hs_version()) {
    return Fail(DOBERMAN_E_HS_VERSION,
                "pack was compiled with Hyperscan " + pack->header.hs_version +
                    "; this runtime has " + hs_version(),
                error);
  }
  const int64_t now =
      options.now_unix != 0 ? options.now_unix : static_cast<int64_t>(std::time(nullptr));
  if (pack->header.expires_unix != 0 && now >= pack->header.expires_unix) {
    return Fail(DOBERMAN_E_EXPIRED,
                "pack expired at unix time " + std::to_string(pack->header.expires_unix), error);
  }
  if ((s = DecodeTables(*fp, pack.get(), error)) != DOBERMAN_OK) return s;
  if ((s = CheckPatternText(*fp, parts.blobs, options.scopes == kAllScopes, options.fetch_blob,
                            error)) != DOBERMAN_OK) {
    return s;
  }
  if ((s = DeserializeDatabases(*fp, parts.blobs, options.scopes, options.fetch_blob,
                                options.images, pack.get(), error)) != DOBERMAN_OK) {
    return s;
  }
  pack->adopt_prototypes = options.scopes != kAllScopes;
  if (options.state_path != nullptr) {
    s = CheckAndRecordRevision(options.state_path, pack->name, pack->header.revision, error);
    if (s != DOBERMAN_OK) return s;
  }
  *out = std::move(pack);
  return DOBERMAN_OK;
}

}  // namespace doberman::internal
