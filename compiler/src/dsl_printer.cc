// AST -> canonical DSL (see dsl_printer.h and docs/dsl.md). What a bare word is, which words are
// keywords and how strings and regexes escape come from dsl_lexical.h, shared with the front-end.
#include "dsl_printer.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "dsl_lexical.h"

namespace doberman::compiler {

void CommentQueue::FlushBefore(const Loc& at, size_t indent, std::string_view marker,
                               std::string* out) {
  auto before = [&](const SourceComment& c) {
    return !at.known() || c.line < at.line || (c.line == at.line && c.column < at.column);
  };
  while (next_ < comments_.size() && before(comments_[next_])) {
    std::string text = std::string(marker) + comments_[next_].text;
    for (char& ch : text) {
      if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7F) ch = ' ';
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
    out->append(indent, ' ');
    out->append(text);
    out->push_back('\n');
    ++next_;
  }
}

bool PrinterCore::Print(const ParsedFile& file) {
  if (const auto* m = std::get_if<ManifestAst>(&file)) {
    Manifest(*m);
  } else if (const auto* r = std::get_if<RuleFileAst>(&file)) {
    RuleFile(*r);
  } else {
    return Fail(Loc{}, "nothing to print: the file did not parse");
  }
  comments_.FlushBefore(Loc{}, 0, marker_, &out_);
  return ok_;
}

bool PrinterCore::Fail(Loc loc, std::string message) {
  if (ok_) error_ = PrintError{loc, std::move(message)};
  ok_ = false;
  return false;
}

std::vector<SourceComment> YamlComments(std::string_view text) {
  std::vector<SourceComment> out;
  uint32_t line = 1;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view l =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    size_t k = l.find_first_not_of(" \t");
    if (k != std::string_view::npos && l[k] == '#') {
      out.push_back({line, static_cast<uint32_t>(k + 1), std::string(l.substr(k + 1))});
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
    ++line;
  }
  return out;
}

namespace {

constexpr size_t kWidth = 100;

// Where a value stands decides which bare words read back as that value.
enum class Slot {
  kValue,    // keywords are values here (lists, fixed arity)
  kFlag,     // after a keyword that may stand alone: keywords would end the field
  kWrapper,  // a wrapper name: value_options and positional would be read as options
};

class DslPrinter : public PrinterCore {
 public:
  DslPrinter(const std::vector<SourceComment>& comments, std::string* out, PrintError* error)
      : PrinterCore(comments, "//", out, error) {}

 private:
  static std::string Word(const std::string& v, Slot slot) {
    bool bare = dsl::IsWordText(v) && v != "when";
    if (bare && slot == Slot::kFlag && dsl::IsKeyword(v)) bare = false;
    if (bare && slot == Slot::kWrapper && (v == "value_options" || v == "positional")) bare = false;
    return bare ? v : dsl::QuoteString(v);
  }

  std::string Need(const Text& t, Slot slot, std::string_view what, Loc context) {
    if (!t.present()) {
      Fail(context, std::string(what) + " has no value; the DSL cannot leave it out");
      return "\"\"";
    }
    return Word(t.value, slot);
  }

  void Comments(const Loc& loc) {
    if (loc.known()) comments_.FlushBefore(loc, indent_, "//", &out_);
  }

  void Line(const std::string& text) {
    out_.append(indent_, ' ');
    out_ += text;
    out_.push_back('\n');
  }

  // `key a, b, c`, wrapped after a comma at kWidth columns.
  void ListLine(const std::string& head, const std::vector<std::string>& items) {
    std::string line(indent_, ' ');
    line += head;
    for (size_t i = 0; i < items.size(); ++i) {
      std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
      if (i > 0 && line.size() + 1 + piece.size() > kWidth) {
        out_ += line + "\n";
        line = std::string(indent_ + 4, ' ') + piece;
      } else {
        line += " " + piece;
      }
    }
    out_ += line + "\n";
  }

  std::vector<std::string> Words(const std::vector<Text>& list, Slot slot, Loc context) {
    std::vector<std::string> out;
    for (const Text& t : list) out.push_back(Need(t, slot, "a list item", context));
    return out;
  }

  void Scalar(const std::string& key, const Text& t, Slot slot = Slot::kValue) {
    if (!t.present()) return;
    Comments(t.loc);
    Line(key + " " + Word(t.value, slot));
  }

  void Quoted(const std::string& key, const Text& t) {
    if (!t.present()) return;
    Comments(t.loc);
    Line(key + " " + dsl::QuoteString(t.value));
  }

  // `decode`, `placeholder`, `mention_marker`: alone when true.
  std::string FlagField(const std::string& key, const Text& t) {
    return t.value == "true" ? key : key + " " + Word(t.value, Slot::kFlag);
  }

  void List(const std::string& key, const std::vector<Text>& list, Loc context) {
    if (list.empty()) return;
    Comments(list.front().loc);
    ListLine(key, Words(list, Slot::kValue, context));
  }

  // ---- rules --------------------------------------------------------------------------------
  void RuleFile(const RuleFileAst& f) override {
    // Fragments, shell tables and rules in the order they were written, so that every comment stays
    // with its block and every fragment above the patterns that use it (items without a place, from
    // a caller's own AST, come first, in this order: fragments, shell, rules).
    std::vector<Item> items;
    for (const FragmentAst& d : f.fragments)
      items.push_back({d.name.loc, true, [this, &d] { Define(d); }});
    for (const ShellAst& sh : f.shell) items.push_back({sh.loc, false, [this, &sh] { Shell(sh); }});
    for (const RuleAst& r : f.rules) items.push_back({r.loc, false, [this, &r] { Rule(r); }});
    InSourceOrder(items);
  }

  // A top-level block (a fragment, shell tables, a rule, a pack) and how to print it.
  struct Item {
    Loc loc;
    bool define;
    std::function<void()> print;
  };

  void InSourceOrder(std::vector<Item>& items) {
    const auto place = [](const Loc& l) {
      return l.known() ? std::pair(l.line, l.column) : std::pair(0u, 0u);
    };
    std::stable_sort(items.begin(), items.end(), [&place](const Item& a, const Item& b) {
      return place(a.loc) < place(b.loc);
    });
    for (size_t i = 0; i < items.size(); ++i) {
      // a run of defines reads as one list; blocks are set apart by a blank line
      if (i > 0 && !(items[i].define && items[i - 1].define)) out_ += "\n";
      items[i].print();
    }
  }

  void Define(const FragmentAst& d) {
    Comments(d.name.loc);
    if (!d.pattern.flags.empty()) {
      // the DSL has no place for them; the checker refuses them anyway (E2103)
      Fail(d.name.loc, "fragment '" + d.name.value + "' has flags; a fragment takes none");
    }
    Line("define " + Need(d.name, Slot::kValue, "a fragment name", d.name.loc) + " " +
         Pattern(d.pattern));
  }

  std::string Pattern(const PatternAst& p) {
    std::string body;
    std::string out;
    size_t letters = 0;
    if (dsl::EncodeRegexBody(p.regex.value, &body)) {
      out = "/" + body + "/";
      while (letters < p.flags.size() && p.flags[letters].present() &&
             dsl::LetterForFlag(p.flags[letters].value) != 0) {
        out.push_back(dsl::LetterForFlag(p.flags[letters].value));
        ++letters;
      }
    } else {
      out = dsl::QuoteString(p.regex.value);
    }
    if (letters < p.flags.size()) {
      std::vector<Text> rest(p.flags.begin() + static_cast<std::ptrdiff_t>(letters), p.flags.end());
      std::string list;
      for (const std::string& w : Words(rest, Slot::kValue, p.regex.loc))
        list += (list.empty() ? "" : ", ") + w;
      out += " (" + list + ")";
    }
    return out;
  }

  void Rule(const RuleAst& r) {
    Comments(r.loc);
    std::string head = "rule";
    if (r.id.present()) head += " " + Word(r.id.value, Slot::kValue);
    if (r.family.present()) head += " : " + Word(r.family.value, Slot::kValue);
    Line(head + " {");
    indent_ += 2;
    Quoted("description", r.description);
    List("scopes", r.scopes, r.loc);
    Scalar("verdict", r.verdict);
    Scalar("tier", r.tier);
    Scalar("reason", r.reason);
    Quoted("message", r.message);
    List("tags", r.tags, r.loc);
    List("origins", r.origins, r.loc);
    Scalar("mention", r.mention_cap);
    if (r.mention_marker.present()) {
      Comments(r.mention_marker.loc);
      Line(FlagField("mention_marker", r.mention_marker));
    }
    for (const PatternAst& p : r.patterns) {
      if (!p.regex.present()) {
        Fail(r.loc, "a pattern has no regex");
        continue;
      }
      Comments(p.regex.loc);
      const char* role = p.role == PatternRole::kAny    ? "any"
                         : p.role == PatternRole::kAll  ? "all"
                         : p.role == PatternRole::kNone ? "none"
                                                        : "excuse";
      Line(std::string(role) + " " + Pattern(p));
    }
    if (r.validators.present) Validators(r.validators);
    if (r.decode.present()) {
      Comments(r.decode.loc);
      Line(FlagField("decode", r.decode));
    }
    if (r.when.present()) {
      Comments(r.when.loc);
      Line("when " +
           (dsl::IsBareWhenText(r.when.value) ? r.when.value : dsl::QuoteString(r.when.value)));
    }
    for (const ExampleAst& e : r.examples) Example(e);
    indent_ -= 2;
    Line("}");
  }

  void Validators(const ValidatorsAst& v) {
    Comments(v.loc);
    std::vector<std::string> fields;
    if (v.min_entropy.present())
      fields.push_back("min_entropy " + Word(v.min_entropy.value, Slot::kValue));
    if (v.min_length.present())
      fields.push_back("min_length " + Word(v.min_length.value, Slot::kValue));
    if (v.placeholder.present()) fields.push_back(FlagField("placeholder", v.placeholder));
    std::vector<std::string> exempt;
    for (const Text* t : {&v.exempt_hashes, &v.exempt_identifiers}) {
      if (!t->present()) continue;
      if (t->value != "true") {
        Fail(t->loc, "an exemption set to '" + t->value + "': the DSL can only list exemptions");
      }
    }
    if (v.exempt_hashes.present()) exempt.push_back("hashes");
    if (v.exempt_identifiers.present()) exempt.push_back("identifiers");
    if (!exempt.empty()) {
      std::string e = "exempt " + exempt[0];
      for (size_t i = 1; i < exempt.size(); ++i) e += ", " + exempt[i];
      fields.push_back(e);
    }
    Block("validators", fields);
  }

  // `key { a b c }` on one line when it fits, else one field per line.
  void Block(const std::string& key, const std::vector<std::string>& fields) {
    if (fields.empty()) {
      Line(key + " {}");
      return;
    }
    std::string one = key + " {";
    for (const std::string& f : fields) one += " " + f;
    one += " }";
    if (indent_ + one.size() <= kWidth && one.find('\n') == std::string::npos) {
      Line(one);
      return;
    }
    Line(key + " {");
    indent_ += 2;
    for (const std::string& f : fields) Line(f);
    indent_ -= 2;
    Line("}");
  }

  void Example(const ExampleAst& e) {
    const std::string key = e.expect_match ? "match" : "pass";
    if (e.text) {
      Comments(e.text->loc);
      Line(key + " " + dsl::QuoteString(e.text->value));
      return;
    }
    Comments(e.loc);
    const CallAst& c = e.call;
    std::vector<std::string> fields;
    const std::pair<const char*, const Text*> kFields[] = {
        {"tool", &c.tool},     {"command", &c.command}, {"path", &c.path},
        {"cwd", &c.cwd},       {"content", &c.content}, {"url", &c.url},
        {"prompt", &c.prompt}, {"origin", &c.origin}};
    for (const auto& [name, t] : kFields) {
      if (t->present()) fields.push_back(std::string(name) + " " + dsl::QuoteString(t->value));
    }
    if (!c.args.empty()) {
      std::string a = "args";
      for (size_t i = 0; i < c.args.size(); ++i) {
        a += (i == 0 ? " " : ", ") +
             (c.args[i].present() ? dsl::QuoteString(c.args[i].value) : "\"\"");
        if (!c.args[i].present()) Fail(e.loc, "an example argument has no value");
      }
      fields.push_back(a);
    }
    Block(key, fields);
  }

  // ---- shell tables -------------------------------------------------------------------------
  void Shell(const ShellAst& s) {
    Comments(s.loc);
    Line("shell {");
    indent_ += 2;
    if (!s.wrappers.empty()) {
      Line("wrappers {");
      indent_ += 2;
      for (const WrapperAst& w : s.wrappers) {
        if (!w.name.present()) {
          Fail(s.loc, "a wrapper has no name; the DSL names every wrapper");
          continue;
        }
        Comments(w.name.loc);
        std::string line = Word(w.name.value, Slot::kWrapper);
        std::vector<std::string> items;
        if (!w.value_options.empty()) items = Words(w.value_options, Slot::kValue, w.name.loc);
        if (w.positional.present()) {
          // Written first so that the option list can wrap at the end of the line.
          line += " positional " + Word(w.positional.value, Slot::kValue);
        }
        if (items.empty()) {
          Line(line);
        } else {
          ListLine(line + " value_options", items);
        }
      }
      indent_ -= 2;
      Line("}");
    }
    List("shells", s.shells, s.loc);
    List("split_flags", s.split_flags, s.loc);
    List("stdin_programs", s.stdin_programs, s.loc);
    List("runners", s.runners, s.loc);
    for (const AliasAst& a : s.aliases) {
      if (!a.command.present() || !a.from.present() || !a.to.present()) {
        Fail(s.loc, "an alias lacks its command, from or to; the DSL writes all three");
        continue;
      }
      Comments(a.command.loc);
      Line("alias " + Word(a.command.value, Slot::kValue) + " " + Word(a.from.value, Slot::kValue) +
           " -> " + Word(a.to.value, Slot::kValue));
    }
    indent_ -= 2;
    Line("}");
  }

  // ---- manifests ----------------------------------------------------------------------------
  void Manifest(const ManifestAst& m) override {
    // The pack block and the pack-wide fragments in the order they were written (fragments of a
    // caller's own AST, without a place, first).
    std::vector<Item> items;
    for (const FragmentAst& d : m.fragments)
      items.push_back({d.name.loc, true, [this, &d] { Define(d); }});
    items.push_back({m.loc, false, [this, &m] { Pack(m); }});
    InSourceOrder(items);
  }

  void Pack(const ManifestAst& m) {
    Comments(m.loc);
    Line(std::string("pack") + (m.name.present() ? " " + Word(m.name.value, Slot::kValue) : "") +
         " {");
    indent_ += 2;
    Scalar("version", m.version);
    Scalar("revision", m.revision);
    Quoted("description", m.description);
    Scalar("expires", m.expires);
    List("include", m.includes, m.loc);
    List("exclude_rules", m.exclude_rules, m.loc);
    List("platforms", m.platforms, m.loc);
    if (!m.limits.empty()) {
      Line("limits {");
      indent_ += 2;
      for (const LimitAst& l : m.limits) {
        Comments(l.name.loc);
        Line(Need(l.name, Slot::kValue, "a limit name", m.loc) + " " +
             Need(l.value, Slot::kValue, "a limit", m.loc));
      }
      indent_ -= 2;
      Line("}");
    }
    indent_ -= 2;
    Line("}");
  }

  size_t indent_ = 0;
};

}  // namespace

bool PrintDsl(const ParsedFile& file, const std::vector<SourceComment>& comments, std::string* out,
              PrintError* error) {
  return PrintWhole<DslPrinter>(file, comments, out, error);
}

}  // namespace doberman::compiler
