// The `when:` expression language: `rule.id`, `tag:name`, `not`, `and`, `or`, parentheses, `true`.
// Precedence not > and > or. Parsed into postfix for the runtime's stack machine.
#ifndef DOBERMAN_COMPILER_WHEN_PARSER_H_
#define DOBERMAN_COMPILER_WHEN_PARSER_H_

#include <string>
#include <vector>

#include "ast.h"
#include "diagnostics.h"

namespace doberman::compiler {

struct WhenTerm {
  enum Kind { kRule, kTag, kAnd, kOr, kNot, kTrue } kind;
  std::string name;  // rule id or tag for kRule/kTag
  Loc loc;
};

// Parses `expr` (its location is expr.loc, pointing at the first character). Reports E3007 and
// returns false on a syntax error. Output is postfix.
bool ParseWhen(const Text& expr, Diagnostics& diags, std::vector<WhenTerm>* postfix);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_WHEN_PARSER_H_
