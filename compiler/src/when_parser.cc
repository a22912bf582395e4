// Recursive descent over a tiny grammar; depth is bounded so that a hostile expression cannot
// overflow the stack.
#include "when_parser.h"

#include <cctype>

namespace doberman::compiler {
namespace {

class WhenParser {
 public:
  WhenParser(const Text& expr, Diagnostics& diags, std::vector<WhenTerm>* out)
      : s_(expr.value), base_(expr.loc), diags_(diags), out_(out) {}

  bool Parse() {
    Next();
    if (!Or(0)) return false;
    if (tok_ != kEnd) return Fail("unexpected '" + text_ + "'", "expected 'and', 'or' or the end");
    return true;
  }

 private:
  enum Tok { kEnd, kIdent, kTagRef, kAndTok, kOrTok, kNotTok, kLParen, kRParen, kTrueTok, kBad };

  Loc At(size_t offset, size_t len) const {
    Loc l = base_;
    l.column += static_cast<uint32_t>(offset);
    l.length = static_cast<uint32_t>(std::max<size_t>(1, len));
    return l;
  }

  bool Fail(const std::string& msg, const std::string& label) {
    diags_.Error(DiagCode::E3007, At(tok_start_, text_.size()), "invalid when-expression: " + msg,
                 label,
                 "write e.g. `tag:secret and not rule.id` (operators: and, or, not, parentheses)");
    return false;
  }

  static bool IsIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  }

  void Next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    tok_start_ = pos_;
    if (pos_ >= s_.size()) {
      tok_ = kEnd;
      text_.clear();
      return;
    }
    char c = s_[pos_];
    if (c == '(' || c == ')') {
      tok_ = c == '(' ? kLParen : kRParen;
      text_ = std::string(1, c);
      ++pos_;
      return;
    }
    if (c == '!') {
      tok_ = kNotTok;
      text_ = "!";
      ++pos_;
      return;
    }
    if (c == '&' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '&') {
      tok_ = kAndTok;
      text_ = "&&";
      pos_ += 2;
      return;
    }
    if (c == '|' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '|') {
      tok_ = kOrTok;
      text_ = "||";
      pos_ += 2;
      return;
    }
    if (!IsIdentChar(c)) {
      tok_ = kBad;
      text_ = std::string(1, c);
      ++pos_;
      return;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (IsIdentChar(s_[pos_]) || s_[pos_] == ':')) ++pos_;
    text_ = s_.substr(start, pos_ - start);
    if (text_ == "and")
      tok_ = kAndTok;
    else if (text_ == "or")
      tok_ = kOrTok;
    else if (text_ == "not")
      tok_ = kNotTok;
    else if (text_ == "true")
      tok_ = kTrueTok;
    else if (text_.rfind("tag:", 0) == 0)
      tok_ = kTagRef;
    else if (text_.rfind("rule:", 0) == 0) {
      tok_ = kIdent;
      text_ = text_.substr(5);
      tok_start_ += 5;
    } else
      tok_ = kIdent;
  }

  bool Or(int depth) {
    if (!And(depth)) return false;
    while (tok_ == kOrTok) {
      Loc l = At(tok_start_, text_.size());
      Next();
      if (!And(depth)) return false;
      out_->push_back({WhenTerm::kOr, "", l});
    }
    return true;
  }

  bool And(int depth) {
    if (!Unary(depth)) return false;
    while (tok_ == kAndTok) {
      Loc l = At(tok_start_, text_.size());
      Next();
      if (!Unary(depth)) return false;
      out_->push_back({WhenTerm::kAnd, "", l});
    }
    return true;
  }

  bool Unary(int depth) {
    if (depth > 64) return Fail("nested too deeply", "more than 64 levels");
    switch (tok_) {
      case kNotTok: {
        Loc l = At(tok_start_, text_.size());
        Next();
        if (!Unary(depth + 1)) return false;
        out_->push_back({WhenTerm::kNot, "", l});
        return true;
      }
      case kLParen: {
        Next();
        if (!Or(depth + 1)) return false;
        if (tok_ != kRParen) return Fail("missing ')'", "expected ')' here");
        Next();
        return true;
      }
      case kIdent:
        out_->push_back({WhenTerm::kRule, text_, At(tok_start_, text_.size())});
        Next();
        return true;
      case kTagRef:
        if (text_.size() <= 4) return Fail("empty tag name", "expected a tag after 'tag:'");
        out_->push_back({WhenTerm::kTag, text_.substr(4), At(tok_start_, text_.size())});
        Next();
        return true;
      case kTrueTok:
        out_->push_back({WhenTerm::kTrue, "", At(tok_start_, 4)});
        Next();
        return true;
      case kEnd:
        return Fail("expression ends early", "expected a rule id, tag:NAME, 'not' or '('");
      default:
        return Fail("unexpected '" + text_ + "'", "expected a rule id, tag:NAME, 'not' or '('");
    }
  }

  const std::string& s_;
  Loc base_;
  Diagnostics& diags_;
  std::vector<WhenTerm>* out_;
  size_t pos_ = 0, tok_start_ = 0;
  Tok tok_ = kEnd;
  std::string text_;
};

}  // namespace

bool ParseWhen(const Text& expr, Diagnostics& diags, std::vector<WhenTerm>* postfix) {
  return WhenParser(expr, diags, postfix).Parse();
}

}  // namespace doberman::compiler
