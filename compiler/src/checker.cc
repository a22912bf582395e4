// AST -> IR with every semantic check: names and enums, tiers, validators, when-references, cycles,
// duplicates, manifest fields and limits. Errors point at the exact value; the checker keeps going.
#include "checker.h"

#include <hs/hs.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "fragments.h"
#include "pattern_lint.h"
#include "when_parser.h"

namespace doberman::compiler {
namespace {

const std::vector<std::string> kFamilies = {"secret",       "destructive", "command", "egress",
                                            "exfiltration", "path",        "turn",    "unicode",
                                            "tool",         "signal"};
const std::vector<std::string> kVerdicts = {"PASS", "AUTH", "BLOCK"};
const std::vector<std::string> kFlags = {"caseless", "dotall", "multiline", "utf8", "ucp", "som"};
const std::vector<std::string> kOrigins = {"typed", "pasted", "tool_fetched"};
const std::vector<std::string> kLimitNames(std::begin(internal::kPackLimitNames),
                                           std::end(internal::kPackLimitNames));
const std::vector<std::string> kPlatforms = {"generic", "avx2", "avx512"};

std::vector<std::string> ScopeNamesWithAny() {
  std::vector<std::string> v(std::begin(internal::kScopeNames), std::end(internal::kScopeNames));
  v.push_back("any");
  return v;
}

// `any` means every raw text a call carries: not the tool name, not canonical segments or folded
// prompts.
constexpr uint32_t kAnyScopes = internal::kRawTextScopes;
constexpr uint32_t kPromptScopes =
    (1u << internal::kScopePrompt) | (1u << internal::kScopePromptText);

bool IsRuleId(std::string_view id) {
  if (id.empty() || id.front() == '.' || id.back() == '.' || id.find('.') == std::string_view::npos)
    return false;
  if (!(id[0] >= 'a' && id[0] <= 'z')) return false;
  char prev = 0;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok || (c == '.' && prev == '.')) return false;
    prev = c;
  }
  return true;
}

bool IsSnakeWord(std::string_view s, bool allow_dots) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              (allow_dots && c == '.');
    if (!ok) return false;
  }
  return true;
}

bool IsSemver(std::string_view v) {
  int parts = 0;
  size_t i = 0;
  while (parts < 3) {
    size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    if (i == start || (i - start > 1 && v[start] == '0')) return false;
    ++parts;
    if (parts < 3) {
      if (i >= v.size() || v[i] != '.') return false;
      ++i;
    }
  }
  // Optional -prerelease / +build: word characters, dots, hyphens.
  if (i < v.size() && v[i] != '-' && v[i] != '+') return false;
  for (; i < v.size(); ++i) {
    char c = v[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'))
      return false;
  }
  return true;
}

// YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC.
bool ParseDate(std::string_view s, int64_t* out) {
  int y, mo, d, h = 0, mi = 0, sec = 0;
  std::string str(s);
  char tail = 0;
  if (str.size() == 10) {
    if (std::sscanf(str.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &tail) != 3) return false;
  } else if (str.size() == 20) {
    if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%c", &y, &mo, &d, &h, &mi, &sec, &tail) !=
        6)
      return false;
  } else {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return false;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec == 60 ? 59 : sec;  // a leap second names the last second of its minute
  const time_t t = timegm(&tm);
  // timegm normalises 2027-02-30 to March 2nd; a date that does not come back unchanged does not
  // exist, and a pack must not expire on a day its author did not write.
  std::tm back{};
  if (gmtime_r(&t, &back) == nullptr || back.tm_year != y - 1900 || back.tm_mon != mo - 1 ||
      back.tm_mday != d) {
    return false;
  }
  *out = static_cast<int64_t>(t);
  return true;
}

class Checker {
 public:
  Checker(const SourceMap& sources, Diagnostics& diags) : sources_(sources), diags_(diags) {}

  // A rule's source as the pack records it: relative to the manifest's folder, so that the same
  // sources build the same bytes from any working directory (and no local path leaks into a pack).
  std::string SourceName(uint32_t file) const {
    const std::filesystem::path path(sources_.Path(file));
    if (source_base_.empty()) return path.lexically_normal().string();
    return path.lexically_normal().lexically_relative(source_base_.lexically_normal()).string();
  }

  bool Run(const ManifestAst* manifest, const std::vector<RuleFileAst>& files, IrPack* out) {
    if (manifest != nullptr) {
      source_base_ = std::filesystem::path(sources_.Path(manifest->file)).parent_path();
    }
    out_ = out;
    if (manifest != nullptr) CheckManifest(*manifest);
    // The manifest's fragments, which every file's table falls back to; unused ones are reported
    // once every file has been read.
    std::optional<FragmentTable> pack_fragments;
    if (manifest != nullptr) pack_fragments.emplace(manifest->fragments, diags_);
    for (const RuleFileAst& f : files) {
      for (const ShellAst& s : f.shell) CheckShell(s);
      FragmentTable fragments(f.fragments, diags_, pack_fragments ? &*pack_fragments : nullptr);
      fragments_ = &fragments;
      for (const RuleAst& r : f.rules) CheckRule(r);
      fragments_ = nullptr;
      fragments.ReportUnused();
    }
    if (pack_fragments) pack_fragments->ReportUnused();
    if (manifest != nullptr) ApplyExclusions(*manifest);
    BuildTags();
    ResolveWhen();
    OrderAndEmit();  // also detects cycles; its output is discarded when errors were reported
    if (rules_.empty() && !diags_.has_errors()) {
      diags_.Error(DiagCode::E3009, manifest ? manifest->loc : Loc{}, "the pack has no rules",
                   "nothing to compile", "include at least one rule file");
    }
    return !diags_.has_errors();
  }

 private:
  struct PendingRule {
    IrRule ir;
    std::vector<IrPattern> patterns;
    std::vector<WhenTerm> when;
    Loc when_loc;
    bool excluded = false;
  };

  // ---- values -------------------------------------------------------------------------------
  std::optional<std::string> OneOf(const Text& t, const std::vector<std::string>& allowed,
                                   std::string_view what) {
    if (std::find(allowed.begin(), allowed.end(), t.value) != allowed.end()) return t.value;
    std::string suggestion = ClosestMatch(t.value, allowed);
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    diags_.Error(DiagCode::E2103, t.loc, "invalid " + std::string(what) + " '" + t.value + "'",
                 suggestion.empty() ? "not one of: " + list : "did you mean '" + suggestion + "'?",
                 "expected one of: " + list);
    return std::nullopt;
  }

  bool Bool(const Text& t, bool fallback) {
    if (!t.present()) return fallback;
    if (t.value == "true" || t.value == "yes") return true;
    if (t.value == "false" || t.value == "no") return false;
    diags_.Error(DiagCode::E2103, t.loc, "expected true or false, found '" + t.value + "'");
    return fallback;
  }

  // `mention_marker`: true (or alone) marks the sentence, `before` only what follows the marker,
  // `negation` a signature's match that ends where the marker's does, `negated_phrase` one that
  // ends inside the marker's match (its patterns carry `som`).
  MarkerKind Marker(const Text& t) {
    if (!t.present() || t.value == "false" || t.value == "no") return MarkerKind::kNone;
    if (t.value == "true" || t.value == "yes" || t.value == "sentence")
      return MarkerKind::kSentence;
    if (t.value == "before") return MarkerKind::kBefore;
    if (t.value == "negation") return MarkerKind::kNegation;
    if (t.value == "negated_phrase") return MarkerKind::kNegatedPhrase;
    diags_.Error(DiagCode::E2103, t.loc, "invalid mention_marker '" + t.value + "'",
                 "not a kind of mention marker",
                 "expected one of: true, false, sentence, before, negation, negated_phrase");
    return MarkerKind::kNone;
  }

  std::optional<uint64_t> Unsigned(const Text& t, std::string_view what) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(t.value.data(), t.value.data() + t.value.size(), v);
    if (ec != std::errc() || p != t.value.data() + t.value.size()) {
      diags_.Error(DiagCode::E2103, t.loc,
                   std::string(what) + " must be a whole number, found '" + t.value + "'");
      return std::nullopt;
    }
    return v;
  }

  std::optional<double> Number(const Text& t, std::string_view what) {
    char* end = nullptr;
    double v = std::strtod(t.value.c_str(), &end);
    // !(v >= 0) also refuses NaN, which every later comparison would let through.
    if (t.value.empty() || end != t.value.c_str() + t.value.size() || !(v >= 0) || std::isinf(v)) {
      diags_.Error(DiagCode::E2103, t.loc,
                   std::string(what) + " must be a non-negative number, found '" + t.value + "'");
      return std::nullopt;
    }
    return v;
  }

  doberman_verdict ToVerdict(const std::string& v) {
    return v == "PASS" ? DOBERMAN_PASS : v == "AUTH" ? DOBERMAN_AUTH : DOBERMAN_BLOCK;
  }

  // ---- manifest -----------------------------------------------------------------------------
  void CheckManifest(const ManifestAst& m) {
    out_->manifest_loc = m.loc;
    if (!m.name.present()) {
      diags_.Error(DiagCode::E2102, m.loc, "pack has no 'name'", "",
                   "add `name: default` under `pack:`");
    } else if (!IsSnakeWord(m.name.value, false)) {
      diags_.Error(DiagCode::E2103, m.name.loc,
                   "pack name '" + m.name.value + "' is not a plain name",
                   "use lower-case letters, digits, '-' and '_'");
    } else {
      out_->name = m.name.value;
    }
    if (!m.version.present()) {
      diags_.Error(DiagCode::E2102, m.loc, "pack has no 'version'", "", "add `version: 1.0.0`");
    } else if (!IsSemver(m.version.value)) {
      diags_.Error(DiagCode::E3010, m.version.loc,
                   "version '" + m.version.value + "' is not semver", "expected MAJOR.MINOR.PATCH",
                   "e.g. 1.4.0 or 2.0.0-rc.1");
    } else {
      out_->version = m.version.value;
    }
    if (!m.revision.present()) {
      diags_.Error(
          DiagCode::E2102, m.loc, "pack has no 'revision'", "",
          "add `revision: 1` and raise it on every release (hosts refuse lower revisions)");
    } else if (auto r = Unsigned(m.revision, "revision"); r && *r == 0) {
      diags_.Error(DiagCode::E3011, m.revision.loc, "revision must be at least 1");
    } else if (r) {
      out_->revision = *r;
    }
    out_->description = m.description.value;
    if (m.expires.present() && !ParseDate(m.expires.value, &out_->expires_unix)) {
      diags_.Error(DiagCode::E3012, m.expires.loc, "expiry '" + m.expires.value + "' is not a date",
                   "expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)");
    }
    out_->platforms = {"generic"};
    for (const Text& p : m.platforms) {
      if (auto v = OneOf(p, kPlatforms, "platform"); v && *v != "generic")
        out_->platforms.push_back(*v);
    }
    for (const LimitAst& l : m.limits) {
      if (!OneOf(l.name, kLimitNames, "limit")) continue;
      auto v = Unsigned(l.value, l.name.value);
      if (!v) continue;
      // Every limit fits 32 bits (most are stored as uint32: a larger value would wrap).
      if (*v == 0 || *v > UINT32_MAX) {
        diags_.Error(DiagCode::E2103, l.value.loc,
                     "limit " + l.name.value + " must be between 1 and 4294967295");
        continue;
      }
      internal::SetPackLimit(&out_->limits, l.name.value, *v);
    }
  }

  void ApplyExclusions(const ManifestAst& m) {
    for (const Text& id : m.exclude_rules) {
      auto it = by_id_.find(id.value);
      if (it == by_id_.end()) {
        diags_.Warning(DiagCode::W3018, id.loc, "excluded rule '" + id.value + "' does not exist");
        continue;
      }
      pending_[it->second].excluded = true;
    }
  }

  // ---- shell tables -------------------------------------------------------------------------
  void CheckShell(const ShellAst& s) {
    internal::ShellTables& t = out_->shell;
    for (const WrapperAst& w : s.wrappers) {
      if (!w.name.present() || w.name.value.empty()) {
        diags_.Error(DiagCode::E2102, s.loc, "a wrapper has no name");
        continue;
      }
      if (!wrapper_names_.insert(w.name.value).second) {
        diags_.Error(DiagCode::E3017, w.name.loc,
                     "wrapper '" + w.name.value + "' is defined twice");
        continue;
      }
      internal::WrapperSpec spec;
      spec.name = w.name.value;
      for (const Text& o : w.value_options) spec.value_options.push_back(o.value);
      if (w.positional.present()) {
        if (auto v = Unsigned(w.positional, "positional"); v && *v <= 8) {
          spec.positional_args = static_cast<int>(*v);
        } else if (v) {
          diags_.Error(DiagCode::E2103, w.positional.loc, "positional must be between 0 and 8");
        }
      }
      t.wrappers.push_back(std::move(spec));
    }
    for (const Text& x : s.shells) t.shells.push_back(x.value);
    for (const Text& x : s.split_flags) t.split_flag_commands.push_back(x.value);
    for (const Text& x : s.stdin_programs) t.stdin_programs.push_back(x.value);
    for (const Text& x : s.runners) t.runners.push_back(x.value);
    for (const AliasAst& a : s.aliases) {
      if (!a.command.present() || !a.from.present() || !a.to.present()) {
        diags_.Error(DiagCode::E2102, s.loc, "an alias needs command, from and to");
        continue;
      }
      t.aliases.push_back({a.command.value, a.from.value, a.to.value});
    }
  }

  // ---- rules --------------------------------------------------------------------------------
  unsigned int PatternFlags(const PatternAst& p, bool* som) {
    unsigned int flags = 0;
    for (const Text& f : p.flags) {
      auto v = OneOf(f, kFlags, "pattern flag");
      if (!v) continue;
      if (*v == "caseless") flags |= HS_FLAG_CASELESS;
      if (*v == "dotall") flags |= HS_FLAG_DOTALL;
      if (*v == "multiline") flags |= HS_FLAG_MULTILINE;
      if (*v == "utf8") flags |= HS_FLAG_UTF8;
      if (*v == "ucp") flags |= HS_FLAG_UCP | HS_FLAG_UTF8;
      if (*v == "som") *som = true;
    }
    return flags;
  }

  IrCall ExampleCall(const ExampleAst& e, const IrRule& rule) {
    IrCall c;
    if (e.text) {
      const std::string& s = e.text->value;
      uint32_t scopes = rule.scopes;
      int first = -1;
      for (int i = 0; i < internal::kScopeCount && first < 0; ++i) {
        if (scopes & (1u << i)) first = i;
      }
      switch (first) {
        case internal::kScopeTool:
          c.tool = s;
          break;
        case internal::kScopePath:
          c.tool = "Write";
          c.path = s;
          break;
        case internal::kScopeContent:
          c.tool = "Write";
          c.path = "example.txt";
          c.content = s;
          break;
        case internal::kScopeUrl:
          c.tool = "WebFetch";
          c.url = s;
          break;
        case internal::kScopeArgs:
          c.tool = "mcp__example__tool";
          c.args = {s};
          break;
        case internal::kScopePrompt:
        case internal::kScopePromptText:
          c.prompt = s;
          c.has_prompt = true;
          for (int o = 0; o < 3; ++o) {
            if (rule.origins & (1u << o)) {
              c.origin = static_cast<doberman_origin>(o);
              break;
            }
          }
          break;
        default:
          c.tool = "Bash";
          c.command = s;
          break;  // command scopes and when-only rules
      }
      return c;
    }
    const CallAst& a = e.call;
    c.tool = a.tool.value;
    c.command = a.command.value;
    c.path = a.path.value;
    c.cwd = a.cwd.value;
    c.content = a.content.value;
    c.url = a.url.value;
    for (const Text& t : a.args) c.args.push_back(t.value);
    if (a.prompt.present()) {
      c.prompt = a.prompt.value;
      c.has_prompt = true;
    }
    if (a.origin.present()) {
      if (auto o = OneOf(a.origin, kOrigins, "origin")) {
        c.origin = *o == "typed"    ? DOBERMAN_ORIGIN_TYPED
                   : *o == "pasted" ? DOBERMAN_ORIGIN_PASTED
                                    : DOBERMAN_ORIGIN_TOOL_FETCHED;
      }
    }
    if (c.tool.empty() && !c.command.empty()) c.tool = "Bash";
    return c;
  }

  void CheckRule(const RuleAst& r) {
    PendingRule pr;
    IrRule& ir = pr.ir;
    ir.loc = r.loc;
    ir.source = SourceName(r.loc.file) + ":" + std::to_string(r.loc.line);
    if (!r.id.present()) {
      diags_.Error(DiagCode::E2102, r.loc, "rule has no 'id'", "",
                   "every rule needs a stable dotted id");
      return;
    }
    if (!IsRuleId(r.id.value)) {
      diags_.Error(DiagCode::E3002, r.id.loc,
                   "rule id '" + r.id.value + "' is not a dotted lower-case id",
                   "expected e.g. secret.aws.access_key_id",
                   "ids are lower-case words joined by dots; they are stable, hosts key on them");
    }
    auto [it, inserted] = by_id_.emplace(r.id.value, pending_.size());
    if (!inserted) {
      const Loc& first = pending_[it->second].ir.loc;
      diags_.Error(
          DiagCode::E3001, r.id.loc, "duplicate rule id '" + r.id.value + "'", "defined again here",
          "first defined at " + sources_.Path(first.file) + ":" + std::to_string(first.line));
      return;
    }
    ir.id = r.id.value;
    ir.description = r.description.value;
    if (!r.family.present()) {
      diags_.Error(DiagCode::E2102, r.loc, "rule '" + ir.id + "' has no 'family'");
    } else if (auto f = OneOf(r.family, kFamilies, "family")) {
      ir.family = *f;
    }
    if (!r.verdict.present()) {
      diags_.Error(DiagCode::E2102, r.loc, "rule '" + ir.id + "' has no 'verdict'", "",
                   "add `verdict: AUTH` or `verdict: BLOCK` (PASS marks a signal for when-rules)");
    } else if (auto v = OneOf(r.verdict, kVerdicts, "verdict")) {
      ir.verdict = ToVerdict(*v);
    }
    if (r.tier.present()) {
      auto t = Unsigned(r.tier, "tier");
      if (t && *t > 1) {
        diags_.Error(DiagCode::E2103, r.tier.loc,
                     "tier must be 0 (hard signature) or 1 (heuristic)");
      } else if (t) {
        ir.tier = static_cast<uint8_t>(*t);
      }
    }
    if (ir.tier == 1 && ir.verdict == DOBERMAN_BLOCK) {
      diags_.Error(
          DiagCode::E3003, r.verdict.loc, "a tier-1 rule cannot BLOCK", "tier 1 is AUTH at most",
          "heuristics ask a person; make it `verdict: AUTH`, or tier 0 if it is a hard signature");
    }
    if (ir.verdict != DOBERMAN_PASS) {
      if (!r.reason.present()) {
        diags_.Error(DiagCode::E2102, r.loc, "rule '" + ir.id + "' has no 'reason'", "",
                     "a reason code such as destructive_delete_root");
      } else if (!IsSnakeWord(r.reason.value, false)) {
        diags_.Error(DiagCode::E2103, r.reason.loc,
                     "reason '" + r.reason.value + "' is not a snake_case code");
      }
      if (!r.message.present()) {
        diags_.Error(DiagCode::E2102, r.loc, "rule '" + ir.id + "' has no 'message'", "",
                     "say what was found in words that never quote the match");
      }
    }
    ir.reason = r.reason.value;
    ir.message = r.message.value;
    const std::vector<std::string> scope_names = ScopeNamesWithAny();
    for (const Text& s : r.scopes) {
      auto v = OneOf(s, scope_names, "scope");
      if (!v) continue;
      if (*v == "any") {
        ir.scopes |= kAnyScopes;
      } else {
        ir.scopes |=
            1u << (std::find(scope_names.begin(), scope_names.end(), *v) - scope_names.begin());
      }
    }
    for (const Text& t : r.tags) {
      if (!IsSnakeWord(t.value, true)) {
        diags_.Error(DiagCode::E2103, t.loc,
                     "tag '" + t.value + "' must be lower-case words, dots or dashes");
      }
    }
    ir.decode = Bool(r.decode, false);
    ir.mention_marker = Marker(r.mention_marker);
    if (!r.origins.empty()) {
      ir.origins = 0;
      for (const Text& o : r.origins) {
        if (auto v = OneOf(o, kOrigins, "origin")) {
          ir.origins |= 1u << (std::find(kOrigins.begin(), kOrigins.end(), *v) - kOrigins.begin());
        }
      }
    }
    if (r.mention_cap.present()) {
      if (auto v = OneOf(r.mention_cap, kVerdicts, "mention verdict"))
        ir.mention_cap = ToVerdict(*v);
    }
    if ((!r.origins.empty() || r.mention_cap.present() || ir.mention_marker != MarkerKind::kNone) &&
        (ir.scopes & kPromptScopes) == 0) {
      Loc at = r.mention_cap.present() ? r.mention_cap.loc
               : !r.origins.empty()    ? r.origins[0].loc
                                       : r.loc;
      diags_.Error(
          DiagCode::E3015, at, "origins, mention and mention_marker apply to prompt scopes only",
          "this rule does not read prompts", "add `prompt` or `prompt_text` to its scopes");
    }
    // Session memory searches a typed or pasted prompt for secrets with the prompt's own
    // databases (runtime/state/value_memory.h), so a secret rule must read those prompts too.
    constexpr uint32_t kTypedOrPasted = 0b011;  // bits of kOrigins: typed, pasted
    const bool secret = std::any_of(r.tags.begin(), r.tags.end(),
                                    [](const Text& t) { return t.value == "secret"; });
    if (secret && (ir.scopes & (1u << internal::kScopeContent)) != 0 &&
        ((ir.scopes & (1u << internal::kScopePromptText)) == 0 ||
         (ir.origins & kTypedOrPasted) != kTypedOrPasted)) {
      diags_.Warning(DiagCode::W3019, r.scopes.empty() ? r.loc : r.scopes[0].loc,
                     "secret rule '" + ir.id + "' reads content but not typed and pasted prompts",
                     "a secret pasted in a prompt is neither judged nor recorded for the session",
                     "add `prompt_text` to its scopes (with origins typed and pasted)");
    }
    // Validators.
    if (r.validators.present) {
      const ValidatorsAst& v = r.validators;
      if (v.min_entropy.present()) {
        if (auto x = Number(v.min_entropy, "min_entropy"); x && *x > 8) {
          diags_.Error(DiagCode::E2103, v.min_entropy.loc,
                       "min_entropy is bits per byte: at most 8");
        } else if (x) {
          ir.validators.min_entropy = static_cast<float>(*x);
        }
      }
      if (v.min_length.present()) {
        if (auto x = Unsigned(v.min_length, "min_length"))
          ir.validators.min_length = static_cast<uint32_t>(*x);
      }
      ir.validators.placeholder = Bool(v.placeholder, false);
      ir.validators.exempt_hashes = Bool(v.exempt_hashes, false);
      ir.validators.exempt_identifiers = Bool(v.exempt_identifiers, false);
    }
    // Patterns.
    bool has_any = false;
    for (const PatternAst& p : r.patterns) {
      IrPattern ip;
      ip.expression =
          fragments_ != nullptr ? fragments_->Expand(p, &ip.fragment_uses) : p.regex.value;
      ip.loc = p.regex.loc;
      ip.content_offset = p.content_offset;
      ip.role = p.role == PatternRole::kAny    ? Role::kAny
                : p.role == PatternRole::kAll  ? Role::kAll
                : p.role == PatternRole::kNone ? Role::kNone
                                               : Role::kExcuse;
      ip.hs_flags = PatternFlags(p, &ip.som);
      // An excuse is a span (where it starts to where it ends): always compiled with its start.
      if (ip.role == Role::kExcuse) ip.som = true;
      if (ip.role == Role::kAny) has_any = true;
      if ((ip.hs_flags & HS_FLAG_UTF8) == 0) {
        // The place of the byte at `offset` of the pattern's text, for a one-byte caret.
        const auto byte_loc = [&ip](size_t offset) {
          return PatternTextLoc(ip.loc, ip.content_offset, SourceOffset(ip.fragment_uses, offset),
                                1);
        };
        const size_t at = FindMultiByteClassMember(ip.expression);
        if (at != std::string::npos) {
          diags_.Warning(DiagCode::W4006, byte_loc(at),
                         "a character class in rule '" + ir.id +
                             "' holds a multi-byte character, so each of its bytes is a member",
                         "matches one byte of this character, not the character",
                         "write an alternation such as (o|ó), or give the pattern the 8 flag");
        }
        const size_t quantifier = FindQuantifiedMultiByteCharacter(ip.expression);
        if (quantifier != std::string::npos) {
          diags_.Warning(DiagCode::W4007, byte_loc(quantifier),
                         "a quantifier in rule '" + ir.id +
                             "' follows a multi-byte character, so it repeats only that "
                             "character's last byte",
                         "applies to the last byte of the character before it",
                         "group the character, as (的)?, or give the pattern the 8 flag");
        }
      }
      if (ip.expression.empty()) {
        diags_.Error(DiagCode::E4002, ip.loc, "empty pattern", "matches everything");
        continue;
      }
      if (ip.expression.find('\0') != std::string::npos) {
        // Hyperscan takes C strings: a NUL would silently cut the pattern short.
        diags_.Error(DiagCode::E4005, ip.loc, "pattern contains a NUL byte", "write it as \\x00",
                     "Hyperscan patterns are C strings");
        continue;
      }
      pr.patterns.push_back(std::move(ip));
    }
    bool has_positive = std::any_of(pr.patterns.begin(), pr.patterns.end(), [](const IrPattern& p) {
      return p.role == Role::kAny || p.role == Role::kAll;
    });
    const auto excuse = std::find_if(pr.patterns.begin(), pr.patterns.end(),
                                     [](const IrPattern& p) { return p.role == Role::kExcuse; });
    // An excuse judges the rule's any matches one by one: there must be some, and a validated
    // pattern's ends are judged (and cut short) by its validators first.
    if (excuse != pr.patterns.end() && (!has_any || ir.validators.Any())) {
      diags_.Error(DiagCode::E3023, excuse->loc,
                   has_any ? "rule '" + ir.id + "' has both `excuse:` patterns and validators"
                           : "rule '" + ir.id + "' has `excuse:` patterns but no `patterns:`",
                   "an excuse excuses the rule's own matches, one by one",
                   has_any ? "drop the validators, or write the exclusion into the pattern"
                           : "add `patterns:` for it to excuse");
    }
    if (!pr.patterns.empty() && !has_positive) {
      diags_.Error(DiagCode::E3008, r.loc, "rule '" + ir.id + "' has only `none:` patterns",
                   "nothing can make it match", "add `patterns:` or `all:`");
    }
    if (ir.validators.Any() && !has_any) {
      diags_.Error(DiagCode::E3013, r.validators.loc, "validators need `patterns:` to check",
                   "this rule has no any-of patterns");
    }
    if (!pr.patterns.empty() && ir.scopes == 0) {
      diags_.Error(DiagCode::E2102, r.loc, "rule '" + ir.id + "' has patterns but no 'scopes'", "",
                   "say which fields it reads, e.g. `scopes: [command]`");
    }
    // Start-of-match is only compiled in on request (`som` flag): validators recover the value from
    // the match end and mention checks look at where the match ends; SOM made the shipped secret
    // and turn databases four to five times larger.
    for (IrPattern& p : pr.patterns) {
      // A validated pattern's first match may be rejected while a later one is a secret; a
      // mention-capped pattern's first match may be a quoted mention while a later one is issued
      // (a quoted example placed before the real instruction must not hide it).
      // A negation marker's ends are compared with those matches' ends, so it reports them all.
      // An excuse may cover the first match and not a later one.
      if (p.role == Role::kAny &&
          (ir.validators.Any() || ir.mention_cap < ir.verdict ||
           ir.mention_marker == MarkerKind::kNegation ||
           ir.mention_marker == MarkerKind::kNegatedPhrase || excuse != pr.patterns.end()))
        p.every_match = true;
      // A negated phrase excuses what ends inside its span: without a start it has none.
      if (p.role == Role::kAny && ir.mention_marker == MarkerKind::kNegatedPhrase && !p.som) {
        diags_.Error(DiagCode::E3016, p.loc, "a negated_phrase marker's pattern needs `som`",
                     "its span is where it starts to where it ends", "add the flag: `/.../ (som)`");
      }
    }
    if (r.when.present()) {
      pr.when_loc = r.when.loc;
      ir.when_text = r.when.value;
      ParseWhen(r.when, diags_, &pr.when);
    }
    if (pr.patterns.empty() && !r.when.present()) {
      diags_.Error(DiagCode::E3008, r.loc,
                   "rule '" + ir.id + "' has neither patterns nor a when-expression",
                   "it can never fire", "add `patterns:` or `when:`");
    }
    for (const ExampleAst& e : r.examples) {
      pr.ir.examples.push_back({e.expect_match, ExampleCall(e, ir), e.loc});
    }
    // Tags are resolved to indices once every rule is known (BuildTags).
    for (const Text& t : r.tags) pending_tags_.push_back({pending_.size(), t.value});
    pending_.push_back(std::move(pr));
  }

  void BuildTags() {
    std::set<std::string> tags;
    for (const auto& [rule, tag] : pending_tags_) {
      if (!pending_[rule].excluded) tags.insert(tag);
    }
    out_->tags.assign(tags.begin(), tags.end());
    for (const auto& [rule, tag] : pending_tags_) {
      if (pending_[rule].excluded) continue;
      uint32_t idx = static_cast<uint32_t>(
          std::lower_bound(out_->tags.begin(), out_->tags.end(), tag) - out_->tags.begin());
      auto& v = pending_[rule].ir.tags;
      if (std::find(v.begin(), v.end(), idx) == v.end()) v.push_back(idx);
    }
  }

  void ResolveWhen() {
    std::vector<std::string> ids;
    for (const auto& p : pending_) {
      if (!p.excluded) ids.push_back(p.ir.id);
    }
    for (PendingRule& p : pending_) {
      if (p.excluded) continue;
      for (const WhenTerm& t : p.when) {
        if (t.kind == WhenTerm::kRule) {
          auto it = by_id_.find(t.name);
          if (it == by_id_.end() || pending_[it->second].excluded) {
            std::string s = ClosestMatch(t.name, ids);
            diags_.Error(DiagCode::E3004, t.loc,
                         "when-expression refers to unknown rule '" + t.name + "'",
                         s.empty() ? "no such rule in this pack" : "did you mean '" + s + "'?");
          } else if (it->second == static_cast<size_t>(&p - pending_.data())) {
            diags_.Error(DiagCode::E3006, t.loc,
                         "rule '" + p.ir.id + "' refers to itself in its when-expression");
          }
        } else if (t.kind == WhenTerm::kTag) {
          if (!std::binary_search(out_->tags.begin(), out_->tags.end(), t.name)) {
            std::string s = ClosestMatch(t.name, out_->tags);
            diags_.Error(DiagCode::E3005, t.loc,
                         "when-expression refers to unknown tag '" + t.name + "'",
                         s.empty() ? "no rule carries this tag" : "did you mean '" + s + "'?");
          }
        }
      }
    }
  }

  // Dependencies of when-rule `i`: rules it names and when-rules that carry a tag it reads.
  std::vector<size_t> Dependencies(size_t i) {
    std::vector<size_t> deps;
    for (const WhenTerm& t : pending_[i].when) {
      if (t.kind == WhenTerm::kRule) {
        auto it = by_id_.find(t.name);
        if (it != by_id_.end() && !pending_[it->second].when.empty()) deps.push_back(it->second);
      } else if (t.kind == WhenTerm::kTag) {
        uint32_t idx = static_cast<uint32_t>(
            std::lower_bound(out_->tags.begin(), out_->tags.end(), t.name) - out_->tags.begin());
        for (size_t j = 0; j < pending_.size(); ++j) {
          if (!pending_[j].excluded && !pending_[j].when.empty() &&
              std::find(pending_[j].ir.tags.begin(), pending_[j].ir.tags.end(), idx) !=
                  pending_[j].ir.tags.end()) {
            deps.push_back(j);
          }
        }
      }
    }
    return deps;
  }

  void OrderAndEmit() {
    std::vector<size_t> order;
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (!pending_[i].excluded && pending_[i].when.empty()) order.push_back(i);
    }
    // Depth-first topological order of when-rules; a back edge is a cycle.
    std::vector<int> color(pending_.size(), 0);
    std::vector<size_t> stack;
    bool cycle = false;
    std::function<void(size_t)> visit = [&](size_t i) {
      if (cycle) return;
      color[i] = 1;
      stack.push_back(i);
      for (size_t d : Dependencies(i)) {
        if (d == i) continue;  // self-reference reported already
        if (color[d] == 1) {
          std::string path;
          auto from = std::find(stack.begin(), stack.end(), d);
          for (auto it = from; it != stack.end(); ++it) path += pending_[*it].ir.id + " -> ";
          path += pending_[d].ir.id;
          diags_.Error(DiagCode::E3006, pending_[i].when_loc, "cycle in when-expressions: " + path,
                       "this expression closes the cycle",
                       "when-rules may read rules and tags only of rules decided before them");
          cycle = true;
          return;
        }
        if (color[d] == 0) visit(d);
      }
      stack.pop_back();
      color[i] = 2;
      order.push_back(i);
    };
    for (size_t i = 0; i < pending_.size() && !cycle; ++i) {
      if (!pending_[i].excluded && !pending_[i].when.empty() && color[i] == 0) visit(i);
    }
    if (cycle) return;
    std::vector<uint32_t> final_index(pending_.size(), UINT32_MAX);
    for (size_t k = 0; k < order.size(); ++k) final_index[order[k]] = static_cast<uint32_t>(k);
    for (size_t k = 0; k < order.size(); ++k) {
      PendingRule& p = pending_[order[k]];
      IrRule rule = std::move(p.ir);
      for (IrPattern& pat : p.patterns) {
        pat.rule = static_cast<uint32_t>(k);
        rule.patterns.push_back(static_cast<uint32_t>(out_->patterns.size()));
        out_->patterns.push_back(std::move(pat));
      }
      for (const WhenTerm& t : p.when) {
        switch (t.kind) {
          case WhenTerm::kRule:
            rule.when.push_back({WhenOp::kRule, final_index[by_id_[t.name]]});
            break;
          case WhenTerm::kTag:
            rule.when.push_back(
                {WhenOp::kTag, static_cast<uint32_t>(
                                   std::lower_bound(out_->tags.begin(), out_->tags.end(), t.name) -
                                   out_->tags.begin())});
            break;
          case WhenTerm::kAnd:
            rule.when.push_back({WhenOp::kAnd, 0});
            break;
          case WhenTerm::kOr:
            rule.when.push_back({WhenOp::kOr, 0});
            break;
          case WhenTerm::kNot:
            rule.when.push_back({WhenOp::kNot, 0});
            break;
          case WhenTerm::kTrue:
            rule.when.push_back({WhenOp::kTrue, 0});
            break;
        }
      }
      rules_.push_back(rule.id);
      out_->rules.push_back(std::move(rule));
    }
  }

  std::filesystem::path source_base_;  // the manifest's folder (empty without a manifest)
  const SourceMap& sources_;
  Diagnostics& diags_;
  IrPack* out_ = nullptr;
  FragmentTable* fragments_ = nullptr;  // the fragments of the file whose rules are checked
  std::vector<PendingRule> pending_;
  std::map<std::string, size_t> by_id_;
  std::vector<std::pair<size_t, std::string>> pending_tags_;
  std::set<std::string> wrapper_names_;
  std::vector<std::string> rules_;
};

}  // namespace

bool CheckPack(const SourceMap& sources, const ManifestAst& manifest,
               const std::vector<RuleFileAst>& files, Diagnostics& diags, IrPack* out) {
  return Checker(sources, diags).Run(&manifest, files, out);
}

bool CheckRules(const SourceMap& sources, const std::vector<RuleFileAst>& files, Diagnostics& diags,
                IrPack* out) {
  out->name = "rules";
  out->version = "0.0.0";
  out->revision = 1;
  out->platforms = {"generic"};
  return Checker(sources, diags).Run(nullptr, files, out);
}

}  // namespace doberman::compiler
