// Diagnostics are product: `file:line:col: error[E2104]: message`, a snippet with a
// caret and label, then `help:`. Codes are stable and append-only (docs/diagnostics.md lists them).
// Also rendered as JSON for tools. The engine keeps going after errors, up to a cap.
#ifndef DOBERMAN_COMPILER_DIAGNOSTICS_H_
#define DOBERMAN_COMPILER_DIAGNOSTICS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "source_map.h"

namespace doberman::compiler {

enum class Severity { kError, kWarning, kNote };

// Every code dobermanc can report, from the registry (diagnostic_codes.def). Call sites name codes
// by this type, so a typo or an undocumented code does not compile.
enum class DiagCode : uint16_t {
#define DOBERMAN_DIAGNOSTIC(code, title) code,
#include "diagnostic_codes.def"
#undef DOBERMAN_DIAGNOSTIC
};

const char* DiagCodeName(DiagCode code);   // "E2104"
const char* DiagCodeTitle(DiagCode code);  // the registry's one-line meaning

struct Diagnostic {
  Severity severity = Severity::kError;
  DiagCode id = DiagCode::E1001;
  std::string code;     // DiagCodeName(id), kept for rendering
  std::string message;  // one line, no trailing period
  Loc loc;
  std::string label;  // printed after the caret
  std::string help;   // optional advice
};

class Diagnostics {
 public:
  explicit Diagnostics(const SourceMap& sources, size_t max_errors = 50)
      : sources_(sources), max_errors_(max_errors) {}

  void Error(DiagCode code, Loc loc, std::string message, std::string label = {},
             std::string help = {});
  void Warning(DiagCode code, Loc loc, std::string message, std::string label = {},
               std::string help = {});

  size_t error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ > 0; }
  // True once the cap is reached: callers may stop early; further errors are counted, not kept.
  bool capped() const { return error_count_ >= max_errors_; }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }

  std::string RenderText(bool color = false) const;
  std::string RenderJson() const;
  // The diagnostics as JSON objects, appended to an array being written (`first`: nothing in it
  // yet), for one document that gathers several runs.
  void AppendJsonItems(std::string* out, bool* first) const;

 private:
  void Add(Diagnostic d);
  std::vector<Diagnostic> Sorted() const;
  const SourceMap& sources_;
  size_t max_errors_;
  size_t error_count_ = 0;
  size_t suppressed_ = 0;
  std::vector<Diagnostic> diagnostics_;
};

// The closest candidate by edit distance, or empty when none is close enough (for "did you mean").
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_DIAGNOSTICS_H_
