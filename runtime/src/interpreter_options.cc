// The option tables of the shells and interpreters whose program file the shell normalizer looks
// for (interpreter_options.h). Each family lists its single-letter options by what they do with the
// rest of their word and the next one; long options are shared across families, since their names
// do not collide in a way that matters here.
#include "interpreter_options.h"

#include <algorithm>
#include <iterator>

namespace doberman::internal {

namespace {

struct OptionLetters {
  std::string_view inline_code;  // the program follows, inline
  std::string_view value;        // takes the rest of the word, or the next word when alone
  std::string_view glued;        // takes the rest of the word only (perl's `-MFile::Temp`)
  std::string_view program;      // the program file: the rest of the word, or the next word
};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsAwk(std::string_view argv0) {
  return argv0 == "awk" || argv0 == "gawk" || argv0 == "mawk" || argv0 == "nawk";
}

OptionLetters LettersOf(std::string_view argv0, bool shell) {
  if (shell) return {"c", "oO", "", ""};
  if (StartsWith(argv0, "python") || StartsWith(argv0, "pypy")) return {"cm", "WXQ", "", ""};
  if (argv0 == "node" || argv0 == "nodejs" || argv0 == "deno" || argv0 == "bun")
    return {"ep", "rC", "", ""};
  if (argv0 == "perl") return {"eE", "I", "MmxidDVC", ""};
  if (argv0 == "ruby") return {"e", "IrCE", "FxiK", ""};
  if (argv0 == "php") return {"rBRE", "cdzt", "", "fF"};
  if (StartsWith(argv0, "lua")) return {"e", "l", "", ""};
  if (IsAwk(argv0)) return {"e", "vF", "", "f"};
  if (argv0 == "Rscript") return {"e", "", "", ""};
  return {};
}

bool Has(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }

template <size_t N>
bool OneOf(const std::string_view (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

OptionEffect ReadLongOption(std::string_view option, std::string_view* glued) {
  static constexpr std::string_view kInline[] = {"--eval", "--print", "--command", "--source"};
  static constexpr std::string_view kValue[] = {"--require",
                                                "--import",
                                                "--loader",
                                                "--experimental-loader",
                                                "--conditions",
                                                "--input-type",
                                                "--env-file",
                                                "--title",
                                                "--rcfile",
                                                "--init-file",
                                                "--assign",
                                                "--field-separator",
                                                "--include-path",
                                                "--define",
                                                "--check-hash-based-pycs"};
  static constexpr std::string_view kProgram[] = {"--file"};
  const size_t eq = option.find('=');
  const std::string_view name = option.substr(0, eq);
  if (OneOf(kInline, name)) return OptionEffect::kInlineCode;
  if (OneOf(kProgram, name)) {
    if (eq == std::string_view::npos) return OptionEffect::kProgramNext;
    *glued = option.substr(eq + 1);
    return OptionEffect::kProgramGlued;
  }
  if (eq == std::string_view::npos && OneOf(kValue, name)) return OptionEffect::kTakesValue;
  return OptionEffect::kFlag;
}

}  // namespace

OptionEffect ReadInterpreterOption(std::string_view argv0, bool shell, std::string_view option,
                                   std::string_view* glued) {
  if (option.size() >= 2 && option[0] == '-' && option[1] == '-')
    return ReadLongOption(option, glued);
  const OptionLetters letters = LettersOf(argv0, shell);
  // A cluster (`-Bc`, `-lne`): letters in order until one takes the rest of the word.
  for (size_t k = 1; k < option.size(); ++k) {
    const char c = option[k];
    const bool last = k + 1 == option.size();
    if (Has(letters.inline_code, c)) return OptionEffect::kInlineCode;
    if (Has(letters.program, c)) {
      if (last) return OptionEffect::kProgramNext;
      *glued = option.substr(k + 1);
      return OptionEffect::kProgramGlued;
    }
    if (Has(letters.value, c)) return last ? OptionEffect::kTakesValue : OptionEffect::kFlag;
    if (Has(letters.glued, c)) return OptionEffect::kFlag;
  }
  return OptionEffect::kFlag;
}

bool FirstOperandIsProgramText(std::string_view argv0) { return IsAwk(argv0); }

bool IsRunSubcommand(std::string_view argv0, std::string_view word) {
  return (argv0 == "deno" || argv0 == "bun") && word == "run";
}

}  // namespace doberman::internal
