// Variable substitution for the shell normalizer: a variable given a literal value earlier in the
// same command line or script (`X=/`, `export X=/`, an array `A=(/ ~)`, the paths or words piped
// into `while read X`) is written into later commands that name it, `$(echo WORD)` and
// `$(printf FORMAT WORDS)` into what they print and `$(echo B64 | base64 -d)` into what it decodes
// to, and such a command is parsed once more in that form;
// a call of a function defined earlier parses its body once more with the call's arguments as
// positional parameters. Why: `X=/; rm -rf $X`, `body=/etc/shadow; curl -d @"$body" ...` and
// `f() { cat "$1"; }; f /etc/shadow` hide their target from rules that read the line as written.
// These rewrites only add segments (see Normalize's contract).
#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "encoded_runs.h"
#include "shell_normalizer.h"
#include "shell_parser.h"
#include "shell_printf.h"
#include "shell_text_filters.h"

namespace doberman::internal {

using namespace shell_parser;  // NOLINT(google-build-using-namespace): this file's own helpers

namespace {

// The slot of remembered variable `name`, or var_count when there is none.
size_t FindVariable(const SegmentList::Scratch& sc, std::string_view name) {
  for (size_t k = 0; k < sc.var_count; ++k) {
    if (sc.var_names[k] == name) return k;
  }
  return sc.var_count;
}

// The value of variable `name`, or nullptr when it was not given a literal value.
const std::string* Lookup(const SegmentList::Scratch& sc, std::string_view name) {
  const size_t slot = FindVariable(sc, name);
  return slot < sc.var_count ? &sc.var_values[slot] : nullptr;
}

// A shell variable name: a letter or '_', then letters, digits and '_'.
bool IsName(std::string_view name) {
  return !name.empty() && IsNameStart(name[0]) && std::all_of(name.begin(), name.end(), IsNameChar);
}

// Whether `v` is exactly a reference to a `for` loop's variable (`$f`, `${f}`), whose value lists
// the words the loop runs over.
bool IsLoopListReference(const SegmentList::Scratch& sc, std::string_view v) {
  if (v.size() < 2 || v[0] != '$') return false;
  std::string_view name = v.substr(1);
  if (name.size() >= 2 && name.front() == '{' && name.back() == '}') {
    name = name.substr(1, name.size() - 2);
    // "${NAME[@]}" and "${NAME[*]}" of an array: each element.
    if (name.size() > 3 && name.back() == ']' &&
        (name.substr(name.size() - 3) == "[@]" || name.substr(name.size() - 3) == "[*]")) {
      name.remove_suffix(3);
    }
  }
  if (!IsName(name)) return false;
  const size_t slot = FindVariable(sc, name);
  return slot < sc.var_count && sc.var_is_list[slot] != 0;
}

// `${NAME[SUB]}` of a remembered value: all of it for `@` or `*`; for an index, that word of a
// list (empty past its end) or, of a plain value, the value (bash's `${x[0]}` is `$x`). Appends to
// `out` and returns true; false when `name` is not that form or not remembered.
bool AppendElement(const SegmentList::Scratch& sc, std::string_view name, std::string* out) {
  const size_t open = name.find('[');
  if (open == std::string_view::npos || open == 0 || name.back() != ']') return false;
  const std::string_view base = name.substr(0, open);
  const std::string_view sub = name.substr(open + 1, name.size() - open - 2);
  if (!IsName(base) || sub.empty()) return false;
  const size_t slot = FindVariable(sc, base);
  if (slot == sc.var_count) return false;
  const std::string& value = sc.var_values[slot];
  if (sub == "@" || sub == "*" || sc.var_is_list[slot] == 0) {
    out->append(value);
    return true;
  }
  if (!std::all_of(sub.begin(), sub.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      sub.size() > 6) {
    return false;
  }
  size_t index = 0;
  for (char c : sub) index = index * 10 + static_cast<size_t>(c - '0');
  for (size_t k = 0, n = 0; k < value.size(); ++n) {
    while (k < value.size() && value[k] == ' ') ++k;
    const size_t m = std::min(value.find(' ', k), value.size());
    if (n == index) {
      out->append(value, k, m - k);
      break;
    }
    k = m;
  }
  return true;
}

// `$1`..`$9`, `$@`, `$*`: the names a function call binds (ExpandFunctionCalls).
bool IsPositionalName(char c) { return (c >= '1' && c <= '9') || c == '@' || c == '*'; }

// The slot of remembered function `name`, or fn_count when there is none.
size_t FindFunction(const SegmentList::Scratch& sc, std::string_view name) {
  for (size_t k = 0; k < sc.fn_count; ++k) {
    if (sc.fn_names[k] == name) return k;
  }
  return sc.fn_count;
}

// `s` without the white space around it.
std::string_view TrimWhite(std::string_view s) {
  while (!s.empty() && IsWhite(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsWhite(s.back())) s.remove_suffix(1);
  return s;
}

// Bounds on a printf substitution that is resolved: its words and what it prints.
constexpr size_t kMaxPrintfWords = 64;
constexpr size_t kMaxPrintfBytes = 4096;

// `printf FORMAT WORDS` (after "printf ") whose words are plain literals (quotes allowed; no
// expansion, escape outside quotes or operator): what it prints (shell_printf::FormatPrintf), its
// trailing line breaks dropped as a substitution drops them. `-v`, a directive or escape that is
// not worked out, or more than the bounds: not resolved (false). `words` is scratch.
bool PrintfLiteral(std::string_view inner, std::string* words, std::string* out) {
  std::array<std::pair<size_t, size_t>, kMaxPrintfWords> at{};  // offset, size in `words`
  size_t n = 0;
  bool in_word = false;
  char quote = 0;
  words->clear();
  auto open = [&]() {
    if (in_word) return true;
    if (n == kMaxPrintfWords) return false;
    at[n++] = {words->size(), 0};
    in_word = true;
    return true;
  };
  for (const char c : inner) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (quote == '"' && (c == '$' || c == '`')) {
        return false;
      } else {
        words->push_back(c);
      }
      continue;
    }
    if (IsWhite(c) || c == '\0') {
      if (in_word) at[n - 1].second = words->size() - at[n - 1].first;
      in_word = false;
      continue;
    }
    if (c == '$' || c == '`' || c == '\\' || IsMeta(c) || !open()) return false;
    if (c == '\'' || c == '"') {
      quote = c;
    } else {
      words->push_back(c);
    }
  }
  if (quote != 0) return false;
  if (in_word) at[n - 1].second = words->size() - at[n - 1].first;
  std::array<std::string_view, kMaxPrintfWords> word{};
  for (size_t k = 0; k < n; ++k)
    word[k] = std::string_view(*words).substr(at[k].first, at[k].second);
  size_t first = 0;
  if (first < n && word[first] == "--") ++first;
  if (first == n || (!word[first].empty() && word[first][0] == '-')) return false;
  const std::span<const std::string_view> args(word.data() + first + 1, n - first - 1);
  if (!shell_printf::FormatPrintf(word[first], args, kMaxPrintfBytes, out)) return false;
  while (!out->empty() && out->back() == '\n') out->pop_back();
  return true;
}

// `echo WORDS` / `echo -n WORDS` / `printf FORMAT WORDS` whose words are plain literals (quotes
// allowed, no expansion, escape or operator): what it prints, without the newline. Anything else is
// not resolved (false). `words` is scratch for printf.
bool PrintedLiteral(std::string_view inner, std::string* words, std::string* out) {
  inner = TrimWhite(inner);
  bool printf = false;
  if (inner.substr(0, 5) == "echo ") {
    inner.remove_prefix(5);
  } else if (inner.substr(0, 7) == "printf ") {
    inner.remove_prefix(7);
    if (PrintfLiteral(inner, words, out)) return true;
    // Past PrintfLiteral's bounds (more words, a format like `-x`), a printf without `%` or `\`
    // is still read as its words, as before it read formats.
    printf = true;
  } else {
    return false;
  }
  out->clear();
  bool flags = !printf;
  bool blank = true;
  for (size_t k = 0; k < inner.size(); ++k) {
    const char c = inner[k];
    if (c == '$' || c == '`' || c == '\\' || IsMeta(c) || (printf && c == '%')) return false;
    if (c == '\'' || c == '"') continue;
    if (IsBlank(c)) {
      if (!blank) out->push_back(' ');
      blank = true;
      continue;
    }
    if (blank && flags && c == '-' && k + 1 < inner.size() && inner[k + 1] != ' ') {
      // echo's own flags (-n, -e, -ne) print nothing.
      size_t m = k + 1;
      while (m < inner.size() && (inner[m] == 'n' || inner[m] == 'e' || inner[m] == 'E')) ++m;
      if (m == inner.size() || IsBlank(inner[m])) {
        k = m;
        continue;
      }
    }
    flags = false;
    blank = false;
    out->push_back(c);
  }
  while (!out->empty() && out->back() == ' ') out->pop_back();
  return true;
}

// `echo|printf LITERAL | DECODER` or `DECODER <<< LITERAL`, DECODER a base64 or hex decoder (or,
// after a pipe, `rev` or `tr`, shell_text_filters.h): what it prints (into `out`, trailing line
// breaks dropped as a substitution drops them), using `encoded` as scratch. Why: `eval "$(echo
// cm0gLXJmIC8K | base64 -d)"` and `bash -c "$(...)"` run the decoded text as a command line, as
// `echo ... | base64 -d | sh` does. Anything else, or a payload that does not decode within
// `max_bytes`, is not resolved (false).
bool DecodedLiteral(std::string_view inner, size_t max_bytes, std::string* words,
                    std::string* encoded, std::string* out) {
  // No expansion, escape, quote or operator: the word means what it says.
  auto plain = [](std::string_view w) {
    return std::none_of(w.begin(), w.end(), [](char c) {
      return c == '$' || c == '`' || c == '\\' || c == '\'' || c == '"' || IsMeta(c);
    });
  };
  inner = TrimWhite(inner);
  std::string_view decoder;
  const size_t bar = inner.find('|');
  if (bar != std::string_view::npos) {
    if (inner.find('|', bar + 1) != std::string_view::npos) return false;  // one pipe only
    if (!PrintedLiteral(inner.substr(0, bar), words, encoded)) return false;
    decoder = inner.substr(bar + 1);
  } else {
    const size_t here = inner.find("<<<");
    if (here == std::string_view::npos) return false;
    decoder = inner.substr(0, here);
    std::string_view literal = TrimWhite(inner.substr(here + 3));
    if (literal.size() >= 2 && (literal.front() == '\'' || literal.front() == '"') &&
        literal.back() == literal.front()) {
      literal = literal.substr(1, literal.size() - 2);
    }
    if (!plain(literal) || std::any_of(literal.begin(), literal.end(), IsBlank)) return false;
    encoded->assign(literal);
  }
  decoder = TrimWhite(decoder);
  DecoderArgs args;
  std::string_view argv0;
  std::array<std::string_view, 4> filter_args;  // for rev and tr
  size_t filter_count = 0;
  for (size_t k = 0; k < decoder.size();) {
    if (IsBlank(decoder[k])) {
      ++k;
      continue;
    }
    size_t m = k;
    while (m < decoder.size() && !IsBlank(decoder[m])) ++m;
    std::string_view word = decoder.substr(k, m - k);
    // A quoted word without blanks (`tr 'a-z' 'n-za-m'`) means its text.
    if (word.size() >= 2 && (word.front() == '\'' || word.front() == '"') &&
        word.back() == word.front()) {
      word = word.substr(1, word.size() - 2);
    }
    if (!plain(word)) return false;
    if (argv0.empty()) {
      argv0 = word;
    } else {
      args.Note(word);
      if (filter_count == filter_args.size()) return false;
      filter_args[filter_count++] = word;
    }
    k = m;
  }
  if (argv0 == "rev" || argv0 == "tr") {  // `$(echo '~ fr- mr' | rev)`
    if (!ApplyTextFilter(argv0, std::span(filter_args.data(), filter_count), *encoded, out))
      return false;
    while (!out->empty() && out->back() == '\n') out->pop_back();
    return out->size() <= max_bytes;
  }
  const DecoderArgs::Kind kind = args.Of(argv0);
  if (kind == DecoderArgs::Kind::kNotADecoder) return false;
  // Decoders skip line breaks and other white space: keep only the encoded characters.
  encoded->erase(std::remove_if(encoded->begin(), encoded->end(), IsWhite), encoded->end());
  if (encoded->empty()) return false;
  DecodeLimits limits;
  limits.max_run_bytes = max_bytes;
  const Encoding encoding = kind == DecoderArgs::Kind::kHex ? Encoding::kHex : Encoding::kBase64;
  if (!DecodeRun(*encoded, {0, encoded->size(), encoding}, limits, out)) return false;
  while (!out->empty() && out->back() == '\n') out->pop_back();
  return true;
}

// `cat FILE` or `< FILE` of a file this command line wrote earlier (shell_written_files.cc): its
// text, trailing line breaks dropped as a substitution drops them (into `out`), within `max_bytes`.
// `eval "$(cat /tmp/x)"` runs what `echo ... > /tmp/x` wrote. False for any other command.
bool WrittenFileOutput(std::string_view inner, size_t max_bytes, const SegmentList::Scratch& sc,
                       std::string* out) {
  if (sc.written_count == 0) return false;
  inner = TrimWhite(inner);
  if (inner.substr(0, 4) == "cat ") {
    inner.remove_prefix(4);
  } else if (inner.substr(0, 1) == "<") {
    inner.remove_prefix(1);
  } else {
    return false;
  }
  inner = TrimWhite(inner);
  if (inner.size() >= 2 && (inner.front() == '\'' || inner.front() == '"') &&
      inner.back() == inner.front()) {
    inner = inner.substr(1, inner.size() - 2);
  }
  if (inner.empty() || std::any_of(inner.begin(), inner.end(), [](char c) {
        return IsBlank(c) || IsMeta(c) || c == '\'' || c == '"' || c == '`';
      })) {
    return false;
  }
  const std::string* text = FindWrittenText(sc, inner);
  if (text == nullptr || text->size() > max_bytes) return false;
  out->assign(*text);
  while (!out->empty() && out->back() == '\n') out->pop_back();
  return true;
}

// What the substitution `$(inner)` (or `<(inner)`) outputs when that is known: a printed or a
// decoded literal, or a file the line wrote (into `out`). False otherwise.
bool LiteralOutput(std::string_view inner, size_t max_bytes, SegmentList::Scratch& sc,
                   std::string* out) {
  return PrintedLiteral(inner, &sc.printf_words, out) ||
         DecodedLiteral(inner, max_bytes, &sc.printf_words, &sc.encoded_buf, out) ||
         WrittenFileOutput(inner, max_bytes, sc, out);
}

// Appends `v` to `out` with every known `$NAME`, `${NAME}`, printed-literal `$(echo ...)` and
// decoded-literal `$(echo ... | base64 -d)` replaced; returns whether anything was. The result is
// bounded by `cap` bytes (false past it).
bool Substitute(SegmentList::Scratch& sc, std::string_view v, std::string* out, size_t cap,
                bool* over) {
  bool changed = false;
  std::string& printed = sc.printed_buf;
  for (size_t k = 0; k < v.size();) {
    if (out->size() > cap) {
      *over = true;
      return changed;
    }
    if (v[k] != '$' || k + 1 == v.size()) {
      out->push_back(v[k++]);
      continue;
    }
    const char c = v[k + 1];
    if (IsPositionalName(c)) {
      if (const std::string* value = Lookup(sc, v.substr(k + 1, 1))) {
        out->append(*value);
        changed = true;
        k += 2;
        continue;
      }
    } else if (IsNameStart(c)) {
      size_t m = k + 1;
      while (m < v.size() && IsNameChar(v[m])) ++m;
      if (const std::string* value = Lookup(sc, v.substr(k + 1, m - k - 1))) {
        out->append(*value);
        changed = true;
        k = m;
        continue;
      }
    } else if (c == '{') {
      const size_t close = v.find('}', k + 2);
      if (close != std::string_view::npos) {
        const std::string_view name = v.substr(k + 2, close - k - 2);
        const std::string* value = Lookup(sc, name);
        const bool positional = name.size() == 1 && IsPositionalName(name[0]);
        if (value != nullptr && !name.empty() && (positional || IsName(name))) {
          out->append(*value);
          changed = true;
          k = close + 1;
          continue;
        }
        if (AppendElement(sc, name, out)) {
          changed = true;
          k = close + 1;
          continue;
        }
        // `${NAME:-WORD}`, `${NAME-WORD}`, `${NAME:=WORD}`, `${NAME=WORD}`: the value when NAME
        // is known, else WORD, what an unset NAME gives at run time (`rm -rf "${DIR:-/}"`); HOME
        // is set wherever an agent runs, so `${HOME:-/tmp}` is `${HOME}`. WORD is taken when it is
        // plain text (no expansion, quote or escape of its own).
        size_t n = 0;
        while (n < name.size() && IsNameChar(name[n])) ++n;
        if (n > 0 && IsNameStart(name[0]) && n < name.size()) {
          const std::string_view var = name.substr(0, n);
          std::string_view op = name.substr(n, name[n] == ':' ? 2 : 1);
          const std::string_view word = name.substr(n + op.size());
          const std::string* known = Lookup(sc, var);
          auto append_var = [&]() {  // NAME's value, or a plain reference the rules read
            if (known != nullptr) {
              out->append(*known);
            } else {
              out->append("${").append(var).push_back('}');
            }
          };
          if ((op == ":-" || op == "-" || op == ":=" || op == "=") &&
              word.find_first_of("$`{}'\"\\") == std::string_view::npos) {
            if (known == nullptr && var != "HOME") {
              out->append(word);
            } else {
              append_var();
            }
            changed = true;
            k = close + 1;
            continue;
          }
          // `${NAME:?}`, `${NAME?message}` (an error when NAME is unset, else its value) and
          // `${NAME%/}`, `${NAME%%/}` (the value without a trailing slash): NAME itself, so that
          // `rm -rf "${HOME:?}"/` reads as `rm -rf "${HOME}"/`.
          const bool strip_slash = name.substr(n) == "%/" || name.substr(n) == "%%/";
          if (op == ":?" || op == "?" || strip_slash) {
            append_var();
            if (strip_slash && known != nullptr && !known->empty() && known->back() == '/')
              out->pop_back();
            changed = true;
            k = close + 1;
            continue;
          }
        }
      }
    } else if (c == '(' && (k + 2 >= v.size() || v[k + 2] != '(')) {
      const size_t close = v.find(')', k + 2);
      const std::string_view inner =
          close != std::string_view::npos ? v.substr(k + 2, close - k - 2) : std::string_view();
      if (close != std::string_view::npos && LiteralOutput(inner, cap, sc, &printed)) {
        out->append(printed);
        changed = true;
        k = close + 1;
        continue;
      }
    }
    out->push_back(v[k++]);
  }
  return changed;
}

// Writes `v` as one shell word that reads back as exactly `v`: bare when it is plain, else single-
// quoted (its own substitutions were parsed already; they need not be seen again).
void AppendLiteralWord(std::string* text, std::string_view v) {
  const bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return IsNameChar(c) || std::string_view("./:=@%+,~-^").find(c) != std::string_view::npos ||
           static_cast<unsigned char>(c) >= 0x80;
  });
  if (plain) {
    text->append(v);
    return;
  }
  text->push_back('\'');
  for (char c : v) {
    if (c == '\'') {
      text->append("'\\''");
    } else {
      text->push_back(c);
    }
  }
  text->push_back('\'');
}

}  // namespace

// Remembers NAME = `raw` (with known variables, printed and decoded literals substituted; `append`
// adds to the old value) and returns its slot. A value still holding a command substitution is not
// a literal and forgets the name (npos then, as when no slot is left).
size_t ShellNormalizer::Impl::RememberVariable(std::string_view name, std::string_view raw,
                                               bool append) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  std::string& value = sc.value_buf;
  value.clear();
  bool over = false;
  if (append) {
    if (const std::string* old = Lookup(sc, name)) value = *old;
  }
  Substitute(sc, raw, &value, kMaxShellVariableBytes, &over);
  const bool computed = value.find("$(") != std::string::npos;
  const size_t slot = FindVariable(sc, name);
  if (computed || over || value.size() > kMaxShellVariableBytes) {
    if (slot < sc.var_count) {
      sc.var_values[slot] = "$(...)";  // no longer a known literal
      sc.var_is_list[slot] = 0;
    }
    return std::string::npos;
  }
  if (slot == sc.var_count) {
    if (sc.var_count == kMaxShellVariables) return std::string::npos;
    if (sc.var_names.size() <= slot) {
      sc.var_names.emplace_back();
      sc.var_values.emplace_back();
      sc.var_is_list.emplace_back();
    }
    sc.var_names[slot].assign(name);
    ++sc.var_count;
  }
  sc.var_values[slot] = value;
  sc.var_is_list[slot] = 0;
  return slot;
}

// Words j.. of an assignment-only command, or the arguments of export/declare/local/typeset/
// readonly: each literal `NAME=value` (`NAME+=value` appends) is remembered.
void ShellNormalizer::Impl::RecordAssignments(const Level& lv, size_t j, size_t e) {
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if (!IsAssignment(lv, w)) continue;
    const std::string_view v = View(lv, w);
    const size_t eq = v.find('=');
    const bool append = v[eq - 1] == '+';
    const std::string_view name = v.substr(0, append ? eq - 1 : eq);
    if (name.find('[') != std::string_view::npos) continue;  // array elements: not followed
    std::string_view value = v.substr(eq + 1);
    const bool array =
        (w.flags & kArray) != 0 && value.size() >= 2 && value.front() == '(' && value.back() == ')';
    if (array) value = value.substr(1, value.size() - 2);
    if (array && append) {  // `A+=(x)` adds an element: a word of its own after the others
      std::string& spaced = ctx.out->scratch.loop_buf;
      spaced.assign(" ");
      spaced.append(value);
      value = spaced;
    }
    const size_t slot = RememberVariable(name, value, append);
    if (array && slot != std::string::npos) ctx.out->scratch.var_is_list[slot] = 1;
  }
}

namespace {

// What `echo WORDS` / `printf WORDS` (the text of a process substitution, `echo /` of `<(echo /)`)
// prints when its words are plain literals; empty when it is not such a command.
std::string_view EchoedLiteral(std::string_view command) {
  size_t k = 0;
  while (k < command.size() && IsWhite(command[k])) ++k;
  command.remove_prefix(k);
  std::string_view rest;
  if (command.substr(0, 5) == "echo ") {
    rest = command.substr(5);
  } else if (command.substr(0, 7) == "printf ") {
    rest = command.substr(7);
    if (rest.substr(0, 3) == "-- ") rest.remove_prefix(3);
    if (rest.find('%') != std::string_view::npos) return {};  // a format: not read here
  } else {
    return {};
  }
  // Anything a shell would expand or act on makes the output unknown.
  if (rest.find_first_of("$`;|&<>(){}\\\"'*?[") != std::string_view::npos) return {};
  while (rest.size() >= 2 && rest[0] == '-' && (rest[1] == 'n' || rest[1] == 'e') &&
         (rest.size() == 2 || IsWhite(rest[2]))) {
    rest.remove_prefix(std::min<size_t>(rest.size(), 3));  // echo's -n / -e
  }
  while (!rest.empty() && IsWhite(rest.back())) rest.remove_suffix(1);
  return rest;
}

// The text a redirection among words [j, e) feeds a command's stdin when it is known: a
// here-string's word (`<<< "/"`), or what `< <(echo WORDS)` / `< <(printf WORDS)` prints when
// its words are plain literals. Empty when there is none or it is not known.
std::string_view KnownRedirectedInput(const Level& lv, size_t j, size_t e) {
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) == 0) continue;
    const std::string_view v = View(lv, w);
    if ((w.flags & kHereString) != 0) return v.substr(w.op);
    const std::string_view target = v.substr(w.op);
    if (v.substr(0, w.op) == "<" && target.size() >= 4 && target.substr(0, 2) == "<(" &&
        target.back() == ')') {
      return EchoedLiteral(target.substr(2, target.size() - 3));
    }
  }
  return {};
}

bool EndsShellWord(char c) {
  return IsWhite(c) || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' ||
         c == ')';
}

}  // namespace

// For a `while read` / `until read` loop whose condition was just read (the reader is at `from`,
// past the condition): the text its `done` is fed, `done <<< WORD` or `done < <(echo WORDS)`, when
// that is known. The loop's end is found by counting `do` and `done` words outside quotes (every
// loop keyword pairs them), in one bounded pass over the rest of the buffer; empty when there is
// no such `done` or its input is not known, or when the per-line budget (Ctx::loop_feed_budget) is
// spent.
std::string_view ShellNormalizer::Impl::LoopFeed(size_t from) const {
  size_t open = 0;
  size_t k = from;
  if (from >= in.size() || ctx.loop_feed_budget == 0) return {};
  const size_t n = std::min(in.size(), from + ctx.loop_feed_budget);
  struct Charge {  // the bytes looked at come off the budget, however the search ends
    size_t& budget;
    const size_t& at;
    size_t from;
    ~Charge() { budget -= std::min(budget, at > from ? at - from : size_t{0}); }
  } charge{ctx.loop_feed_budget, k, from};
  const std::string_view text = in.substr(0, n);  // nothing past the budget is read
  while (k < n) {
    const char c = text[k];
    if (c == '\\') {
      k += 2;
      continue;
    }
    if (c == '\'') {
      const size_t close = text.find('\'', k + 1);
      if (close == std::string_view::npos) {
        k = n;
        return {};
      }
      k = close + 1;
      continue;
    }
    if (c == '"') {
      ++k;
      while (k < n && text[k] != '"') k += text[k] == '\\' ? 2 : 1;
      ++k;
      continue;
    }
    const bool starts_word = k == from || EndsShellWord(text[k - 1]);
    if (!starts_word || EndsShellWord(c)) {
      ++k;
      continue;
    }
    size_t end = k;
    while (end < n && !EndsShellWord(text[end]) && text[end] != '"' && text[end] != '\'') ++end;
    const std::string_view word = text.substr(k, end - k);
    k = end;
    if (word == "do") {
      ++open;
    } else if (word == "done" && open > 0 && --open == 0) {
      // The loop's own `done`: what follows it is the loop's redirection, if any.
      while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
      if (text.substr(k, 3) == "<<<") {
        k += 3;
        while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
        if (k < n && (text[k] == '"' || text[k] == '\'')) {
          const size_t open_quote = k;
          const size_t close = text.find(text[k], k + 1);
          k = close == std::string_view::npos ? n : close;
          if (close == std::string_view::npos) return {};
          return text.substr(open_quote + 1, close - open_quote - 1);
        }
        const size_t word_begin = k;
        while (k < n && !EndsShellWord(text[k])) ++k;
        return text.substr(word_begin, k - word_begin);
      }
      if (k < n && text[k] == '<') {
        ++k;
        while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
        if (text.substr(k, 2) != "<(") return {};
        const size_t inner = k + 2;
        const size_t close = text.find(')', inner);
        k = close == std::string_view::npos ? n : close;
        if (close == std::string_view::npos) return {};
        return EchoedLiteral(text.substr(inner, close - inner));
      }
      return {};
    }
  }
  return {};
}

// Whether the stdin of the command of words [j, e) (a read or mapfile) is known text, copied then
// into Scratch::read_input (RememberVariable writes the other scratch buffers): what a command
// earlier in its pipeline prints (NotePipedData), its own here-string or `< <(echo WORDS)`, or,
// for a loop's condition, what the loop's `done` is fed.
bool ShellNormalizer::Impl::KnownStdin(const Level& lv, size_t j, size_t e, size_t depth,
                                       size_t pipeline, bool loop_condition) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if ((ctx.piped == Ctx::Piped::kLiteral || ctx.piped == Ctx::Piped::kPaths) &&
      ctx.piped_depth == depth && ctx.piped_pipeline == pipeline) {
    sc.read_input.assign(sc.piped);
    return true;
  }
  std::string_view redirected = KnownRedirectedInput(lv, j, e);
  if (redirected.empty() && loop_condition) redirected = LoopFeed(pos);
  sc.read_input.assign(redirected);
  return !redirected.empty();
}

// `read [OPTIONS] NAME...` fed known text: in a pipeline after a command that prints known words
// (an echo or printf of literals, the paths `find` or `ls` is given), or by a here-string or a
// literal `< <(echo WORDS)`. Each NAME stands for every word, as a loop variable does, so
// `find ~ | while read d; do rm -rf "$d"; done` and `read -r d <<< "$HOME"; rm -rf "$d"` read as
// deleting ~. Over-inclusive: `ls` and `find` print more than their operands, read gives a single
// NAME the whole line, and the words may be split otherwise than read splits them. A loop's
// condition also takes what the loop's `done` is fed (LoopFeed): `while read d; do rm -rf "$d";
// done <<< /` reads as deleting /.
void ShellNormalizer::Impl::RecordReadVariables(const Level& lv, size_t j, size_t e, size_t depth,
                                                size_t pipeline, bool loop_condition) {
  if (!KnownStdin(lv, j, e, depth, pipeline, loop_condition)) return;
  SegmentList::Scratch& sc = ctx.out->scratch;
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    const std::string_view v = View(lv, w);
    if (v.size() >= 2 && v[0] == '-') {
      // Options with a value: -d DELIM, -i TEXT, -n/-N COUNT, -p PROMPT, -t SECONDS, -u FD (-a
      // NAME names an array, read below as a name).
      if (v.size() == 2 && std::string_view("dinNptu").find(v[1]) != std::string_view::npos) ++j;
      continue;
    }
    if (!IsName(v)) continue;
    const size_t slot = RememberVariable(v, sc.read_input, /*append=*/false);
    if (slot != std::string::npos) sc.var_is_list[slot] = 1;
  }
}

// `mapfile` / `readarray [OPTIONS] [ARRAY]` fed known text (as `read` above): ARRAY (MAPFILE
// when none is named) holds its lines, so `mapfile -t a < <(echo /); rm -rf "${a[@]}"` reads
// as deleting /.
void ShellNormalizer::Impl::RecordMapfileArray(const Level& lv, size_t j, size_t e, size_t depth,
                                               size_t pipeline, bool loop_condition) {
  if (!KnownStdin(lv, j, e, depth, pipeline, loop_condition)) return;
  SegmentList::Scratch& sc = ctx.out->scratch;
  std::string_view name = "MAPFILE";
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    const std::string_view v = View(lv, w);
    if (v.size() >= 2 && v[0] == '-') {
      // Options with a value: -d DELIM, -n COUNT, -O ORIGIN, -s COUNT, -u FD, -C CALLBACK, -c N.
      if (v.size() == 2 && std::string_view("dnOsuCc").find(v[1]) != std::string_view::npos) ++j;
      continue;
    }
    if (IsName(v)) name = v;
  }
  const size_t slot = RememberVariable(name, sc.read_input, /*append=*/false);
  if (slot != std::string::npos) sc.var_is_list[slot] = 1;
}

// `for NAME in WORDS`: NAME stands for every word at once, so that `curl -F x=@$f` in the body
// reads as sending each of them (`for f in ~/.ssh/*; do curl -F "x=@$f" ...`). Over-inclusive on
// purpose: the rules see all the values the loop can take, joined by spaces.
void ShellNormalizer::Impl::RecordLoopVariable(const Level& lv, size_t j, size_t e) {
  if (j + 1 >= e || View(lv, lv.words[j + 1]) != "in") return;
  const std::string_view name = View(lv, lv.words[j]);
  if (name.empty() || name.find_first_of("$=[ ") != std::string_view::npos) return;
  std::string& joined = ctx.out->scratch.loop_buf;
  joined.clear();
  for (size_t k = j + 2; k < e; ++k) {
    if ((lv.words[k].flags & kRedir) != 0) continue;
    if (!joined.empty()) joined.push_back(' ');
    joined.append(View(lv, lv.words[k]));
  }
  const size_t slot = RememberVariable(name, joined, /*append=*/false);
  if (slot != std::string::npos) ctx.out->scratch.var_is_list[slot] = 1;
}

// `set -- ARGS`, or `set ARGS` whose first is not an option: the positional parameters become ARGS
// (read with the values known now, all before any is bound, so `set -- "$2" "$1"` swaps), and
// `set -- rm -rf ~; "$@"` reads as deleting the home directory. Options alone (`set -e`, `set -o
// pipefail`) leave them as they were.
void ShellNormalizer::Impl::RecordPositionalParameters(const Level& lv, size_t j, size_t e) {
  bool listed = false;  // `--` seen: even no ARGS sets them (to none)
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    const std::string_view v = View(lv, w);
    if (v == "--") {
      listed = true;
      ++j;
      break;
    }
    if (v.empty() || (v[0] != '-' && v[0] != '+')) break;
    if (v == "-o" || v == "+o") ++j;  // names an option
  }
  if (j >= e && !listed) return;
  SegmentList::Scratch& sc = ctx.out->scratch;
  std::string& all = sc.loop_buf;
  all.clear();
  // Where each of $1..$9 starts and ends in `all`, which joins them all for `$@`.
  std::array<std::pair<size_t, size_t>, 9> spans{};
  size_t count = 0;
  bool over = false;
  for (; j < e && !over; ++j) {
    if ((lv.words[j].flags & kRedir) != 0) continue;
    if (count > 0) all.push_back(' ');
    const size_t start = all.size();
    Substitute(sc, View(lv, lv.words[j]), &all, kMaxShellVariableBytes, &over);
    if (count < spans.size()) spans[count] = {start, all.size()};
    ++count;
  }
  char position[2] = {'1', '\0'};
  for (size_t k = 0; k < spans.size(); ++k, ++position[0]) {
    const std::string_view value =
        k < count ? std::string_view(all).substr(spans[k].first, spans[k].second - spans[k].first)
                  : std::string_view();
    RememberVariable(std::string_view(position, 1), value, /*append=*/false);
  }
  RememberVariable("@", all, /*append=*/false);
  RememberVariable("*", all, /*append=*/false);
}

// When the command made of words [b, e) names a remembered variable or prints a literal through
// `$(echo ...)`, it is written again with the values in place and parsed as a command line (its
// segments follow the command's own). Inside that parse nothing is rewritten again, which bounds
// the work to one rewrite per command. Returns whether that parse ran.
bool ShellNormalizer::Impl::SubstituteVariables(const Level& lv, size_t b, size_t e, size_t depth) {
  if (ctx.substituting || ctx.stop) return false;
  SegmentList::Scratch& sc = ctx.out->scratch;
  // Without remembered variables only `$(echo ...)` and `${NAME:-WORD}` can be rewritten.
  const std::string_view needle = sc.var_count > 0 ? "$" : "$(";
  bool found = false;
  for (size_t j = b; j < e && !found; ++j) {
    const std::string_view v = View(lv, lv.words[j]);
    found = v.find(needle) != std::string_view::npos || v.find("${") != std::string_view::npos;
  }
  if (!found) return false;
  std::string& text = sc.substituted;
  text.clear();
  std::string& word = sc.word_buf;
  bool changed = false;
  bool over = false;
  const size_t cap = norm.limits_.max_bytes;
  bool assigning = true;   // still before the command word
  bool declaring = false;  // after export, declare, local, typeset or readonly
  for (size_t j = b; j < e && !over; ++j) {
    const Word& w = lv.words[j];
    std::string_view v = View(lv, w);
    if (!text.empty()) text.push_back(' ');
    if ((w.flags & kRedir) != 0) {
      text.append(v.substr(0, w.op));
      v.remove_prefix(w.op);
    }
    word.clear();
    // "$@" is one word per argument, quoted or not; "$f" of `for f in A B` is A in one pass of
    // the loop and B in the next, so the rules see each as a word of its own.
    const bool each_argument = v == "$@" || v == "${@}" || IsLoopListReference(sc, v);
    changed = Substitute(sc, v, &word, cap, &over) || changed;
    // Assignments before the command and after a declaration builtin (`X=$V cmd`, `export X=$V`)
    // are not split: V's blanks stay in X.
    const bool assignment = (assigning || declaring) && IsAssignment(lv, w);
    if ((w.flags & kRedir) == 0 && !assignment && assigning) {
      assigning = false;
      declaring =
          v == "export" || v == "declare" || v == "local" || v == "typeset" || v == "readonly";
    }
    if (assignment) {
      // Its name stays bare, so that the rewrite still reads as an assignment.
      const size_t eq = word.find('=') + 1;
      text.append(word, 0, eq);
      AppendLiteralWord(&text, std::string_view(word).substr(eq));
    } else if (((w.flags & kQuoted) != 0 && !each_argument) || (w.flags & kRedir) != 0) {
      AppendLiteralWord(&text, word);
    } else {  // an unquoted expansion splits into words, as bash splits it
      size_t k = 0;
      bool first = true;
      while (k < word.size()) {
        while (k < word.size() && IsWhite(word[k])) ++k;
        size_t m = k;
        while (m < word.size() && !IsWhite(word[m])) ++m;
        if (m > k) {
          if (!first) text.push_back(' ');
          AppendLiteralWord(&text, std::string_view(word).substr(k, m - k));
          first = false;
        }
        k = m;
      }
      if (first) text.append("''");
    }
    over = over || text.size() > cap;
  }
  if (!changed) return false;
  if (over) {
    ctx.Raise(ShellStatus::kTooLong);
    return false;
  }
  ctx.substituting = true;
  // `text` is not written again until this parse is done: rewrites are off inside it.
  ParseText(text, depth + 1);
  ctx.substituting = false;
  return true;
}

// A shell or `source` given a process substitution as its script (`bash <(echo B64 | base64 -d)`,
// `. <(echo CMD)`): when the substitution prints or decodes a literal, that text is the script, and
// it is parsed as a command line, as `echo ... | base64 -d | sh` is.
void ShellNormalizer::Impl::ReadProcessSubstScript(Level& lv, size_t i, size_t e, size_t depth) {
  size_t j = NextWord(lv, i + 1, e);
  while (j < e) {
    const std::string_view v = View(lv, lv.words[j]);
    if (v.size() < 2 || v[0] != '-') break;  // options (`bash -x`, `source --`)
    j = NextWord(lv, j + 1, e);
  }
  if (j >= e || (lv.words[j].flags & kSubst) == 0) return;
  const std::string_view v = View(lv, lv.words[j]);
  if (v.size() < 3 || v.substr(0, 2) != "<(" || v.back() != ')') return;
  SegmentList::Scratch& sc = ctx.out->scratch;
  const std::string_view inner = v.substr(2, v.size() - 3);
  if (!LiteralOutput(inner, norm.limits_.max_bytes, sc, &sc.printed_buf)) return;
  // Copied to this depth's aux: parsing the script may use the scratch buffers again.
  std::string& aux = ctx.Lv(depth).aux;
  const size_t mark = aux.size();
  aux.append(sc.printed_buf);
  ParseText(std::string_view{aux}.substr(mark), depth + 1);
  aux.resize(mark);
}

// The body of the function whose definition is being read (`f() {` BODY `}`), remembered under
// the name the reader noted, so that a later call can be expanded. Not inside an expansion: the
// body being parsed there is one of the remembered strings, which must not move.
void ShellNormalizer::Impl::RememberFunction(std::string_view body) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_function || sc.fn_pending.empty()) return;
  const size_t close = body.rfind('}');
  if (close != std::string_view::npos) body = body.substr(0, close);
  const size_t slot = FindFunction(sc, sc.fn_pending);
  if (slot == sc.fn_count) {
    if (sc.fn_count == kMaxShellFunctions) return;  // its calls then stay as written
    if (sc.fn_names.size() <= slot) {
      sc.fn_names.emplace_back();
      sc.fn_bodies.emplace_back();
    }
    sc.fn_names[slot] = sc.fn_pending;
    ++sc.fn_count;
  }
  sc.fn_bodies[slot].assign(body);
  sc.fn_pending.clear();
}

// `NAME ARGS` where NAME is a remembered function whose body names a `$` expansion: the call is
// kept, with its arguments as they read now (known variables substituted), for
// ExpandFunctionCalls. A body without `$` would parse exactly as it did at its definition.
void ShellNormalizer::Impl::NoteFunctionCall(const Level& lv, std::string_view name, size_t i,
                                             size_t e) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (sc.fn_count == 0 || ctx.in_function || ctx.substituting || ctx.stop) return;
  const size_t f = FindFunction(sc, name);
  if (f == sc.fn_count || sc.fn_bodies[f].find('$') == std::string::npos) return;
  if (sc.fn_calls == kMaxShellFunctionCalls) {
    ctx.Raise(ShellStatus::kTooManySegments);
    return;
  }
  auto grow = [](auto& v, size_t n) {
    if (v.size() < n) v.resize(n);
  };
  grow(sc.call_fn, sc.fn_calls + 1);
  grow(sc.call_arg_begin, sc.fn_calls + 2);
  sc.call_fn[sc.fn_calls] = f;
  sc.call_arg_begin[sc.fn_calls] = sc.call_arg_count;
  for (size_t j = i + 1; j < e; ++j) {
    if ((lv.words[j].flags & kRedir) != 0) continue;
    grow(sc.call_args, sc.call_arg_count + 1);
    std::string& arg = sc.call_args[sc.call_arg_count++];
    arg.clear();
    bool over = false;
    Substitute(sc, View(lv, lv.words[j]), &arg, kMaxShellVariableBytes, &over);
  }
  ++sc.fn_calls;
  sc.call_arg_begin[sc.fn_calls] = sc.call_arg_count;
}

// Parses each noted call's function body one level down, its arguments bound as `$1`..`$9`, `$@`
// and `$*`, where the variable rewrite writes them into the body's commands. Runs once the line
// has been read, so that these segments come after all of the line's own. One level: calls inside
// these parses are not noted.
void ShellNormalizer::Impl::ExpandFunctionCalls() {
  SegmentList::Scratch& sc = ctx.out->scratch;
  ctx.in_function = true;
  for (size_t k = 0; k < sc.fn_calls && !ctx.stop; ++k) {
    std::string& all = sc.loop_buf;
    all.clear();
    char position[2] = {'1', '\0'};
    for (size_t a = sc.call_arg_begin[k]; a < sc.call_arg_begin[k + 1]; ++a) {
      const std::string& arg = sc.call_args[a];
      if (position[0] <= '9') {
        RememberVariable(std::string_view(position, 1), arg, /*append=*/false);
        ++position[0];
      }
      if (!all.empty()) all.push_back(' ');
      all.append(arg);
    }
    for (; position[0] <= '9'; ++position[0]) {  // fewer arguments: the rest are empty
      RememberVariable(std::string_view(position, 1), "", /*append=*/false);
    }
    RememberVariable("@", all, /*append=*/false);
    RememberVariable("*", all, /*append=*/false);
    ParseText(sc.fn_bodies[sc.call_fn[k]], 1);
  }
  ctx.in_function = false;
}

}  // namespace doberman::internal
