// Pattern validation and database compilation. Patterns are checked one by one first
// (hs_expression_info), so every bad pattern is reported with its own location; then each scope's
// set is compiled, and a failure that only shows in the set (size, SOM) is mapped back by index.
#include "hs_builder.h"

#include <hs/hs.h>

#include <algorithm>
#include <map>
#include <regex>

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
  Loc loc = p.loc;
  loc.column += p.content_offset;
  loc.length = 1;
  std::smatch m;
  static const std::regex kIndex("index ([0-9]+)");
  if (std::regex_search(message, m, kIndex)) {
    loc.column += static_cast<uint32_t>(std::stoul(m[1].str()));
  } else {
    loc.length = static_cast<uint32_t>(std::max<size_t>(1, p.expression.size()));
  }
  return loc;
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
      Loc loc = p.loc;
      loc.column += p.content_offset;
      loc.length = static_cast<uint32_t>(std::max<size_t>(1, p.expression.size()));
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
    condition[i] =
        p.role != Role::kAny && rule_has_any[p.rule] && !pack.rules[p.rule].mention_marker;
  }
  return condition;
}

// One database per exact set of scopes a rule serves, so that a unit is scanned only with patterns
// that can apply to it: a shared database made every 4 KiB write pay for command-only patterns
// (3.8x slower scans, bench/hs_cost.cc). Groups of a few patterns join the largest group serving a
// superset of their scopes (the runtime filters matches by rule scope) to save a scan call per
// unit. `group_of[i]` is the scope mask of the group pattern i is compiled into.
std::vector<uint32_t> GroupByScopes(const IrPack& pack, std::vector<uint32_t>* group_of) {
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
  group_of->clear();
  std::vector<uint32_t> groups;
  for (const IrPattern& p : pack.patterns) {
    const uint32_t g = merged_into[pack.rules[p.rule].scopes];
    group_of->push_back(g);
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  // Stable order: by lowest scope served, then by mask (the pack's bytes must not depend on rule
  // order more than they already do).
  std::sort(groups.begin(), groups.end(), [](uint32_t a, uint32_t b) {
    const int la = __builtin_ctz(a), lb = __builtin_ctz(b);
    return la != lb ? la < lb : a < b;
  });
  return groups;
}

}  // namespace

std::string HyperscanVersion() { return hs_version(); }

bool CompileDatabases(IrPack& pack, Diagnostics& diags, std::vector<CompiledDatabase>* out) {
  std::vector<bool> valid;
  if (!ValidatePatterns(pack, diags, &valid)) return false;
  std::vector<uint32_t> group_of;
  const std::vector<uint32_t> scope_groups = GroupByScopes(pack, &group_of);
  // Each scope group is split in two: triggers, and conditions (Conditions) scanned only when
  // needed.
  const std::vector<bool> is_condition = Conditions(pack);
  std::vector<std::pair<uint32_t, bool>> groups;
  for (const uint32_t g : scope_groups) {
    for (const bool conditional : {false, true}) {
      for (uint32_t i = 0; i < pack.patterns.size(); ++i) {
        if (group_of[i] == g && is_condition[i] == conditional) {
          groups.emplace_back(g, conditional);
          break;
        }
      }
    }
  }
  if (groups.size() > internal::kMaxDatabaseGroups) {
    diags.Error(DiagCode::E4004, pack.manifest_loc,
                "rules use " + std::to_string(groups.size()) +
                    " different sets of scopes; a pack holds " +
                    std::to_string(internal::kMaxDatabaseGroups) + " database groups at most",
                "", "give rules of the same kind the same scopes");
    return false;
  }
  for (uint32_t group_index = 0; group_index < groups.size(); ++group_index) {
    const auto& [group, conditional] = groups[group_index];
    std::vector<uint32_t> ids;
    uint32_t served = 0;
    for (uint32_t i = 0; i < pack.patterns.size(); ++i) {
      if (group_of[i] != group || is_condition[i] != conditional) continue;
      ids.push_back(i);
      served |= pack.rules[pack.patterns[i].rule].scopes & group;
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
        ids.erase(ids.begin() + index);
        if (ids.empty() || diags.capped()) return false;
      }
    }
  }
  return !diags.has_errors();
}

}  // namespace doberman::compiler
