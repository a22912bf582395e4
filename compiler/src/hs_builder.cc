// Pattern validation and database compilation. Patterns are checked one by one first
// (hs_expression_info), so every bad pattern is reported with its own location; then each scope's
// set is compiled, and a failure that only shows in the set (size, SOM) is mapped back by index.
#include "hs_builder.h"

#include <hs/hs.h>

#include <algorithm>
#include <map>
#include <regex>
#include <span>

#include "content_gates.h"

namespace doberman::compiler {
namespace {

hs_platform_info_t Platform(const std::string& name) {
  hs_platform_info_t p{};
  p.tune = HS_TUNE_FAMILY_GENERIC;
  p.cpu_features = 0;
  if (name == "avx2") p.cpu_features = HS_CPU_FEATURES_AVX2;
  if (name == "avx512") p.cpu_features = HS_CPU_FEATURES_AVX2 | HS_CPU_FEATURES_AVX512;
  return p;
}

unsigned int EffectiveFlags(const IrPattern& p) {
  // SINGLEMATCH keeps callbacks to one per pattern and unit where no span is needed; SOM cannot be
  // combined with it (toolchain.md pitfall 4).
  if (p.som) return p.hs_flags | HS_FLAG_SOM_LEFTMOST;
  return p.hs_flags | (p.every_match ? 0u : HS_FLAG_SINGLEMATCH);
}

// Hyperscan reports positions as "at index N"; move the caret there when it does.
Loc ErrorLoc(const IrPattern& p, const std::string& message) {
  std::smatch m;
  static const std::regex kIndex("index ([0-9]+)");
  if (std::regex_search(message, m, kIndex)) {
    return PatternTextLoc(p.loc, p.content_offset,
                          SourceOffset(p.fragment_uses, std::stoul(m[1].str())), 1);
  }
  return PatternTextLoc(p.loc, p.content_offset, 0, std::max<size_t>(1, p.expression.size()));
}

bool ValidatePatterns(const IrPack& pack, Diagnostics& diags, std::vector<bool>* valid) {
  valid->assign(pack.patterns.size(), true);
  for (size_t i = 0; i < pack.patterns.size(); ++i) {
    const IrPattern& p = pack.patterns[i];
    hs_expr_info_t* info = nullptr;
    hs_compile_error_t* err = nullptr;
    const IrRule& rule = pack.rules[p.rule];
    if (hs_expression_info(p.expression.c_str(), EffectiveFlags(p), &info, &err) != HS_SUCCESS) {
      std::string msg = err ? err->message : "unknown error";
      diags.Error(DiagCode::E4001, ErrorLoc(p, msg),
                  "invalid pattern in rule '" + rule.id + "': " + msg, "Hyperscan rejects this",
                  "patterns use Hyperscan (PCRE subset) syntax");
      hs_free_compile_error(err);
      (*valid)[i] = false;
      continue;
    }
    if (info->min_width == 0 && p.role != Role::kNone) {
      const Loc loc =
          PatternTextLoc(p.loc, p.content_offset, 0, std::max<size_t>(1, p.expression.size()));
      diags.Error(DiagCode::E4002, loc,
                  "pattern in rule '" + rule.id + "' can match the empty string",
                  "matches without consuming input", "anchor it or require at least one character");
      (*valid)[i] = false;
    }
    free(info);
  }
  return !diags.has_errors();
}

// An all/none pattern of a rule that also has any patterns cannot change anything in a unit where
// none of that rule's any patterns matched, so it is compiled apart and scanned only after one did.
// (Mention-marker rules are excluded: their matches are recorded whether or not the rule fires.)
// Such patterns were half of the command database's scan time (64 of 257 patterns).
std::vector<bool> Conditions(const IrPack& pack) {
  std::vector<bool> rule_has_any(pack.rules.size(), false);
  for (const IrPattern& p : pack.patterns) {
    if (p.role == Role::kAny) rule_has_any[p.rule] = true;
  }
  std::vector<bool> condition(pack.patterns.size(), false);
  for (size_t i = 0; i < pack.patterns.size(); ++i) {
    const IrPattern& p = pack.patterns[i];
    condition[i] = p.role != Role::kAny && rule_has_any[p.rule] &&
                   pack.rules[p.rule].mention_marker == internal::MarkerKind::kNone;
  }
  return condition;
}

// A scope's conditional patterns get a database of their own only when they are many: then the
// common unit, where no trigger matched, skips a real share of the work. When they are few, folding
// them into the trigger database costs the scan little and saves the second pass that a large
// unit nearly always pays (some trigger matches somewhere in a mebibyte of content). Measured on
// the default pack: folding the command scope's 74 conditions into its 158 triggers made 200-byte
// commands 1.2x slower; on 1 MiB of content the separate conditional pass cost +0.22 ms against
// +0.06 ms folded (issue 17's measurement).
bool KeepConditionsApart(size_t triggers, size_t conditions) {
  return conditions * 4 >= triggers && conditions > 0;
}

// In the prose scopes (typed prompts, tool output) a scope that folds its conditions still keeps
// those with a start of match apart, in one conditional database. Hyperscan tracks a start of match
// from every place such a pattern could begin, and an excuse of a sentence ("never share your
// password ...") can begin at common words, so folded it is paid on every byte of every prompt: two
// such excuses cost typed prompts 17 % and fetched text 13 % more instructions per decision. Apart,
// it is paid only where its rule's trigger matched. Command segments are short and their triggers
// match often, so there the separate pass costs more than the tracking (200-byte commands +14 %
// with every start-of-match condition apart; docs/performance.md).
bool KeepStartOfMatchApart(int scope) {
  return scope == internal::kScopePrompt || scope == internal::kScopePromptText;
}

// One trigger database per scope, holding every pattern whose rule serves the scope, so that a
// unit costs one hs_scan (plus its conditional database, when it has one and a trigger asked for
// it). Scopes whose pattern lists are identical share one database. Grouping by the exact set of
// scopes a rule serves, as earlier packs did, stored each pattern once but scanned a command line
// with three databases and 4 KiB of content with three (issue 17: 9.6 hs_scan calls per 200-byte
// command; Hyperscan's start-up in each database was 65 % of the time).
struct DatabaseGroup {
  uint32_t scopes = 0;  // the scopes it serves
  bool conditional = false;
  std::vector<uint32_t> ids;  // pattern indices, pack order
};

// The family a rule's conditions are kept with: the second part of its id ("destructive.rm.x" and
// "signal.rm.y" are both "rm"), or the whole id when it has fewer than three parts. Rules of one
// family are triggered by the same commands (rm, find, git, an interpreter), so a unit whose
// trigger matched scans their conditions together and leaves the other families' databases alone.
std::string ConditionFamily(const std::string& rule_id) {
  const size_t first = rule_id.find('.');
  const size_t second = first == std::string::npos ? first : rule_id.find('.', first + 1);
  if (second == std::string::npos) return rule_id;
  return rule_id.substr(first + 1, second - first - 1);
}

// Splits a scope's conditional patterns into at most `budget` databases by rule family (above),
// merging the two smallest while there are too many. A unit then scans only the conditional
// databases of the rules whose triggers matched it (pack.cc gives each pattern that mask): one
// database of 128 conditions cost about 1 µs per triggered command segment, where a trigger
// needs only its own rules' few patterns. Order: by first pattern, so a build is reproducible.
std::vector<std::vector<uint32_t>> SplitConditions(const IrPack& pack,
                                                   const std::vector<uint32_t>& conditions,
                                                   size_t budget) {
  std::map<std::string, std::vector<uint32_t>> by_family;
  for (uint32_t id : conditions)
    by_family[ConditionFamily(pack.rules[pack.patterns[id].rule].id)].push_back(id);
  std::vector<std::vector<uint32_t>> clusters;
  for (auto& [family, ids] : by_family) clusters.push_back(std::move(ids));
  budget = std::max<size_t>(budget, 1);
  while (clusters.size() > budget) {
    std::sort(clusters.begin(), clusters.end(), [](const auto& a, const auto& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    clusters[1].insert(clusters[1].end(), clusters[0].begin(), clusters[0].end());
    std::sort(clusters[1].begin(), clusters[1].end());
    clusters.erase(clusters.begin());
  }
  std::sort(clusters.begin(), clusters.end());
  return clusters;
}

// How many conditional databases a scope may have: what the pack's group limit leaves after one
// trigger database per scope and the gated ones (below), shared among the scopes that keep
// conditions apart, and no more than kMaxConditionDatabases (each database costs its own header
// and a slot in the tables).
constexpr size_t kMaxConditionDatabases = 12;

// Content gates (runtime/format/content_gates.h): the content patterns of rules whose `when:` is
// settled before the content is scanned go to databases of their own, one per distinct `when`, so
// that a call where it is false leaves them unscanned. The instructions an agent instruction file
// gives (`when: tag:agent_instructions`) and the code rules of source files (`tag:source_code`)
// then cost nothing on other files: on the bench's 4 KiB writes, the content database without the
// first alone scanned 18 % faster. The runtime reads the rules again to decide what it may skip.
// At most kMaxGateDatabases: the smallest groups beyond stay in the trigger database.
constexpr size_t kMaxGateDatabases = 4;

// Takes the patterns of `groups` (databases of their own) out of a scope's `triggers`.
void RemoveGrouped(const std::vector<std::vector<uint32_t>>& groups, size_t pattern_count,
                   std::vector<uint32_t>* triggers) {
  std::vector<bool> grouped(pattern_count, false);
  for (const std::vector<uint32_t>& g : groups) {
    for (uint32_t id : g) grouped[id] = true;
  }
  std::erase_if(*triggers, [&](uint32_t id) { return grouped[id]; });
}

std::vector<std::vector<uint32_t>> SplitContentGates(const IrPack& pack,
                                                     std::vector<uint32_t>* triggers) {
  const std::vector<uint8_t> gated =
      internal::ReadContentGates(std::span<const IrRule>(pack.rules), pack.tags.size()).gated;
  std::map<std::vector<std::pair<uint8_t, uint32_t>>, std::vector<uint32_t>> by_when;
  for (uint32_t id : *triggers) {
    const IrRule& rule = pack.rules[pack.patterns[id].rule];
    if (!gated[pack.patterns[id].rule]) continue;
    std::vector<std::pair<uint8_t, uint32_t>> key;
    for (const internal::WhenInstr& in : rule.when)
      key.emplace_back(static_cast<uint8_t>(in.op), in.arg);
    by_when[key].push_back(id);
  }
  std::vector<std::vector<uint32_t>> groups;
  for (auto& [when, ids] : by_when) groups.push_back(std::move(ids));
  // Largest first (then by first pattern, for a stable pack); the rest stay in the triggers.
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  if (groups.size() > kMaxGateDatabases) groups.resize(kMaxGateDatabases);
  std::sort(groups.begin(), groups.end());
  RemoveGrouped(groups, pack.patterns.size(), triggers);
  return groups;
}

// Origin groups: in the prompt scopes, the patterns of rules that read some origins only (the
// untrusted-text rules' `origins: [pasted, tool_fetched]`) go to a database per distinct origin
// set, when it holds at least kMinOriginGroup patterns, and a unit of another origin skips it:
// the callback would drop every match of it (OnMatch). A typed prompt then leaves the 299
// untrusted-text patterns unscanned: the prompt database over the bench's prompts scanned 43 %
// faster without them. Smaller sets stay in the trigger database.
constexpr size_t kMinOriginGroup = 16;

std::vector<std::vector<uint32_t>> SplitOrigins(const IrPack& pack,
                                                std::vector<uint32_t>* triggers) {
  std::map<uint32_t, std::vector<uint32_t>> by_origins;
  for (uint32_t id : *triggers) {
    const uint32_t origins = pack.rules[pack.patterns[id].rule].origins;
    if (origins != internal::kAllOrigins) by_origins[origins].push_back(id);
  }
  std::vector<std::vector<uint32_t>> groups;
  for (auto& [origins, ids] : by_origins) {
    if (ids.size() >= kMinOriginGroup) groups.push_back(std::move(ids));
  }
  RemoveGrouped(groups, pack.patterns.size(), triggers);
  return groups;
}

std::vector<DatabaseGroup> GroupPerScope(const IrPack& pack) {
  const std::vector<bool> is_condition = Conditions(pack);
  // Each scope's triggers and the conditions it keeps apart (folded into the triggers when few).
  struct ScopePatterns {
    std::vector<uint32_t> triggers, conditions;
    std::vector<uint32_t> start_of_match;  // conditions kept apart in one database of their own
  };
  std::vector<ScopePatterns> scopes(internal::kScopeCount);
  size_t scopes_apart = 0;
  for (int scope = 0; scope < internal::kScopeCount; ++scope) {
    ScopePatterns& sp = scopes[scope];
    for (uint32_t i = 0; i < pack.patterns.size(); ++i) {
      if ((pack.rules[pack.patterns[i].rule].scopes & (1u << scope)) == 0) continue;
      (is_condition[i] ? sp.conditions : sp.triggers).push_back(i);
    }
    if (!KeepConditionsApart(sp.triggers.size(), sp.conditions.size())) {
      std::vector<uint32_t> kept;
      for (uint32_t id : sp.conditions) {
        if (KeepStartOfMatchApart(scope) && pack.patterns[id].som)
          kept.push_back(id);
        else
          sp.triggers.push_back(id);
      }
      std::sort(sp.triggers.begin(), sp.triggers.end());
      sp.conditions.clear();
      sp.start_of_match = std::move(kept);
    }
    scopes_apart += sp.conditions.empty() ? 0 : 1;
  }
  const std::vector<std::vector<uint32_t>> gates =
      SplitContentGates(pack, &scopes[internal::kScopeContent].triggers);
  std::vector<std::vector<std::vector<uint32_t>>> origin_groups(internal::kScopeCount);
  size_t extra = gates.size();
  for (const ScopePatterns& sp : scopes) extra += sp.start_of_match.empty() ? 0 : 1;
  for (int scope : {internal::kScopePrompt, internal::kScopePromptText}) {
    origin_groups[scope] = SplitOrigins(pack, &scopes[scope].triggers);
    extra += origin_groups[scope].size();
  }
  const size_t budget =
      scopes_apart == 0
          ? 1
          : std::min(kMaxConditionDatabases, (internal::kMaxDatabaseGroups -
                                              static_cast<size_t>(internal::kScopeCount) - extra) /
                                                 scopes_apart);
  std::vector<DatabaseGroup> groups;
  auto add = [&](uint32_t scope_bit, bool conditional, std::vector<uint32_t> ids) {
    if (ids.empty()) return;
    for (DatabaseGroup& g : groups) {
      if (g.conditional == conditional && g.ids == ids) {
        g.scopes |= scope_bit;
        return;
      }
    }
    groups.push_back({scope_bit, conditional, std::move(ids)});
  };
  for (int scope = 0; scope < internal::kScopeCount; ++scope) {
    const uint32_t bit = 1u << scope;
    add(bit, false, std::move(scopes[scope].triggers));
    if (scope == internal::kScopeContent) {
      for (const std::vector<uint32_t>& gate : gates) groups.push_back({bit, false, gate});
    }
    for (std::vector<uint32_t>& group : origin_groups[scope]) add(bit, false, std::move(group));
    if (!scopes[scope].conditions.empty()) {
      for (std::vector<uint32_t>& cluster : SplitConditions(pack, scopes[scope].conditions, budget))
        add(bit, true, std::move(cluster));
    }
    add(bit, true, std::move(scopes[scope].start_of_match));
  }
  return groups;
}

// One database per exact set of scopes a rule serves, so that a unit is scanned only with patterns
// that can apply to it. Groups of a few patterns join the largest group serving a superset of their
// scopes (the runtime filters matches by rule scope) to save a scan call per unit; each group is
// split into its triggers and its conditions.
std::vector<DatabaseGroup> GroupByRuleScopes(const IrPack& pack) {
  constexpr size_t kSmallGroup = 4;
  std::map<uint32_t, size_t> sizes;
  for (const IrPattern& p : pack.patterns) ++sizes[pack.rules[p.rule].scopes];
  std::map<uint32_t, uint32_t> merged_into;
  for (const auto& [mask, count] : sizes) {
    uint32_t target = mask;
    if (count <= kSmallGroup) {
      size_t best = count;
      for (const auto& [other, other_count] : sizes) {
        if (other != mask && (other & mask) == mask && other_count > kSmallGroup &&
            other_count > best) {
          best = other_count;
          target = other;
        }
      }
    }
    merged_into[mask] = target;
  }
  const std::vector<bool> is_condition = Conditions(pack);
  std::vector<uint32_t> masks;
  for (const IrPattern& p : pack.patterns) {
    const uint32_t g = merged_into[pack.rules[p.rule].scopes];
    if (std::find(masks.begin(), masks.end(), g) == masks.end()) masks.push_back(g);
  }
  // Stable order: by lowest scope served, then by mask.
  std::sort(masks.begin(), masks.end(), [](uint32_t a, uint32_t b) {
    const int la = __builtin_ctz(a), lb = __builtin_ctz(b);
    return la != lb ? la < lb : a < b;
  });
  std::vector<DatabaseGroup> groups;
  for (const uint32_t mask : masks) {
    for (const bool conditional : {false, true}) {
      DatabaseGroup g{0, conditional, {}};
      for (uint32_t i = 0; i < pack.patterns.size(); ++i) {
        if (merged_into[pack.rules[pack.patterns[i].rule].scopes] != mask ||
            is_condition[i] != conditional) {
          continue;
        }
        g.ids.push_back(i);
        g.scopes |= pack.rules[pack.patterns[i].rule].scopes & mask;
      }
      if (!g.ids.empty()) groups.push_back(std::move(g));
    }
  }
  return groups;
}

}  // namespace

std::string HyperscanVersion() { return hs_version(); }

bool CompileDatabases(IrPack& pack, Diagnostics& diags, std::vector<CompiledDatabase>* out,
                      DatabaseLayout layout) {
  std::vector<bool> valid;
  if (!ValidatePatterns(pack, diags, &valid)) return false;
  const std::vector<DatabaseGroup> groups =
      layout == DatabaseLayout::kPerScope ? GroupPerScope(pack) : GroupByRuleScopes(pack);
  if (groups.size() > internal::kMaxDatabaseGroups) {
    diags.Error(DiagCode::E4004, pack.manifest_loc,
                "rules need " + std::to_string(groups.size()) + " databases; a pack holds " +
                    std::to_string(internal::kMaxDatabaseGroups) + " database groups at most",
                "", "give rules of the same kind the same scopes");
    return false;
  }
  // A pattern lives in every database of the scopes it serves; one the set compiler rejects is
  // reported once and left out of the other databases too.
  std::vector<bool> rejected(pack.patterns.size(), false);
  for (uint32_t group_index = 0; group_index < groups.size(); ++group_index) {
    const bool conditional = groups[group_index].conditional;
    const uint32_t served = groups[group_index].scopes;
    std::vector<uint32_t> ids;
    for (uint32_t id : groups[group_index].ids) {
      if (!rejected[id]) ids.push_back(id);
    }
    if (ids.empty()) continue;
    const int scope = __builtin_ctz(served);
    for (const std::string& platform_name : pack.platforms) {
      hs_platform_info_t platform = Platform(platform_name);
      // Retry without each pattern the set compiler rejects, so that one run reports all of them.
      for (int attempt = 0; attempt < 32; ++attempt) {
        std::vector<const char*> exprs;
        std::vector<unsigned int> flags, hs_ids;
        for (uint32_t k = 0; k < ids.size(); ++k) {
          exprs.push_back(pack.patterns[ids[k]].expression.c_str());
          flags.push_back(EffectiveFlags(pack.patterns[ids[k]]));
          hs_ids.push_back(k);
        }
        hs_database_t* db = nullptr;
        hs_compile_error_t* err = nullptr;
        hs_error_t rc = hs_compile_multi(exprs.data(), flags.data(), hs_ids.data(),
                                         static_cast<unsigned int>(exprs.size()), HS_MODE_BLOCK,
                                         &platform, &db, &err);
        if (rc == HS_SUCCESS) {
          char* bytes = nullptr;
          size_t size = 0;
          if (hs_serialize_database(db, &bytes, &size) != HS_SUCCESS) {
            hs_free_database(db);
            diags.Error(DiagCode::E4004, pack.manifest_loc,
                        "Hyperscan could not serialize a database");
            return false;
          }
          CompiledDatabase cd;
          cd.scope = scope;
          cd.scopes = served;
          cd.conditional = conditional;
          cd.group = group_index;
          cd.platform = platform_name;
          cd.pattern_ids = ids;
          cd.bytes.assign(reinterpret_cast<uint8_t*>(bytes),
                          reinterpret_cast<uint8_t*>(bytes) + size);
          free(bytes);
          hs_free_database(db);
          out->push_back(std::move(cd));
          break;
        }
        std::string msg = err ? err->message : "unknown error";
        int index = err ? err->expression : -1;
        hs_free_compile_error(err);
        if (index < 0 || static_cast<size_t>(index) >= ids.size()) {
          diags.Error(DiagCode::E4004, pack.manifest_loc,
                      std::string("Hyperscan cannot compile the database of scope ") +
                          std::string(internal::kScopeNames[scope]) +
                          " and the scopes sharing it: " + msg,
                      "", "split the pack or simplify its largest patterns");
          return false;
        }
        const IrPattern& p = pack.patterns[ids[index]];
        diags.Error(DiagCode::E4003, ErrorLoc(p, msg),
                    "pattern in rule '" + pack.rules[p.rule].id + "' does not compile: " + msg,
                    p.som ? "needs a start-of-match, which makes it too complex" : "",
                    p.som ? "validators and mention checks need spans: simplify the pattern "
                            "(bounded repeats instead of large ranges)"
                          : "");
        rejected[ids[index]] = true;
        ids.erase(ids.begin() + index);
        if (ids.empty() || diags.capped()) return false;
      }
    }
  }
  return !diags.has_errors();
}

}  // namespace doberman::compiler
