// Rendering of diagnostics as text (rustc/YARA-X style) and JSON.
#include "diagnostics.h"

#include <algorithm>

#include "json.h"

namespace doberman::compiler {
namespace {

// The one JSON string writer (runtime/json): invalid UTF-8 becomes U+FFFD, so the output is always
// valid JSON whatever bytes a source file holds.
using internal::AppendJsonString;

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

void Diagnostics::Add(Diagnostic d) {
  if (d.severity == Severity::kError) {
    if (error_count_ >= max_errors_) {
      ++error_count_;
      ++suppressed_;
      return;
    }
    ++error_count_;
  }
  diagnostics_.push_back(std::move(d));
}

namespace {

struct Registered {
  const char* name;
  const char* title;
};

constexpr Registered kRegistry[] = {
#define DOBERMAN_DIAGNOSTIC(code, title) {#code, title},
#include "diagnostic_codes.def"
#undef DOBERMAN_DIAGNOSTIC
};

}  // namespace

const char* DiagCodeName(DiagCode code) { return kRegistry[static_cast<size_t>(code)].name; }
const char* DiagCodeTitle(DiagCode code) { return kRegistry[static_cast<size_t>(code)].title; }

void Diagnostics::Error(DiagCode code, Loc loc, std::string message, std::string label,
                        std::string help) {
  Add({Severity::kError, code, DiagCodeName(code), std::move(message), loc, std::move(label),
       std::move(help)});
}

void Diagnostics::Warning(DiagCode code, Loc loc, std::string message, std::string label,
                          std::string help) {
  Add({Severity::kWarning, code, DiagCodeName(code), std::move(message), loc, std::move(label),
       std::move(help)});
}

std::vector<Diagnostic> Diagnostics::Sorted() const {
  // Source order within a file, files in the order they were loaded; ties keep report order.
  std::vector<Diagnostic> v = diagnostics_;
  std::stable_sort(v.begin(), v.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.loc.file != b.loc.file) return a.loc.file < b.loc.file;
    if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
    return a.loc.column < b.loc.column;
  });
  return v;
}

std::string Diagnostics::RenderText(bool color) const {
  std::string out;
  const char* bold = color ? "\033[1m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* yellow = color ? "\033[1;33m" : "";
  const char* reset = color ? "\033[0m" : "";
  for (const Diagnostic& d : Sorted()) {
    const char* sev_color = d.severity == Severity::kError ? red : yellow;
    if (d.loc.file != 0) {
      out += bold + sources_.Path(d.loc.file);
      if (d.loc.known())
        out += ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column);
      out += std::string(": ") + reset;
    }
    out += std::string(sev_color) + SeverityName(d.severity) + "[" + d.code + "]" + reset + ": " +
           d.message + "\n";
    if (d.loc.known()) {
      std::string_view line = sources_.Line(d.loc.file, d.loc.line);
      // A very long line (minified or generated input) is cut to a window around the caret.
      constexpr size_t kWindow = 160;
      Diagnostic shown = d;
      if (line.size() > kWindow) {
        size_t caret = std::min<size_t>(d.loc.column - 1, line.size());
        size_t begin = caret > kWindow / 2 ? caret - kWindow / 2 : 0;
        line = line.substr(begin, kWindow);
        shown.loc.column = static_cast<uint32_t>(caret - begin + 1);
      }
      const Loc& loc = shown.loc;
      std::string num = std::to_string(d.loc.line);
      std::string pad(num.size(), ' ');
      out += pad + " |\n" + num + " | " + std::string(line) + "\n" + pad + " | ";
      // Keep tabs so the caret lines up under tab-indented sources.
      for (uint32_t i = 1; i < loc.column && i - 1 < line.size(); ++i) {
        out.push_back(line[i - 1] == '\t' ? '\t' : ' ');
      }
      uint32_t width = std::max<uint32_t>(1, loc.length);
      if (loc.column - 1 < line.size()) {
        width = std::min<uint32_t>(width, static_cast<uint32_t>(line.size() - (loc.column - 1)));
      }
      out += std::string(sev_color) + std::string(std::max<uint32_t>(width, 1), '^');
      if (!d.label.empty()) out += " " + d.label;
      out += std::string(reset) + "\n";
    }
    if (!d.help.empty()) out += "  = help: " + d.help + "\n";
  }
  if (suppressed_ > 0) {
    out += "note: " + std::to_string(suppressed_) + " more errors not shown (cap reached)\n";
  }
  return out;
}

std::string Diagnostics::RenderJson() const {
  std::string out = "{\"diagnostics\":[";
  bool first = true;
  AppendJsonItems(&out, &first);
  out += "],\"errors\":" + std::to_string(error_count_) + "}\n";
  return out;
}

void Diagnostics::AppendJsonItems(std::string* out_ptr, bool* first_ptr) const {
  std::string& out = *out_ptr;
  bool& first = *first_ptr;
  for (const Diagnostic& d : Sorted()) {
    if (!first) out += ",";
    first = false;
    out += "{\"severity\":\"";
    out += SeverityName(d.severity);
    out += "\",\"code\":";
    AppendJsonString(d.code, &out);
    out += ",\"message\":";
    AppendJsonString(d.message, &out);
    out += ",\"file\":";
    AppendJsonString(d.loc.file != 0 ? sources_.Path(d.loc.file) : "", &out);
    out += ",\"line\":" + std::to_string(d.loc.line) +
           ",\"column\":" + std::to_string(d.loc.column) +
           ",\"length\":" + std::to_string(d.loc.length) + ",\"label\":";
    AppendJsonString(d.label, &out);
    out += ",\"help\":";
    AppendJsonString(d.help, &out);
    out += "}";
  }
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace doberman::compiler
