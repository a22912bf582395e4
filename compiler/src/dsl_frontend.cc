// DSL -> AST. The only file that sees ANTLR: its lexer and parser run here, ANTLR's console error
// printing is replaced by a listener that reports into our Diagnostics, and the parse tree is
// walked into the AST before anything leaves. ANTLR counts code points; every Loc here is a 1-based
// line and byte column, converted once through the code point -> byte offset table
// (dsl::ToCodePoints). ANTLR may throw internally; nothing escapes ParseDslFile.
#include "dsl_frontend.h"

#include <antlr4-runtime.h>

#include <algorithm>
#include <map>
#include <memory>

#include "DobermanLexer.h"
#include "DobermanParser.h"
#include "dsl_lexical.h"

namespace doberman::compiler {
namespace {

using doberman_dsl::DobermanLexer;
using doberman_dsl::DobermanParser;
using P = DobermanParser;

constexpr DiagCode kSyntax = DiagCode::E1003;  // the parser did not expect this token
constexpr DiagCode kLexical =
    DiagCode::E1006;                           // stray character, unterminated string/regex/comment
constexpr DiagCode kEscape = DiagCode::E1007;  // invalid escape in a string
constexpr DiagCode kFlagLetter = DiagCode::E1008;  // unknown regex flag letter
constexpr DiagCode kStructure =
    DiagCode::E1009;  // field or block given twice; manifest mixed with rules

bool Has(const antlr4::misc::IntervalSet& set, size_t type) { return set.contains(type); }

bool IsKeywordToken(size_t type) { return type >= P::K_RULE && type <= P::K_WHEN; }

// Keyword token types follow dsl::Keywords() order (checked once against the vocabulary in
// ParseDslFile, so that the grammar and the printer cannot drift apart silently).
const std::string& KeywordText(size_t type) { return dsl::Keywords()[type - P::K_RULE]; }

bool VocabularyMatchesKeywords(const antlr4::dfa::Vocabulary& vocabulary) {
  if (dsl::Keywords().size() != P::K_WHEN - P::K_RULE + 1) return false;
  for (size_t k = P::K_RULE; k <= P::K_WHEN; ++k) {
    if (vocabulary.getLiteralName(k) != "'" + KeywordText(k) + "'") return false;
  }
  return true;
}

// ANTLR's input: our code points (invalid UTF-8 bytes mapped to private-use code points) so that
// ANTLR never decodes, and never throws on, the bytes itself.
class CodePointStream : public antlr4::ANTLRInputStream {
 public:
  CodePointStream(std::u32string code_points, const std::string& source_name) {
    _data = std::move(code_points);
    p = 0;
    name = source_name;
  }
};

// Everything the lexer, the listener and the builder share about one file.
// Diagnostics are collected here and handed to Diagnostics sorted by position once parsing is done
// (parser and builder errors would otherwise interleave out of order). kMaxPending bounds the work
// on garbage input; the Diagnostics cap still applies when they are handed over.
constexpr size_t kMaxPending = 1000;

struct FileContext {
  const SourceMap& sources;
  uint32_t file;
  std::vector<Diagnostic>* pending;  // null: lex only, report nothing (comment extraction)
  const std::string& text;
  std::vector<size_t> offsets;  // code point index -> byte offset (size + 1 entries)

  bool ValidRange(const antlr4::Token* t) const {
    if (t == nullptr) return false;
    size_t start = t->getStartIndex(), stop = t->getStopIndex();
    return start != INVALID_INDEX && stop != INVALID_INDEX && start <= stop &&
           stop + 1 < offsets.size();
  }
  size_t Begin(const antlr4::Token* t) const { return offsets[t->getStartIndex()]; }
  size_t End(const antlr4::Token* t) const { return offsets[t->getStopIndex() + 1]; }
  std::string_view Bytes(const antlr4::Token* t) const {
    return std::string_view(text).substr(Begin(t), End(t) - Begin(t));
  }
  Loc At(size_t byte_offset, size_t length) const {
    return sources.LocAt(file, byte_offset, static_cast<uint32_t>(std::max<size_t>(1, length)));
  }
  Loc LocOf(const antlr4::Token* t) const {
    if (!ValidRange(t)) return EndLoc();
    return At(Begin(t), End(t) - Begin(t));
  }
  // Just after the last non-blank byte: where "unexpected end of file" points.
  Loc EndLoc() const {
    size_t end = text.size();
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\n' || text[end - 1] == '\r' ||
                       text[end - 1] == '\t')) {
      --end;
    }
    return At(end, 1);
  }
  void Error(DiagCode code, Loc loc, std::string message, std::string label = {},
             std::string help = {}) const {
    if (pending != nullptr && pending->size() < kMaxPending) {
      pending->push_back({Severity::kError, code, DiagCodeName(code), std::move(message), loc,
                          std::move(label), std::move(help)});
    }
  }
  bool Capped() const { return pending != nullptr && pending->size() >= kMaxPending; }
};

// A short, printable excerpt of source bytes for messages.
std::string Excerpt(std::string_view bytes) {
  std::string quoted = dsl::QuoteString(bytes.substr(0, 40));
  std::string out = quoted.substr(1, quoted.size() - 2);
  if (bytes.size() > 40) out += "...";
  return out;
}

// The lexer with its error tokens turned into diagnostics: unterminated strings and regexes are
// reported and passed on as if terminated (so that the parser does not report them again); stray
// characters and unterminated comments are reported and dropped. Once the diagnostics cap is
// reached the input ends, so a garbage file costs no more than the cap.
class Lexer : public DobermanLexer {
 public:
  Lexer(antlr4::CharStream* input, const FileContext& fc) : DobermanLexer(input), fc_(fc) {}

  std::unique_ptr<antlr4::Token> nextToken() override {
    while (true) {
      if (fc_.Capped()) {
        emitEOF();
        return std::move(token);
      }
      std::unique_ptr<antlr4::Token> t = DobermanLexer::nextToken();
      auto* w = dynamic_cast<antlr4::WritableToken*>(t.get());
      switch (t->getType()) {
        case UNTERMINATED_STRING:
          fc_.Error(kLexical, fc_.LocOf(t.get()), "unterminated string", "the string starts here",
                    "close it with `\"` on the same line; write a line break as \\n");
          if (w != nullptr) w->setType(STRING);
          return t;
        case UNTERMINATED_REGEX:
          fc_.Error(kLexical, fc_.LocOf(t.get()), "unterminated regex", "the regex starts here",
                    "close it with `/` on the same line; write a `/` inside it as `\\/`");
          if (w != nullptr) w->setType(REGEX);
          return t;
        case UNTERMINATED_COMMENT: {
          Loc loc = fc_.ValidRange(t.get()) ? fc_.At(fc_.Begin(t.get()), 2) : fc_.EndLoc();
          fc_.Error(kLexical, loc, "unterminated comment", "the comment starts here",
                    "close it with `*/`");
          continue;
        }
        case ERROR_CHAR:
          ReportStray(t.get());
          continue;
        case HASH_COMMENT:
          fc_.Error(kLexical,
                    fc_.ValidRange(t.get()) ? fc_.At(fc_.Begin(t.get()), 1) : fc_.EndLoc(),
                    "'#' does not start a comment here", "read as a comment to the end of the line",
                    "comments start with // or are written /* ... */");
          continue;
        default:
          return t;
      }
    }
  }

 private:
  void ReportStray(const antlr4::Token* t) {
    if (!fc_.ValidRange(t)) return;
    std::string_view b = fc_.Bytes(t);
    uint32_t cp = 0;
    std::string what;
    if (dsl::DecodeUtf8(b, 0, &cp) == 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "byte 0x%02X that is not UTF-8",
                    static_cast<unsigned>(static_cast<unsigned char>(b[0])));
      what = buf;
    } else {
      what = b == "'" ? std::string("single quote") : "character '" + Excerpt(b) + "'";
    }
    std::string help = "strings are written in double quotes; regexes as /.../";
    if (b == "'") help = "strings are written in double quotes, not single quotes";
    if (b == "#") help = "comments start with // or are written /* ... */";
    if (b == ";") help = "fields need no separator: put them on their own lines";
    fc_.Error(kLexical, fc_.LocOf(t), "unexpected " + what, "not part of the language", help);
  }

  const FileContext& fc_;
};

// Replaces ANTLR's console printing: every syntax error becomes an E1003 diagnostic with our
// wording (what was found, what was expected, a did-you-mean for misspelt keywords).
class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit SyntaxErrorListener(const FileContext& fc) : fc_(fc) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t, size_t,
                   const std::string& msg, std::exception_ptr e) override {
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (parser == nullptr) {
      // The lexer has a catch-all token and never reports; keep a sane message if it ever does.
      auto* lexer = dynamic_cast<antlr4::Lexer*>(recognizer);
      size_t index = lexer != nullptr ? lexer->tokenStartCharIndex : 0;
      Loc loc = index < fc_.offsets.size() ? fc_.At(fc_.offsets[index], 1) : fc_.EndLoc();
      fc_.Error(kLexical, loc, "unexpected character", "not part of the language");
      return;
    }
    antlr4::misc::IntervalSet expected;
    try {
      if (e) std::rethrow_exception(e);
      expected = parser->getExpectedTokens();
    } catch (const antlr4::RecognitionException& re) {
      expected = re.getExpectedTokens();
    } catch (...) {
    }
    const bool missing = msg.rfind("missing ", 0) == 0;
    const bool at_eof = offending == nullptr || offending->getType() == antlr4::Token::EOF;
    std::string wanted = DescribeExpected(expected);
    Loc loc = at_eof ? fc_.EndLoc() : fc_.LocOf(offending);
    std::string message, label;
    if (missing) {
      message = "missing " + (wanted.empty() ? std::string("a token") : wanted);
      label = at_eof ? "the file ends here" : "expected " + wanted + " before this";
    } else {
      message = "unexpected " + DescribeToken(offending, at_eof);
      label = wanted.empty() ? "not expected here" : "expected " + wanted;
    }
    fc_.Error(kSyntax, loc, message, label, Help(offending, at_eof, expected));
  }

 private:
  std::string DescribeToken(const antlr4::Token* t, bool at_eof) const {
    if (at_eof || !fc_.ValidRange(t)) return "end of file";
    std::string_view b = fc_.Bytes(t);
    switch (t->getType()) {
      case P::STRING: {
        std::string_view body = b.substr(1);
        if (!body.empty() && body.back() == '"') body.remove_suffix(1);
        return "string \"" + Excerpt(body) + "\"";
      }
      case P::REGEX:
        return "regex " + Excerpt(b);
      case P::WHEN_TEXT:
        return "'" + Excerpt(b) + "'";
      default:
        return "'" + Excerpt(b) + "'";
    }
  }

  static std::string Join(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
      out += items[i];
    }
    return out;
  }

  std::string DescribeExpected(const antlr4::misc::IntervalSet& set) const {
    if (set.isEmpty()) return "";
    std::vector<std::string> parts;
    const bool value = Has(set, P::WORD) && Has(set, P::STRING);
    size_t keywords = 0;
    for (size_t k = P::K_RULE; k <= P::K_WHEN; ++k) keywords += Has(set, k) ? 1 : 0;
    if (Has(set, P::WHEN_TEXT)) {
      return "a when-expression";
    } else if (value) {
      parts.push_back("a value");
    } else if (keywords >= 4) {
      if (Has(set, P::K_VERDICT))
        parts.push_back("a rule field");
      else if (Has(set, P::K_MIN_ENTROPY))
        parts.push_back("a validator setting");
      else if (Has(set, P::K_TOOL))
        parts.push_back("an example field");
      else if (Has(set, P::K_WRAPPERS))
        parts.push_back("a shell field");
      else if (Has(set, P::K_VERSION))
        parts.push_back("a pack field");
      else if (Has(set, P::K_RULE))
        parts.push_back("'rule', 'shell' or 'pack'");
      else
        parts.push_back("a keyword");
    } else {
      for (size_t k = P::K_RULE; k <= P::K_WHEN; ++k) {
        if (Has(set, k)) parts.push_back("'" + KeywordText(k) + "'");
      }
    }
    if (!value && Has(set, P::WORD)) parts.push_back("a word");
    if (!value && Has(set, P::STRING))
      parts.push_back(Has(set, P::REGEX) ? "a \"string\"" : "a string");
    if (Has(set, P::REGEX)) parts.push_back("a /regex/");
    if (Has(set, P::WHEN_TEXT)) parts.push_back("a when-expression");
    static const std::pair<size_t, const char*> kPunct[] = {
        {P::LBRACE, "'{'"}, {P::RBRACE, "'}'"}, {P::LPAREN, "'('"}, {P::RPAREN, "')'"},
        {P::COMMA, "','"},  {P::COLON, "':'"},  {P::ARROW, "'->'"}};
    for (const auto& [type, text] : kPunct) {
      if (Has(set, type)) parts.push_back(text);
    }
    if (Has(set, antlr4::Token::EOF)) parts.push_back("end of file");
    return Join(parts);
  }

  std::string Help(const antlr4::Token* t, bool at_eof,
                   const antlr4::misc::IntervalSet& set) const {
    if (at_eof) {
      return Has(set, P::RBRACE) ? "a block opened with '{' is not closed" : "";
    }
    if (!fc_.ValidRange(t)) return "";
    std::string_view b = fc_.Bytes(t);
    if ((t->getType() == P::WORD || IsKeywordToken(t->getType())) && !Has(set, P::WORD)) {
      std::vector<std::string> candidates;
      for (size_t k = P::K_RULE; k <= P::K_WHEN; ++k) {
        if (Has(set, k)) candidates.push_back(KeywordText(k));
      }
      // Short words are close to too many keywords for a suggestion to mean anything.
      std::string best = b.size() >= 3 ? ClosestMatch(b, candidates) : std::string();
      if (!best.empty() && best != b) return "did you mean '" + best + "'?";
      if (Has(set, P::K_VERDICT)) {
        return "rule fields: description, scopes, verdict, tier, reason, message, tags, origins, "
               "mention, mention_marker, decode, any, all, none, validators, when, match, pass";
      }
      if (Has(set, P::K_RULE) && b == "rules")
        return "a rule file is a list of `rule ID : FAMILY { ... }` blocks";
    }
    return "";
  }

  const FileContext& fc_;
};

// ANTLR's default recovery gives up on a whole block when the first token of a loop iteration is
// wrong (`rule x { verdit BLOCK ... }` would lose every field after the typo). This one treats the
// loop entry like the loop back-edge: report the stray tokens, skip to something that can continue
// the loop or follow it, and carry on, so one typo costs one diagnostic.
// It also never deletes a brace to make the next token fit: keywords are values, so deleting the
// `}` of `scopes }` would read the next rule's `rule` keyword as a scope and derail the file.
class BlockRecovery : public antlr4::DefaultErrorStrategy {
 protected:
  antlr4::Token* singleTokenDeletion(antlr4::Parser* recognizer) override {
    size_t la = recognizer->getTokenStream()->LA(1);
    if (la == P::RBRACE || la == P::LBRACE) return nullptr;
    return DefaultErrorStrategy::singleTokenDeletion(recognizer);
  }

 public:
  void sync(antlr4::Parser* recognizer) override {
    if (inErrorRecoveryMode(recognizer)) return;
    const antlr4::atn::ATN& atn = recognizer->getATN();
    antlr4::atn::ATNState* s = atn.states[recognizer->getState()];
    if (s->getStateType() != antlr4::atn::ATNState::STAR_LOOP_ENTRY) {
      DefaultErrorStrategy::sync(recognizer);
      return;
    }
    size_t la = recognizer->getTokenStream()->LA(1);
    antlr4::misc::IntervalSet next = atn.nextTokens(s);
    if (next.contains(antlr4::Token::EPSILON) || next.contains(la)) return;
    if (singleTokenDeletion(recognizer) != nullptr) return;
    reportUnwantedToken(recognizer);
    antlr4::misc::IntervalSet expecting = recognizer->getExpectedTokens();
    consumeUntil(recognizer, expecting.Or(getErrorRecoverySet(recognizer)));
  }
};

// Walks the parse tree into the AST. Tolerates the partial trees that error recovery leaves.
class Builder {
 public:
  explicit Builder(const FileContext& fc) : fc_(fc) {}

  ParsedFile Build(P::FileContext* root) {
    RuleFileAst rules;
    rules.file = fc_.file;
    std::optional<ManifestAst> manifest;
    const antlr4::Token* first_rule_or_shell = nullptr;
    for (P::TopItemContext* item : root->topItem()) {
      if (item == nullptr) continue;
      if (auto* d = item->defineDecl()) {
        // a rule file's own fragments, or, in a manifest, the fragments of the whole pack
        Fragment(d, &rules.fragments);
      } else if (auto* r = item->ruleDecl()) {
        if (first_rule_or_shell == nullptr) first_rule_or_shell = r->getStart();
        rules.rules.push_back(Rule(r));
      } else if (auto* s = item->shellDecl()) {
        if (first_rule_or_shell == nullptr) first_rule_or_shell = s->getStart();
        if (!rules.shell.empty()) {
          fc_.Error(kStructure, fc_.LocOf(s->getStart()), "a second shell block in this file",
                    "shell tables given again here",
                    "first given at line " + std::to_string(rules.shell.front().loc.line) +
                        "; put every table in one `shell { ... }` block");
        }
        ShellAst shell = Shell(s);
        if (rules.shell.empty()) rules.shell.push_back(std::move(shell));
      } else if (auto* p = item->packDecl()) {
        if (manifest) {
          fc_.Error(kStructure, fc_.LocOf(p->getStart()), "a second pack block in this file",
                    "pack given again here",
                    "first given at line " + std::to_string(manifest->loc.line) +
                        "; a manifest describes one pack");
          continue;
        }
        manifest = Pack(p);
      }
    }
    if (manifest) {
      if (first_rule_or_shell != nullptr) {
        fc_.Error(kStructure, fc_.LocOf(first_rule_or_shell),
                  "a pack manifest cannot also define rules or shell tables",
                  "this file has a `pack` block",
                  "keep rules in their own files and `include` them from the manifest");
      }
      manifest->fragments = std::move(rules.fragments);
      return std::move(*manifest);
    }
    return rules;
  }

 private:
  // ---- values -------------------------------------------------------------------------------
  // The one token of a value-like context, or null when error recovery left it incomplete.
  const antlr4::Token* SingleToken(antlr4::ParserRuleContext* ctx) const {
    if (ctx == nullptr || ctx->exception != nullptr) return nullptr;
    const antlr4::Token* t = ctx->getStart();
    if (t == nullptr || t != ctx->getStop() || !fc_.ValidRange(t)) return nullptr;
    size_t type = t->getType();
    if (type != P::WORD && type != P::STRING && type != P::WHEN_TEXT && !IsKeywordToken(type)) {
      return nullptr;
    }
    return t;
  }

  // The decoded text of a string token; E1007 for each bad escape.
  std::string DecodeStringToken(const antlr4::Token* t) const {
    std::string_view b = fc_.Bytes(t);
    size_t content_begin = 1;
    size_t content_end = b.size();
    // Terminated when it ends with an unescaped quote (unterminated strings are passed on too).
    if (b.size() >= 2 && b.back() == '"') {
      size_t backslashes = 0;
      for (size_t i = b.size() - 1; i > 1 && b[i - 1] == '\\'; --i) ++backslashes;
      if (backslashes % 2 == 0) content_end = b.size() - 1;
    }
    std::vector<dsl::EscapeProblem> problems;
    std::string value =
        dsl::DecodeString(b.substr(content_begin, content_end - content_begin), &problems);
    for (const auto& p : problems) {
      fc_.Error(kEscape, fc_.At(fc_.Begin(t) + content_begin + p.offset, p.length),
                "invalid escape in string: " + p.message, "here",
                "escapes: \\\" \\\\ \\n \\t \\r \\0 \\xHH (one byte) \\u{H...} (a code point)");
    }
    return value;
  }

  bool Value(antlr4::ParserRuleContext* ctx, Text* out) const {
    const antlr4::Token* t = SingleToken(ctx);
    if (t == nullptr) return false;
    out->loc = fc_.LocOf(t);
    out->value = t->getType() == P::STRING ? DecodeStringToken(t) : std::string(fc_.Bytes(t));
    return true;
  }

  Text ValueOr(antlr4::ParserRuleContext* ctx) const {
    Text t;
    Value(ctx, &t);
    return t;
  }

  std::vector<Text> List(P::ValueListContext* ctx) const {
    std::vector<Text> out;
    if (ctx == nullptr) return out;
    for (P::ValueContext* v : ctx->value()) {
      Text t;
      if (Value(v, &t)) out.push_back(std::move(t));
    }
    return out;
  }

  static std::string KeyName(const antlr4::Token* key) {
    return IsKeywordToken(key->getType()) ? KeywordText(key->getType()) : std::string("?");
  }

  // A single-valued field: E1009 when it was given before in the same block.
  void Set(const antlr4::Token* key, Text value, Text* slot, std::map<std::string, Loc>* seen,
           std::string_view block) const {
    if (!value.present()) return;
    std::string name = KeyName(key);
    auto [it, inserted] = seen->emplace(name, fc_.LocOf(key));
    if (!inserted) {
      fc_.Error(kStructure, fc_.LocOf(key),
                "'" + name + "' is given twice in " + std::string(block), "given again here",
                "first given at line " + std::to_string(it->second.line) + "; it holds one value");
      return;
    }
    *slot = std::move(value);
  }

  // `decode`, `placeholder`, `mention_marker`: alone they mean true.
  Text FlagOr(const antlr4::Token* key, P::FlagValueContext* v) const {
    if (v != nullptr) return ValueOr(v);
    return Text{"true", fc_.LocOf(key)};
  }

  // ---- fragments ----------------------------------------------------------------------------
  void Fragment(P::DefineDeclContext* ctx, std::vector<FragmentAst>* out) const {
    if (ctx == nullptr || ctx->exception != nullptr) return;
    FragmentAst f;
    if (!Value(ctx->name, &f.name)) return;
    std::vector<PatternAst> pattern;
    Pattern(ctx->pattern(), PatternRole::kAny, &pattern);
    if (pattern.empty()) return;
    f.pattern = std::move(pattern.front());
    out->push_back(std::move(f));
  }

  // ---- rules --------------------------------------------------------------------------------
  RuleAst Rule(P::RuleDeclContext* ctx) {
    RuleAst r;
    r.loc = fc_.LocOf(ctx->K_RULE() ? ctx->K_RULE()->getSymbol() : ctx->getStart());
    if (ctx->id != nullptr) Value(ctx->id, &r.id);
    if (ctx->family != nullptr) Value(ctx->family, &r.family);
    std::map<std::string, Loc> seen;
    for (P::RuleFieldContext* f : ctx->ruleField()) {
      if (f == nullptr || f->key == nullptr || !fc_.ValidRange(f->key)) continue;
      const antlr4::Token* key = f->key;
      switch (key->getType()) {
        case P::K_DESCRIPTION:
          Set(key, ValueOr(f->value()), &r.description, &seen, "a rule");
          break;
        case P::K_VERDICT:
          Set(key, ValueOr(f->value()), &r.verdict, &seen, "a rule");
          break;
        case P::K_TIER:
          Set(key, ValueOr(f->value()), &r.tier, &seen, "a rule");
          break;
        case P::K_REASON:
          Set(key, ValueOr(f->value()), &r.reason, &seen, "a rule");
          break;
        case P::K_MESSAGE:
          Set(key, ValueOr(f->value()), &r.message, &seen, "a rule");
          break;
        case P::K_MENTION:
          Set(key, ValueOr(f->value()), &r.mention_cap, &seen, "a rule");
          break;
        case P::K_SCOPES:
          Append(List(f->valueList()), &r.scopes);
          break;
        case P::K_TAGS:
          Append(List(f->valueList()), &r.tags);
          break;
        case P::K_ORIGINS:
          Append(List(f->valueList()), &r.origins);
          break;
        case P::K_DECODE:
          Set(key, FlagOr(key, f->flagValue()), &r.decode, &seen, "a rule");
          break;
        case P::K_MENTION_MARKER:
          Set(key, FlagOr(key, f->flagValue()), &r.mention_marker, &seen, "a rule");
          break;
        case P::K_ANY:
        case P::K_ALL:
        case P::K_NONE:
        case P::K_EXCUSE: {
          PatternRole role = key->getType() == P::K_ANY    ? PatternRole::kAny
                             : key->getType() == P::K_ALL  ? PatternRole::kAll
                             : key->getType() == P::K_NONE ? PatternRole::kNone
                                                           : PatternRole::kExcuse;
          for (P::PatternContext* p : f->pattern()) Pattern(p, role, &r.patterns);
          break;
        }
        case P::K_VALIDATORS:
          if (r.validators.present) {
            fc_.Error(kStructure, fc_.LocOf(key), "'validators' is given twice in a rule",
                      "given again here",
                      "first given at line " + std::to_string(r.validators.loc.line) +
                          "; put every setting in one block");
            break;
          }
          Validators(f, &r.validators);
          break;
        case P::K_WHEN: {
          Text when;
          if (When(f->whenExpr(), &when)) Set(key, std::move(when), &r.when, &seen, "a rule");
          break;
        }
        case P::K_MATCH:
        case P::K_PASS:
          Example(key, f->example(), &r.examples);
          break;
        default:
          break;
      }
    }
    return r;
  }

  static void Append(std::vector<Text> items, std::vector<Text>* out) {
    for (Text& t : items) out->push_back(std::move(t));
  }

  void Pattern(P::PatternContext* ctx, PatternRole role, std::vector<PatternAst>* out) const {
    if (ctx == nullptr || ctx->exception != nullptr) return;
    PatternAst p;
    p.role = role;
    if (antlr4::tree::TerminalNode* re = ctx->REGEX()) {
      const antlr4::Token* t = re->getSymbol();
      if (!fc_.ValidRange(t)) return;
      std::string_view b = fc_.Bytes(t);
      size_t close = 1;
      while (close < b.size() && b[close] != '/') close += b[close] == '\\' ? 2 : 1;
      const size_t body_end = std::min(close, b.size());
      p.regex.value = dsl::DecodeRegexBody(b.substr(1, body_end - 1));
      p.regex.loc = fc_.At(fc_.Begin(t), std::min(close + 1, b.size()));
      p.content_offset = 1;
      for (size_t k = close + 1; k < b.size(); ++k) {
        const char* flag = dsl::FlagForLetter(b[k]);
        Loc loc = fc_.At(fc_.Begin(t) + k, 1);
        if (flag == nullptr) {
          fc_.Error(kFlagLetter, loc, "unknown regex flag '" + std::string(1, b[k]) + "'",
                    "not a flag letter",
                    "letters: i caseless, s dotall, m multiline, 8 utf8, u ucp; other flags go in "
                    "parentheses after the regex, e.g. /x/i (som)");
          continue;
        }
        p.flags.push_back(Text{flag, loc});
      }
    } else if (antlr4::tree::TerminalNode* s = ctx->STRING()) {
      const antlr4::Token* t = s->getSymbol();
      if (!fc_.ValidRange(t)) return;
      p.regex.value = DecodeStringToken(t);
      p.regex.loc = fc_.LocOf(t);
      p.content_offset = 1;
    } else {
      return;
    }
    if (P::FlagListContext* fl = ctx->flagList()) Append(List(fl->valueList()), &p.flags);
    out->push_back(std::move(p));
  }

  void Validators(P::RuleFieldContext* f, ValidatorsAst* v) const {
    v->present = true;
    v->loc = fc_.LocOf(f->key);
    std::map<std::string, Loc> seen;
    for (P::ValidatorFieldContext* vf : f->validatorField()) {
      if (vf == nullptr || vf->key == nullptr || !fc_.ValidRange(vf->key)) continue;
      const antlr4::Token* key = vf->key;
      switch (key->getType()) {
        case P::K_MIN_ENTROPY:
          Set(key, ValueOr(vf->value()), &v->min_entropy, &seen, "validators");
          break;
        case P::K_MIN_LENGTH:
          Set(key, ValueOr(vf->value()), &v->min_length, &seen, "validators");
          break;
        case P::K_PLACEHOLDER:
          Set(key, FlagOr(key, vf->flagValue()), &v->placeholder, &seen, "validators");
          break;
        case P::K_EXEMPT:
          for (const Text& t : List(vf->valueList())) {
            if (t.value == "hashes") {
              v->exempt_hashes = Text{"true", t.loc};
            } else if (t.value == "identifiers") {
              v->exempt_identifiers = Text{"true", t.loc};
            } else {
              // The AST holds only the two exemptions, so an unknown one is reported here (as the
              // YAML front-end does).
              fc_.Error(DiagCode::E2103, t.loc, "unknown exemption '" + t.value + "'",
                        "expected 'hashes' or 'identifiers'");
            }
          }
          break;
        default:
          break;
      }
    }
  }

  bool When(P::WhenExprContext* ctx, Text* out) const {
    if (ctx == nullptr || ctx->exception != nullptr) return false;
    if (antlr4::tree::TerminalNode* w = ctx->WHEN_TEXT()) {
      const antlr4::Token* t = w->getSymbol();
      if (!fc_.ValidRange(t)) return false;
      std::string_view b = fc_.Bytes(t);
      while (!b.empty() && (b.back() == ' ' || b.back() == '\t' || b.back() == '\f'))
        b.remove_suffix(1);
      out->value = std::string(b);
      out->loc = fc_.At(fc_.Begin(t), b.size());
      return true;
    }
    if (antlr4::tree::TerminalNode* s = ctx->STRING()) {
      const antlr4::Token* t = s->getSymbol();
      if (!fc_.ValidRange(t)) return false;
      out->value = DecodeStringToken(t);
      // The checker's when-parser adds offsets to the column of the first content byte.
      size_t len = fc_.End(t) - fc_.Begin(t);
      out->loc = fc_.At(fc_.Begin(t) + 1, len > 2 ? len - 2 : 1);
      return true;
    }
    return false;
  }

  void Example(const antlr4::Token* key, P::ExampleContext* ctx,
               std::vector<ExampleAst>* out) const {
    if (ctx == nullptr || ctx->exception != nullptr) return;
    ExampleAst e;
    e.expect_match = key->getType() == P::K_MATCH;
    if (P::ValueContext* v = ctx->value()) {
      Text t;
      if (!Value(v, &t)) return;
      e.loc = t.loc;
      e.text = std::move(t);
    } else if (ctx->LBRACE() != nullptr) {
      e.loc = fc_.LocOf(key);
      std::map<std::string, Loc> seen;
      CallAst& c = e.call;
      for (P::CallFieldContext* cf : ctx->callField()) {
        if (cf == nullptr || cf->key == nullptr || !fc_.ValidRange(cf->key)) continue;
        const antlr4::Token* k = cf->key;
        Text* slot = nullptr;
        switch (k->getType()) {
          case P::K_TOOL:
            slot = &c.tool;
            break;
          case P::K_COMMAND:
            slot = &c.command;
            break;
          case P::K_PATH:
            slot = &c.path;
            break;
          case P::K_CWD:
            slot = &c.cwd;
            break;
          case P::K_CONTENT:
            slot = &c.content;
            break;
          case P::K_URL:
            slot = &c.url;
            break;
          case P::K_PROMPT:
            slot = &c.prompt;
            break;
          case P::K_ORIGIN:
            slot = &c.origin;
            break;
          case P::K_ARGS:
            Append(List(cf->valueList()), &c.args);
            break;
          default:
            break;
        }
        if (slot != nullptr) Set(k, ValueOr(cf->value()), slot, &seen, "an example call");
      }
    } else {
      return;
    }
    out->push_back(std::move(e));
  }

  // ---- shell tables -------------------------------------------------------------------------
  ShellAst Shell(P::ShellDeclContext* ctx) const {
    ShellAst s;
    s.loc = fc_.LocOf(ctx->getStart());
    for (P::ShellFieldContext* f : ctx->shellField()) {
      if (f == nullptr || f->key == nullptr || !fc_.ValidRange(f->key)) continue;
      switch (f->key->getType()) {
        case P::K_WRAPPERS:
          for (P::WrapperContext* w : f->wrapper()) Wrapper(w, &s.wrappers);
          break;
        case P::K_SHELLS:
          Append(List(f->valueList()), &s.shells);
          break;
        case P::K_SPLIT_FLAGS:
          Append(List(f->valueList()), &s.split_flags);
          break;
        case P::K_STDIN_PROGRAMS:
          Append(List(f->valueList()), &s.stdin_programs);
          break;
        case P::K_RUNNERS:
          Append(List(f->valueList()), &s.runners);
          break;
        case P::K_ALIAS: {
          AliasAst a;
          if (f->exception != nullptr) break;
          if (Value(f->command, &a.command) && Value(f->from, &a.from) && Value(f->to, &a.to)) {
            s.aliases.push_back(std::move(a));
          }
          break;
        }
        default:
          break;
      }
    }
    return s;
  }

  void Wrapper(P::WrapperContext* ctx, std::vector<WrapperAst>* out) const {
    if (ctx == nullptr) return;
    WrapperAst w;
    if (!Value(ctx->wrapperName(), &w.name)) return;
    std::map<std::string, Loc> seen;
    for (P::WrapperOptionContext* o : ctx->wrapperOption()) {
      if (o == nullptr || o->key == nullptr || !fc_.ValidRange(o->key)) continue;
      if (o->key->getType() == P::K_VALUE_OPTIONS) {
        Append(List(o->valueList()), &w.value_options);
      } else {
        Set(o->key, ValueOr(o->value()), &w.positional, &seen, "a wrapper");
      }
    }
    out->push_back(std::move(w));
  }

  // ---- manifests ----------------------------------------------------------------------------
  ManifestAst Pack(P::PackDeclContext* ctx) const {
    ManifestAst m;
    m.file = fc_.file;
    m.loc = fc_.LocOf(ctx->getStart());
    if (ctx->name != nullptr) Value(ctx->name, &m.name);
    std::map<std::string, Loc> seen;
    for (P::PackFieldContext* f : ctx->packField()) {
      if (f == nullptr || f->key == nullptr || !fc_.ValidRange(f->key)) continue;
      const antlr4::Token* key = f->key;
      switch (key->getType()) {
        case P::K_VERSION:
          Set(key, ValueOr(f->value()), &m.version, &seen, "a pack");
          break;
        case P::K_REVISION:
          Set(key, ValueOr(f->value()), &m.revision, &seen, "a pack");
          break;
        case P::K_DESCRIPTION:
          Set(key, ValueOr(f->value()), &m.description, &seen, "a pack");
          break;
        case P::K_EXPIRES:
          Set(key, ValueOr(f->value()), &m.expires, &seen, "a pack");
          break;
        case P::K_INCLUDE:
          Append(List(f->valueList()), &m.includes);
          break;
        case P::K_EXCLUDE_RULES:
          Append(List(f->valueList()), &m.exclude_rules);
          break;
        case P::K_PLATFORMS:
          Append(List(f->valueList()), &m.platforms);
          break;
        case P::K_LIMITS:
          for (P::LimitContext* l : f->limit()) {
            if (l == nullptr || l->exception != nullptr) continue;
            LimitAst limit;
            if (Value(l->name, &limit.name) && Value(l->amount, &limit.value)) {
              m.limits.push_back(std::move(limit));
            }
          }
          break;
        default:
          break;
      }
    }
    return m;
  }

  const FileContext& fc_;
};

// Runs the lexer alone (comments) or lexer and parser (ParseDslFile).
struct Pipeline {
  explicit Pipeline(FileContext& fc) : fc_(fc) {
    std::u32string cps;
    dsl::ToCodePoints(fc.text, &cps, &fc.offsets);
    input = std::make_unique<CodePointStream>(std::move(cps), fc.sources.Path(fc.file));
    lexer = std::make_unique<Lexer>(input.get(), fc);
    listener = std::make_unique<SyntaxErrorListener>(fc);
    lexer->removeErrorListeners();
    lexer->addErrorListener(listener.get());
    tokens = std::make_unique<antlr4::CommonTokenStream>(lexer.get());
  }
  FileContext& fc_;
  std::unique_ptr<CodePointStream> input;
  std::unique_ptr<Lexer> lexer;
  std::unique_ptr<SyntaxErrorListener> listener;
  std::unique_ptr<antlr4::CommonTokenStream> tokens;
};

ParsedFile Parse(FileContext& fc);

}  // namespace

ParsedFile ParseDslFile(const SourceMap& sources, uint32_t file, Diagnostics& diags) {
  std::vector<Diagnostic> pending;
  FileContext fc{sources, file, &pending, sources.Text(file), {}};
  ParsedFile result = Parse(fc);
  std::stable_sort(pending.begin(), pending.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.loc.line, a.loc.column) < std::pair(b.loc.line, b.loc.column);
  });
  for (Diagnostic& d : pending) {
    diags.Error(d.id, d.loc, std::move(d.message), std::move(d.label), std::move(d.help));
  }
  return result;
}

namespace {

ParsedFile Parse(FileContext& fc) {
  try {
    Pipeline pipe(fc);
    DobermanParser parser(pipe.tokens.get());
    static const bool kVocabularyOk = VocabularyMatchesKeywords(parser.getVocabulary());
    if (!kVocabularyOk) throw std::logic_error("dsl::Keywords() does not match the grammar");
    parser.removeErrorListeners();
    parser.addErrorListener(pipe.listener.get());
    parser.setErrorHandler(std::make_shared<BlockRecovery>());
    P::FileContext* root = parser.file();
    if (root == nullptr) return {};
    return Builder(fc).Build(root);
  } catch (const std::exception& e) {
    fc.Error(kSyntax, Loc{fc.file, 1, 1, 1}, std::string("the DSL parser failed: ") + e.what());
  } catch (...) {
    fc.Error(kSyntax, Loc{fc.file, 1, 1, 1}, "the DSL parser failed");
  }
  return {};
}

}  // namespace

std::vector<SourceComment> DslComments(const SourceMap& sources, uint32_t file) {
  std::vector<SourceComment> out;
  FileContext fc{sources, file, nullptr, sources.Text(file), {}};
  try {
    Pipeline pipe(fc);
    pipe.tokens->fill();
    for (antlr4::Token* t : pipe.tokens->getTokens()) {
      if (t->getType() != P::LINE_COMMENT && t->getType() != P::BLOCK_COMMENT) continue;
      if (!fc.ValidRange(t)) continue;
      std::string_view b = fc.Bytes(t);
      b = t->getType() == P::LINE_COMMENT ? b.substr(2)
                                          : b.substr(2, b.size() >= 4 ? b.size() - 4 : 0);
      const Loc at = fc.LocOf(t);
      uint32_t line = at.line;
      uint32_t column = at.column;
      size_t start = 0;
      while (true) {
        size_t nl = b.find('\n', start);
        std::string_view piece =
            b.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
        out.push_back({line, column, std::string(piece)});
        if (nl == std::string_view::npos) break;
        start = nl + 1;
        ++line;
        column = 1;
      }
    }
  } catch (...) {
    // Comments are a courtesy of the printers; a lexing failure loses them, nothing else.
  }
  return out;
}

}  // namespace doberman::compiler
