// AST -> YAML (see yaml_printer.h). Keys follow yaml_frontend.cc; the order of keys in a rule is
// fixed except for patterns/all/none and match/pass, which follow the AST's order.
#include "yaml_printer.h"

#include <cstdio>

#include "dsl_lexical.h"

namespace doberman::compiler {
namespace {

// True when the code point should not appear raw in a single-quoted scalar.
bool NeedsEscape(uint32_t cp) {
  std::string probe;
  dsl::AppendUtf8(cp, &probe);
  // QuoteString escapes exactly the invisible and control characters: reuse its judgement.
  return dsl::QuoteString(probe) != "\"" + probe + "\"";
}

}  // namespace

std::string YamlQuote(std::string_view value) {
  bool single = true;
  for (size_t i = 0; i < value.size() && single;) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7F) {
      single = false;
    } else if (c >= 0x80) {
      uint32_t cp = 0;
      size_t len = dsl::DecodeUtf8(value, i, &cp);
      if (len == 0 || NeedsEscape(cp)) single = false;
      i += len == 0 ? 1 : len;
      continue;
    }
    ++i;
  }
  if (single) {
    std::string out = "'";
    for (char c : value) {
      if (c == '\'')
        out += "''";
      else
        out.push_back(c);
    }
    return out + "'";
  }
  std::string out = "\"";
  char buf[16];
  for (size_t i = 0; i < value.size();) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x80) {
      dsl::AppendQuotedAscii(c, &out);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t len = dsl::DecodeUtf8(value, i, &cp);
    if (len == 0) {
      // yaml-cpp passes bytes that are not UTF-8 through unchanged; an escape could not carry them
      // (YAML's \xHH is a code point, written back as UTF-8).
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (NeedsEscape(cp)) {
      if (cp <= 0xFFFF) {
        std::snprintf(buf, sizeof buf, "\\u%04X", cp);
      } else {
        std::snprintf(buf, sizeof buf, "\\U%08X", cp);
      }
      out += buf;
      i += len;
    } else {
      out.append(value.substr(i, len));
      i += len;
    }
  }
  return out + "\"";
}

namespace {

class YamlPrinter : public PrinterCore {
 public:
  YamlPrinter(const std::vector<SourceComment>& comments, std::string* out, PrintError* error)
      : PrinterCore(comments, "#", out, error) {}

 private:
  void Comments(const Loc& loc, size_t indent) {
    if (loc.known()) comments_.FlushBefore(loc, indent, "#", &out_);
  }

  std::string Q(const Text& t, Loc context, std::string_view what) {
    if (!t.present()) Fail(context, std::string(what) + " has no value");
    return YamlQuote(t.value);
  }

  // A list item written as a flow mapping of `key: value` fields: `    - {a: 1, b: 2}`.
  void FlowMapItem(const std::vector<std::string>& fields) {
    out_ += "    - {";
    for (size_t k = 0; k < fields.size(); ++k) out_ += (k ? ", " : "") + fields[k];
    out_ += "}\n";
  }

  std::string Flow(const std::vector<Text>& list, Loc context) {
    std::string out = "[";
    for (size_t i = 0; i < list.size(); ++i)
      out += (i ? ", " : "") + Q(list[i], context, "a list item");
    return out + "]";
  }

  void Key(size_t indent, const std::string& key, const Text& t) {
    if (!t.present()) return;
    Comments(t.loc, indent);
    out_ += std::string(indent, ' ') + key + ": " + YamlQuote(t.value) + "\n";
  }

  void KeyList(size_t indent, const std::string& key, const std::vector<Text>& list, Loc context) {
    if (list.empty()) return;
    Comments(list.front().loc, indent);
    out_ += std::string(indent, ' ') + key + ": " + Flow(list, context) + "\n";
  }

  // `define:`, one mapping of a file's or a manifest's fragments in their order.
  void Defines(const std::vector<FragmentAst>& fragments) {
    if (fragments.empty()) return;
    Comments(fragments.front().name.loc, 0);
    out_ += "define:\n";
    for (const FragmentAst& d : fragments) {
      Comments(d.name.loc, 2);
      const std::string name = Q(d.name, d.name.loc, "a fragment name");
      const std::string regex = Q(d.pattern.regex, d.name.loc, "a fragment");
      if (d.pattern.flags.empty()) {
        out_ += "  " + name + ": " + regex + "\n";
      } else {
        out_ += "  " + name + ": {regex: " + regex +
                ", flags: " + Flow(d.pattern.flags, d.pattern.regex.loc) + "}\n";
      }
    }
  }

  // ---- rules --------------------------------------------------------------------------------
  void RuleFile(const RuleFileAst& f) override {
    Defines(f.fragments);  // one mapping, first: every fragment above the rules that use it
    if (f.shell.size() > 1) Fail(f.shell[1].loc, "YAML holds one `shell:` table per file");
    for (const ShellAst& s : f.shell) Shell(s);
    if (f.rules.empty() && !f.shell.empty()) return;
    if (f.rules.empty()) {
      out_ += "rules: []\n";
      return;
    }
    out_ += "rules:\n";
    for (size_t i = 0; i < f.rules.size(); ++i) {
      if (i > 0) out_ += "\n";
      Rule(f.rules[i]);
    }
  }

  void Rule(const RuleAst& r) {
    Comments(r.loc, 2);
    // The first key goes after the sequence dash.
    first_in_item_ = true;
    auto key = [&](const std::string& k, const Text& t) {
      if (!t.present()) return;
      Comments(t.loc, 4);
      Item(k + ": " + YamlQuote(t.value));
    };
    auto list = [&](const std::string& k, const std::vector<Text>& l) {
      if (l.empty()) return;
      Comments(l.front().loc, 4);
      Item(k + ": " + Flow(l, r.loc));
    };
    key("id", r.id);
    key("description", r.description);
    key("family", r.family);
    list("scopes", r.scopes);
    key("verdict", r.verdict);
    key("tier", r.tier);
    key("reason", r.reason);
    key("message", r.message);
    list("tags", r.tags);
    list("origins", r.origins);
    Patterns(r);
    if (r.validators.present) Validators(r.validators);
    key("decode", r.decode);
    key("mention", r.mention_cap);
    key("mention_marker", r.mention_marker);
    key("when", r.when);
    Examples(r);
    if (first_in_item_) out_ += "  - {}\n";  // a rule with nothing in it
  }

  // One `key: value` line of the current rule mapping (the first one after `- `).
  void Item(const std::string& text) {
    out_ += (first_in_item_ ? "  - " : "    ") + text + "\n";
    first_in_item_ = false;
  }

  void Patterns(const RuleAst& r) {
    // Runs of one role, in order; a role that comes back after another cannot be written.
    size_t i = 0;
    bool seen[4] = {false, false, false, false};
    while (i < r.patterns.size()) {
      PatternRole role = r.patterns[i].role;
      int idx = static_cast<int>(role);
      if (seen[idx]) {
        Fail(r.patterns[i].regex.loc,
             "rule '" + r.id.value +
                 "' interleaves any/all/none/excuse patterns; YAML groups them by role "
                 "(write all `any` patterns together, then `all`, then `none`, then `excuse`, or "
                 "keep the rule in the DSL)");
        return;
      }
      seen[idx] = true;
      const char* key = role == PatternRole::kAny    ? "patterns"
                        : role == PatternRole::kAll  ? "all"
                        : role == PatternRole::kNone ? "none"
                                                     : "excuse";
      Comments(r.patterns[i].regex.loc, 4);
      Item(std::string(key) + ":");
      for (; i < r.patterns.size() && r.patterns[i].role == role; ++i) {
        const PatternAst& p = r.patterns[i];
        Comments(p.regex.loc, 6);
        std::string regex = Q(p.regex, r.loc, "a pattern");
        if (p.flags.empty()) {
          out_ += "      - " + regex + "\n";
        } else {
          out_ += "      - {regex: " + regex + ", flags: " + Flow(p.flags, p.regex.loc) + "}\n";
        }
      }
    }
  }

  void Validators(const ValidatorsAst& v) {
    Comments(v.loc, 4);
    std::vector<std::string> fields;
    if (v.min_entropy.present()) fields.push_back("min_entropy: " + YamlQuote(v.min_entropy.value));
    if (v.min_length.present()) fields.push_back("min_length: " + YamlQuote(v.min_length.value));
    if (v.placeholder.present()) fields.push_back("placeholder: " + YamlQuote(v.placeholder.value));
    std::vector<std::string> exempt;
    for (const auto& [t, name] :
         {std::pair{&v.exempt_hashes, "hashes"}, std::pair{&v.exempt_identifiers, "identifiers"}}) {
      if (!t->present()) continue;
      if (t->value != "true")
        Fail(t->loc, "an exemption set to '" + t->value + "': YAML can only list exemptions");
      exempt.push_back(std::string("'") + name + "'");
    }
    if (!exempt.empty()) {
      std::string e = "exempt: [";
      for (size_t i = 0; i < exempt.size(); ++i) e += (i ? ", " : "") + exempt[i];
      fields.push_back(e + "]");
    }
    std::string line = "validators: {";
    for (size_t i = 0; i < fields.size(); ++i) line += (i ? ", " : "") + fields[i];
    Item(line + "}");
  }

  void Examples(const RuleAst& r) {
    if (r.examples.empty()) return;
    Comments(r.examples.front().loc, 4);
    Item("examples:");
    size_t i = 0;
    bool seen[2] = {false, false};
    while (i < r.examples.size()) {
      bool match = r.examples[i].expect_match;
      if (seen[match ? 1 : 0]) {
        Fail(r.examples[i].loc, "rule '" + r.id.value +
                                    "' interleaves match and pass examples; YAML "
                                    "groups them (write all `match` examples together, then "
                                    "`pass`, or keep the rule in the DSL)");
        return;
      }
      seen[match ? 1 : 0] = true;
      out_ += std::string("      ") + (match ? "match:" : "pass:") + "\n";
      for (; i < r.examples.size() && r.examples[i].expect_match == match; ++i) {
        const ExampleAst& e = r.examples[i];
        Comments(e.loc, 8);
        if (e.text) {
          out_ += "        - " + Q(*e.text, e.loc, "an example") + "\n";
          continue;
        }
        const CallAst& c = e.call;
        std::vector<std::string> fields;
        const std::pair<const char*, const Text*> kFields[] = {
            {"tool", &c.tool},     {"command", &c.command}, {"path", &c.path},
            {"cwd", &c.cwd},       {"content", &c.content}, {"url", &c.url},
            {"prompt", &c.prompt}, {"origin", &c.origin}};
        for (const auto& [name, t] : kFields) {
          if (t->present()) fields.push_back(std::string(name) + ": " + YamlQuote(t->value));
        }
        if (!c.args.empty()) fields.push_back("args: " + Flow(c.args, e.loc));
        std::string line = "{";
        for (size_t k = 0; k < fields.size(); ++k) line += (k ? ", " : "") + fields[k];
        out_ += "        - " + line + "}\n";
      }
    }
  }

  // ---- shell tables -------------------------------------------------------------------------
  void Shell(const ShellAst& s) {
    Comments(s.loc, 0);
    out_ += "shell:";
    bool empty = s.wrappers.empty() && s.shells.empty() && s.split_flags.empty() &&
                 s.stdin_programs.empty() && s.runners.empty() && s.aliases.empty();
    out_ += empty ? " {}\n" : "\n";
    if (!s.wrappers.empty()) {
      out_ += "  wrappers:\n";
      for (const WrapperAst& w : s.wrappers) {
        Comments(w.name.loc, 4);
        std::vector<std::string> fields;
        if (w.name.present()) fields.push_back("name: " + YamlQuote(w.name.value));
        if (!w.value_options.empty())
          fields.push_back("value_options: " + Flow(w.value_options, s.loc));
        if (w.positional.present())
          fields.push_back("positional: " + YamlQuote(w.positional.value));
        FlowMapItem(fields);
      }
    }
    KeyList(2, "shells", s.shells, s.loc);
    KeyList(2, "split_flags", s.split_flags, s.loc);
    KeyList(2, "stdin_programs", s.stdin_programs, s.loc);
    KeyList(2, "runners", s.runners, s.loc);
    if (!s.aliases.empty()) {
      out_ += "  aliases:\n";
      for (const AliasAst& a : s.aliases) {
        Comments(a.command.loc, 4);
        std::vector<std::string> fields;
        if (a.command.present()) fields.push_back("command: " + YamlQuote(a.command.value));
        if (a.from.present()) fields.push_back("from: " + YamlQuote(a.from.value));
        if (a.to.present()) fields.push_back("to: " + YamlQuote(a.to.value));
        FlowMapItem(fields);
      }
    }
  }

  // ---- manifests ----------------------------------------------------------------------------
  void Manifest(const ManifestAst& m) override {
    Comments(m.loc, 0);
    bool empty = !m.name.present() && !m.version.present() && !m.revision.present() &&
                 !m.description.present() && !m.expires.present();
    out_ += empty ? "pack: {}\n" : "pack:\n";
    Key(2, "name", m.name);
    Key(2, "version", m.version);
    Key(2, "revision", m.revision);
    Key(2, "description", m.description);
    Key(2, "expires", m.expires);
    KeyList(0, "include", m.includes, m.loc);
    KeyList(0, "exclude_rules", m.exclude_rules, m.loc);
    KeyList(0, "platforms", m.platforms, m.loc);
    if (!m.limits.empty()) {
      out_ += "limits:\n";
      for (const LimitAst& l : m.limits) {
        Comments(l.name.loc, 2);
        out_ +=
            "  " + Q(l.name, m.loc, "a limit name") + ": " + Q(l.value, m.loc, "a limit") + "\n";
      }
    }
    Defines(m.fragments);  // last: the pack-wide vocabulary below what the pack is made of
  }

  bool first_in_item_ = false;
};

}  // namespace

bool PrintYaml(const ParsedFile& file, const std::vector<SourceComment>& comments, std::string* out,
               PrintError* error) {
  return PrintWhole<YamlPrinter>(file, comments, out, error);
}

}  // namespace doberman::compiler
