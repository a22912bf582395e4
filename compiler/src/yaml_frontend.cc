// YAML -> AST. yaml-cpp marks are 0-based; they are converted to 1-based Loc here and nowhere else.
#include "yaml_frontend.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>

namespace doberman::compiler {
namespace {

class YamlReader {
 public:
  YamlReader(const SourceMap& sources, uint32_t file, Diagnostics& diags)
      : sources_(sources), file_(file), diags_(diags) {}

  Loc LocOf(const YAML::Node& n, uint32_t length = 1) const {
    YAML::Mark m = n.Mark();
    if (m.line < 0) return Loc{file_, 1, 1, 1};
    return Loc{file_, static_cast<uint32_t>(m.line + 1), static_cast<uint32_t>(m.column + 1),
               length};
  }

  // Text of a scalar; reports E2101 when the node is not a scalar.
  Text Scalar(const YAML::Node& n, std::string_view what) {
    if (!n.IsScalar()) {
      diags_.Error(DiagCode::E2101, LocOf(n), std::string(what) + " must be a single value",
                   "expected a scalar here");
      return {};
    }
    Loc loc = LocOf(n, static_cast<uint32_t>(std::max<size_t>(1, n.Scalar().size())));
    return Text{n.Scalar(), loc};
  }

  // Offset of a scalar's first content byte from its mark (1 for quoted scalars).
  uint32_t ContentOffset(const YAML::Node& n) const {
    size_t off = sources_.Offset(LocOf(n));
    const std::string& text = sources_.Text(file_);
    return off < text.size() && (text[off] == '\'' || text[off] == '"') ? 1 : 0;
  }

  std::vector<Text> ScalarList(const YAML::Node& n, std::string_view what) {
    std::vector<Text> out;
    if (n.IsScalar()) {
      out.push_back(Scalar(n, what));
    } else if (n.IsSequence()) {
      for (const YAML::Node& item : n) out.push_back(Scalar(item, what));
    } else {
      diags_.Error(DiagCode::E2101, LocOf(n), std::string(what) + " must be a list of values");
    }
    return out;
  }

  // Walks a mapping, dispatching known keys; unknown keys get E2104 with a suggestion.
  void Fields(const YAML::Node& map, std::string_view what,
              const std::map<std::string, std::function<void(const YAML::Node&)>>& handlers) {
    if (!map.IsMap()) {
      diags_.Error(DiagCode::E2101, LocOf(map), std::string(what) + " must be a mapping of fields");
      return;
    }
    std::vector<std::string> known;
    for (const auto& [k, _] : handlers) known.push_back(k);
    std::vector<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        diags_.Error(DiagCode::E2101, LocOf(kv.first), "field names must be plain words");
        continue;
      }
      const std::string& key = kv.first.Scalar();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        diags_.Warning(DiagCode::W2105, LocOf(kv.first, static_cast<uint32_t>(key.size())),
                       "field '" + key + "' is given twice in " + std::string(what),
                       "repeated here", "the later value wins for single values; lists are joined");
      }
      seen.push_back(key);
      auto it = handlers.find(key);
      if (it == handlers.end()) {
        std::string suggestion = ClosestMatch(key, known);
        diags_.Error(DiagCode::E2104, LocOf(kv.first, static_cast<uint32_t>(key.size())),
                     "unknown field '" + key + "' in " + std::string(what),
                     suggestion.empty() ? "not a field of " + std::string(what)
                                        : "did you mean '" + suggestion + "'?",
                     "known fields: " + Join(known));
        continue;
      }
      it->second(kv.second);
    }
  }

  static std::string Join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }

  void Patterns(const YAML::Node& n, PatternRole role, std::vector<PatternAst>* out) {
    // A single pattern (scalar or mapping) is a list of one. Build a fresh sequence: assigning to a
    // copy of `n` would overwrite the document node itself (yaml-cpp nodes are references).
    YAML::Node list(YAML::NodeType::Sequence);
    if (n.IsScalar() || n.IsMap()) {
      list.push_back(n);
    } else if (!n.IsSequence()) {
      diags_.Error(DiagCode::E2101, LocOf(n), "patterns must be a list of regular expressions");
      return;
    }
    for (const YAML::Node& item : (n.IsSequence() ? n : list)) {
      PatternAst p;
      p.role = role;
      if (item.IsScalar()) {
        p.regex = Scalar(item, "a pattern");
        p.content_offset = ContentOffset(item);
      } else {
        Fields(item, "a pattern",
               {
                   {"regex",
                    [&](const YAML::Node& v) {
                      p.regex = Scalar(v, "regex");
                      p.content_offset = ContentOffset(v);
                    }},
                   {"flags", [&](const YAML::Node& v) { p.flags = ScalarList(v, "flags"); }},
               });
        if (!p.regex.present()) {
          diags_.Error(DiagCode::E2102, LocOf(item), "pattern has no 'regex'", "",
                       "write `regex: '...'`");
          continue;
        }
      }
      out->push_back(std::move(p));
    }
  }

  CallAst Call(const YAML::Node& n) {
    CallAst c;
    Fields(n, "an example call",
           {
               {"tool", [&](const YAML::Node& v) { c.tool = Scalar(v, "tool"); }},
               {"command", [&](const YAML::Node& v) { c.command = Scalar(v, "command"); }},
               {"path", [&](const YAML::Node& v) { c.path = Scalar(v, "path"); }},
               {"cwd", [&](const YAML::Node& v) { c.cwd = Scalar(v, "cwd"); }},
               {"content", [&](const YAML::Node& v) { c.content = Scalar(v, "content"); }},
               {"url", [&](const YAML::Node& v) { c.url = Scalar(v, "url"); }},
               {"prompt", [&](const YAML::Node& v) { c.prompt = Scalar(v, "prompt"); }},
               {"origin", [&](const YAML::Node& v) { c.origin = Scalar(v, "origin"); }},
               {"args", [&](const YAML::Node& v) { c.args = ScalarList(v, "args"); }},
           });
    return c;
  }

  void Examples(const YAML::Node& n, std::vector<ExampleAst>* out) {
    auto list = [&](const YAML::Node& v, bool match) {
      if (!v.IsSequence()) {
        diags_.Error(DiagCode::E2101, LocOf(v), "examples must be a list");
        return;
      }
      for (const YAML::Node& item : v) {
        ExampleAst e;
        e.expect_match = match;
        e.loc = LocOf(item);
        if (item.IsScalar()) {
          e.text = Scalar(item, "an example");
        } else {
          e.call = Call(item);
        }
        out->push_back(std::move(e));
      }
    };
    Fields(n, "examples",
           {
               {"match", [&](const YAML::Node& v) { list(v, true); }},
               {"pass", [&](const YAML::Node& v) { list(v, false); }},
           });
  }

  void Validators(const YAML::Node& n, ValidatorsAst* v) {
    v->present = true;
    v->loc = LocOf(n);
    Fields(
        n, "validators",
        {
            {"min_entropy",
             [&](const YAML::Node& x) { v->min_entropy = Scalar(x, "min_entropy"); }},
            {"min_length", [&](const YAML::Node& x) { v->min_length = Scalar(x, "min_length"); }},
            {"placeholder",
             [&](const YAML::Node& x) { v->placeholder = Scalar(x, "placeholder"); }},
            {"exempt",
             [&](const YAML::Node& x) {
               for (const Text& t : ScalarList(x, "exempt")) {
                 if (t.value == "hashes") {
                   v->exempt_hashes = Text{"true", t.loc};
                 } else if (t.value == "identifiers") {
                   v->exempt_identifiers = Text{"true", t.loc};
                 } else {
                   diags_.Error(DiagCode::E2103, t.loc, "unknown exemption '" + t.value + "'",
                                "expected 'hashes' or 'identifiers'");
                 }
               }
             }},
        });
  }

  RuleAst Rule(const YAML::Node& n) {
    RuleAst r;
    r.loc = LocOf(n);
    Fields(
        n, "a rule",
        {
            {"id", [&](const YAML::Node& v) { r.id = Scalar(v, "id"); }},
            {"description", [&](const YAML::Node& v) { r.description = Scalar(v, "description"); }},
            {"family", [&](const YAML::Node& v) { r.family = Scalar(v, "family"); }},
            {"scopes", [&](const YAML::Node& v) { r.scopes = ScalarList(v, "scopes"); }},
            {"patterns", [&](const YAML::Node& v) { Patterns(v, PatternRole::kAny, &r.patterns); }},
            {"all", [&](const YAML::Node& v) { Patterns(v, PatternRole::kAll, &r.patterns); }},
            {"none", [&](const YAML::Node& v) { Patterns(v, PatternRole::kNone, &r.patterns); }},
            {"excuse",
             [&](const YAML::Node& v) { Patterns(v, PatternRole::kExcuse, &r.patterns); }},
            {"verdict", [&](const YAML::Node& v) { r.verdict = Scalar(v, "verdict"); }},
            {"tier", [&](const YAML::Node& v) { r.tier = Scalar(v, "tier"); }},
            {"reason", [&](const YAML::Node& v) { r.reason = Scalar(v, "reason"); }},
            {"message", [&](const YAML::Node& v) { r.message = Scalar(v, "message"); }},
            {"tags", [&](const YAML::Node& v) { r.tags = ScalarList(v, "tags"); }},
            {"origins", [&](const YAML::Node& v) { r.origins = ScalarList(v, "origins"); }},
            {"validators", [&](const YAML::Node& v) { Validators(v, &r.validators); }},
            {"decode", [&](const YAML::Node& v) { r.decode = Scalar(v, "decode"); }},
            {"mention", [&](const YAML::Node& v) { r.mention_cap = Scalar(v, "mention"); }},
            {"mention_marker",
             [&](const YAML::Node& v) { r.mention_marker = Scalar(v, "mention_marker"); }},
            {"when",
             [&](const YAML::Node& v) {
               r.when = Scalar(v, "when");
               r.when.loc.column += ContentOffset(v);
             }},
            {"examples", [&](const YAML::Node& v) { Examples(v, &r.examples); }},
        });
    return r;
  }

  ShellAst Shell(const YAML::Node& n) {
    ShellAst s;
    s.loc = LocOf(n);
    Fields(
        n, "shell tables",
        {
            {"wrappers",
             [&](const YAML::Node& v) {
               if (!v.IsSequence()) {
                 diags_.Error(DiagCode::E2101, LocOf(v), "wrappers must be a list");
                 return;
               }
               for (const YAML::Node& w : v) {
                 WrapperAst wa;
                 if (w.IsScalar()) {
                   wa.name = Scalar(w, "wrapper");
                 } else {
                   Fields(
                       w, "a wrapper",
                       {
                           {"name", [&](const YAML::Node& x) { wa.name = Scalar(x, "name"); }},
                           {"value_options",
                            [&](const YAML::Node& x) {
                              wa.value_options = ScalarList(x, "value_options");
                            }},
                           {"positional",
                            [&](const YAML::Node& x) { wa.positional = Scalar(x, "positional"); }},
                       });
                 }
                 s.wrappers.push_back(std::move(wa));
               }
             }},
            {"shells", [&](const YAML::Node& v) { s.shells = ScalarList(v, "shells"); }},
            {"split_flags",
             [&](const YAML::Node& v) { s.split_flags = ScalarList(v, "split_flags"); }},
            {"stdin_programs",
             [&](const YAML::Node& v) { s.stdin_programs = ScalarList(v, "stdin_programs"); }},
            {"runners", [&](const YAML::Node& v) { s.runners = ScalarList(v, "runners"); }},
            {"aliases",
             [&](const YAML::Node& v) {
               if (!v.IsSequence()) {
                 diags_.Error(DiagCode::E2101, LocOf(v), "aliases must be a list");
                 return;
               }
               for (const YAML::Node& a : v) {
                 AliasAst aa;
                 Fields(a, "an alias",
                        {
                            {"command",
                             [&](const YAML::Node& x) { aa.command = Scalar(x, "command"); }},
                            {"from", [&](const YAML::Node& x) { aa.from = Scalar(x, "from"); }},
                            {"to", [&](const YAML::Node& x) { aa.to = Scalar(x, "to"); }},
                        });
                 s.aliases.push_back(std::move(aa));
               }
             }},
        });
    return s;
  }

  // `define:`: name: regex, in order (a fragment may use the ones before it).
  void Defines(const YAML::Node& v, std::vector<FragmentAst>* out) {
    if (!v.IsMap()) {
      diags_.Error(DiagCode::E2101, LocOf(v),
                   "define must be a mapping of names to regular expressions");
      return;
    }
    for (const auto& kv : v) {
      FragmentAst fragment;
      fragment.name = Scalar(kv.first, "a fragment name");
      std::vector<PatternAst> one;
      Patterns(kv.second, PatternRole::kAny, &one);
      if (!fragment.name.present() || one.empty()) continue;
      if (one.size() > 1) {
        diags_.Error(DiagCode::E2101, LocOf(kv.second),
                     "a fragment is one regular expression, not a list");
        continue;
      }
      fragment.pattern = std::move(one.front());
      out->push_back(std::move(fragment));
    }
  }

  ManifestAst Manifest(const YAML::Node& root) {
    ManifestAst m;
    m.file = file_;
    m.loc = LocOf(root);
    Fields(
        root, "a pack manifest",
        {
            {"pack",
             [&](const YAML::Node& v) {
               m.loc = LocOf(v);
               Fields(
                   v, "pack",
                   {
                       {"name", [&](const YAML::Node& x) { m.name = Scalar(x, "name"); }},
                       {"version", [&](const YAML::Node& x) { m.version = Scalar(x, "version"); }},
                       {"revision",
                        [&](const YAML::Node& x) { m.revision = Scalar(x, "revision"); }},
                       {"description",
                        [&](const YAML::Node& x) { m.description = Scalar(x, "description"); }},
                       {"expires", [&](const YAML::Node& x) { m.expires = Scalar(x, "expires"); }},
                   });
             }},
            {"include", [&](const YAML::Node& v) { m.includes = ScalarList(v, "include"); }},
            {"exclude_rules",
             [&](const YAML::Node& v) { m.exclude_rules = ScalarList(v, "exclude_rules"); }},
            {"platforms", [&](const YAML::Node& v) { m.platforms = ScalarList(v, "platforms"); }},
            {"limits",
             [&](const YAML::Node& v) {
               if (!v.IsMap()) {
                 diags_.Error(DiagCode::E2101, LocOf(v), "limits must be a mapping");
                 return;
               }
               for (const auto& kv : v) {
                 m.limits.push_back(
                     {Scalar(kv.first, "limit name"), Scalar(kv.second, "limit value")});
               }
             }},
            {"define", [&](const YAML::Node& v) { Defines(v, &m.fragments); }},
        });
    return m;
  }

  RuleFileAst RuleFile(const YAML::Node& root) {
    RuleFileAst f;
    f.file = file_;
    Fields(root, "a rule file",
           {
               {"define", [&](const YAML::Node& v) { Defines(v, &f.fragments); }},
               {"rules",
                [&](const YAML::Node& v) {
                  if (!v.IsSequence()) {
                    diags_.Error(DiagCode::E2101, LocOf(v), "rules must be a list");
                    return;
                  }
                  for (const YAML::Node& r : v) f.rules.push_back(Rule(r));
                }},
               {"shell",
                [&](const YAML::Node& v) {
                  // At most one shell block per file (the AST's invariant, and the DSL's): a
                  // repeated `shell:` key (W2105) joins its lists into the first.
                  ShellAst more = Shell(v);
                  if (f.shell.empty()) {
                    f.shell.push_back(std::move(more));
                    return;
                  }
                  ShellAst& first = f.shell.front();
                  auto join = [](auto& into, auto& from) {
                    into.insert(into.end(), from.begin(), from.end());
                  };
                  join(first.wrappers, more.wrappers);
                  join(first.shells, more.shells);
                  join(first.split_flags, more.split_flags);
                  join(first.stdin_programs, more.stdin_programs);
                  join(first.runners, more.runners);
                  join(first.aliases, more.aliases);
                }},
           });
    return f;
  }

 private:
  const SourceMap& sources_;
  uint32_t file_;
  Diagnostics& diags_;
};

// yaml-cpp parses recursively: `[[[[...` or `- - - - ...` thousands deep overflows the stack (found
// by fuzzing). This bounds the nesting before yaml-cpp sees the text, from above: per line, the
// indentation plus every `-`/`?` indicator plus the flow brackets open at any point (brackets and
// indicators count only where a token starts; quoted scalars and comments are skipped). Rule files
// nest five or six levels; the bound only has to stay far below what overflows.
constexpr size_t kMaxYamlDepth = 200;

size_t NestingBound(std::string_view text) {
  size_t worst = 0;
  size_t flow = 0;  // open [ and { (carried across lines)
  size_t i = 0;
  while (i < text.size()) {
    size_t indent = 0;
    while (i < text.size() && text[i] == ' ') ++indent, ++i;
    size_t indicators = 0;
    bool token_start = true;
    while (i < text.size() && text[i] != '\n') {
      char c = text[i];
      if (token_start && (c == '\'' || c == '"')) {
        // Skip a quoted scalar (it may span lines; good enough for a bound).
        char q = c;
        ++i;
        // A single-quoted scalar escapes its quote by doubling it ('it''s'); reading `''` as the
        // end desynchronises the rest of the text (a printed pattern was once refused so).
        while (i < text.size()) {
          if (text[i] == q && !(q == '\'' && i + 1 < text.size() && text[i + 1] == '\'')) break;
          i += (text[i] == q || (q == '"' && text[i] == '\\')) ? 2 : 1;
        }
        ++i;
        token_start = false;
        continue;
      }
      if (token_start && c == '#') {
        while (i < text.size() && text[i] != '\n') ++i;
        break;
      }
      if (token_start && (c == '[' || c == '{')) {
        ++flow;
      } else if (c == ']' || c == '}') {
        flow = flow > 0 ? flow - 1 : 0;
      } else if (token_start && (c == '-' || c == '?') &&
                 (i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
        ++indicators;
      }
      worst = std::max(worst, indent + indicators + flow);
      token_start = c == ' ' || c == '\t' || c == '[' || c == '{' || c == ',' || c == ':';
      ++i;
    }
    worst = std::max(worst, indent + indicators + flow);
    ++i;
  }
  return worst;
}

// Aliases share nodes, and the reader walks each reference again: `[*a, *a, ...]` over a large
// anchored list multiplies work and memory. This counts the nodes the reader would visit, each
// distinct node once (identified by its position in the text), and refuses past kMaxYamlNodes.
constexpr size_t kMaxYamlNodes = 1u << 20;

size_t ExpandedSize(const YAML::Node& n, std::map<size_t, size_t>* memo, size_t depth) {
  if (depth > kMaxYamlDepth) return kMaxYamlNodes + 1;
  const size_t pos = static_cast<size_t>(std::max(0, n.Mark().pos));
  auto it = memo->find(pos);
  if (it != memo->end() && !n.IsScalar()) return it->second;
  size_t total = 1;
  if (n.IsSequence()) {
    for (const YAML::Node& c : n) {
      total += ExpandedSize(c, memo, depth + 1);
      if (total > kMaxYamlNodes) break;
    }
  } else if (n.IsMap()) {
    for (const auto& kv : n) {
      total += ExpandedSize(kv.first, memo, depth + 1) + ExpandedSize(kv.second, memo, depth + 1);
      if (total > kMaxYamlNodes) break;
    }
  }
  if (!n.IsScalar()) (*memo)[pos] = total;
  return total;
}

}  // namespace

ParsedFile ParseYamlFile(const SourceMap& sources, uint32_t file, Diagnostics& diags) {
  if (NestingBound(sources.Text(file)) > kMaxYamlDepth) {
    diags.Error(DiagCode::E1002, Loc{file, 1, 1, 1},
                "YAML nested too deeply (more than " + std::to_string(kMaxYamlDepth) + " levels)",
                "", "rule files nest a few levels; check for runaway brackets or dashes");
    return {};
  }
  YAML::Node root;
  try {
    root = YAML::Load(sources.Text(file));
    std::map<size_t, size_t> memo;
    if (ExpandedSize(root, &memo, 0) > kMaxYamlNodes) {
      diags.Error(DiagCode::E1002, Loc{file, 1, 1, 1}, "YAML too large once aliases are expanded",
                  "", "more than " + std::to_string(kMaxYamlNodes) + " nodes; avoid *aliases");
      return {};
    }
  } catch (const YAML::ParserException& e) {
    Loc loc{file, static_cast<uint32_t>(std::max(0, e.mark.line) + 1),
            static_cast<uint32_t>(std::max(0, e.mark.column) + 1), 1};
    diags.Error(DiagCode::E1002, loc, "YAML syntax error: " + e.msg, "here");
    return {};
  } catch (const YAML::Exception& e) {
    diags.Error(DiagCode::E1002, Loc{file, 1, 1, 1}, std::string("YAML error: ") + e.what());
    return {};
  }
  YamlReader reader(sources, file, diags);
  if (!root.IsMap()) {
    diags.Error(DiagCode::E1004, Loc{file, 1, 1, 1}, "not a rule file or pack manifest",
                "expected a mapping with 'rules:' or 'pack:' at the top",
                "a rule file starts with `rules:`, a manifest with `pack:`");
    return {};
  }
  try {
    if (root["pack"]) return reader.Manifest(root);
    if (root["rules"] || root["shell"]) return reader.RuleFile(root);
  } catch (const YAML::Exception& e) {
    diags.Error(DiagCode::E1002, Loc{file, 1, 1, 1}, std::string("YAML error: ") + e.what());
    return {};
  }
  diags.Error(DiagCode::E1004, Loc{file, 1, 1, 1}, "not a rule file or pack manifest",
              "no 'rules:', 'shell:' or 'pack:' at the top level");
  return {};
}

}  // namespace doberman::compiler
