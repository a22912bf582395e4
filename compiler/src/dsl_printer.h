// AST -> canonical DSL text (`dobermanc fmt`, `convert --to dsl`). Canonical means: fields in a
// fixed order, one per line, two-space indentation, lists joined with ", " and wrapped at 100
// columns, values bare when the lexer reads them back as one word, quoted (with escapes) otherwise.
// Lists keep their order, so the printed file parses back to an equal AST (dsl_ast_equal.h) and fmt
// is idempotent. Comments given by the caller are kept, each placed before the first printed item
// that followed it in the source.
#ifndef DOBERMAN_COMPILER_DSL_PRINTER_H_
#define DOBERMAN_COMPILER_DSL_PRINTER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast.h"
#include "dsl_frontend.h"
#include "yaml_frontend.h"

namespace doberman::compiler {

// Why an AST cannot be printed in a language, and where.
struct PrintError {
  Loc loc;
  std::string message;
};

// Prints `file`. Returns false (and fills `error`) when the DSL cannot say what the AST says, e.g.
// a wrapper without a name: printing it would lose or invent something.
bool PrintDsl(const ParsedFile& file, const std::vector<SourceComment>& comments, std::string* out,
              PrintError* error);

// Whole-line `#` comments of a YAML file (yaml-cpp drops comments), for the printers.
std::vector<SourceComment> YamlComments(std::string_view text);

// Hands out source comments in order as a printer walks the AST (shared by both printers).
class CommentQueue {
 public:
  explicit CommentQueue(const std::vector<SourceComment>& comments) : comments_(comments) {}
  // Appends every comment that starts before `at` in the source (all remaining ones when `at` is
  // not known), each on its own line at `indent`, as `marker` + text (control characters blanked).
  void FlushBefore(const Loc& at, size_t indent, std::string_view marker, std::string* out);
  bool empty() const { return next_ >= comments_.size(); }

 private:
  const std::vector<SourceComment>& comments_;
  size_t next_ = 0;
};

// What both printers (DSL here, YAML in yaml_printer.cc) share: the output, the comment queue, the
// dispatch on the kind of file, and the first error (printing goes on after one, so the caller is
// told the earliest reason).
class PrinterCore {
 public:
  // Prints a manifest or a rule file, then the comments left after it.
  bool Print(const ParsedFile& file);

 protected:
  PrinterCore(const std::vector<SourceComment>& comments, std::string_view comment_marker,
              std::string* out, PrintError* error)
      : comments_(comments), out_(*out), error_(*error), marker_(comment_marker) {}
  virtual ~PrinterCore() = default;
  PrinterCore(const PrinterCore&) = delete;
  PrinterCore& operator=(const PrinterCore&) = delete;

  virtual void Manifest(const ManifestAst& m) = 0;
  virtual void RuleFile(const RuleFileAst& f) = 0;
  bool Fail(Loc loc, std::string message);

  CommentQueue comments_;
  std::string& out_;
  PrintError& error_;
  bool ok_ = true;

 private:
  std::string_view marker_;
};

// Runs a fresh `Printer` (a PrinterCore) into a temporary: `out` is written only when the whole
// file printed, `error` (may be null) only when it did not.
template <typename Printer>
bool PrintWhole(const ParsedFile& file, const std::vector<SourceComment>& comments,
                std::string* out, PrintError* error) {
  std::string text;
  PrintError e;
  if (!Printer(comments, &text, &e).Print(file)) {
    if (error != nullptr) *error = e;
    return false;
  }
  *out = std::move(text);
  return true;
}

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_DSL_PRINTER_H_
