// Fragment tables: reading a rule file's or a manifest's `define`s and expanding (?&name) in
// patterns.
#include "fragments.h"

#include <string_view>

#include "pattern_walk.h"

namespace doberman::compiler {
namespace {

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// What a reference may hold: upper case too, so that (?&Upper) is reported as unknown, not passed
// on.
bool IsReferenceChar(char c) { return IsNameChar(c) || (c >= 'A' && c <= 'Z'); }

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 64 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

// Calls fn(at, length, name) for each (?&name) of `regex` that is syntax: not escaped (\(?&x) is a
// literal parenthesis), not quoted (\Q...\E) and not inside a character class ([(?&x)] is a set
// of bytes).
template <typename Fn>
void ForEachReference(std::string_view regex, Fn&& fn) {
  WalkPattern(regex, [&](size_t i, bool in_class) {
    if (in_class || regex.compare(i, 3, "(?&") != 0) return false;
    size_t j = i + 3;
    while (j < regex.size() && IsReferenceChar(regex[j])) ++j;
    if (j > i + 3 && j < regex.size() && regex[j] == ')')
      fn(i, j + 1 - i, regex.substr(i + 3, j - i - 3));
    return false;  // the bytes of a reference start no other one: the walk goes on through them
  });
}

}  // namespace

FragmentTable::FragmentTable(const std::vector<FragmentAst>& defs, Diagnostics& diags,
                             FragmentTable* pack)
    : diags_(diags), pack_(pack) {
  for (const FragmentAst& def : defs) {
    const std::string& name = def.name.value;
    if (!ValidName(name)) {
      diags_.Error(DiagCode::E2103, def.name.loc, "invalid fragment name '" + name + "'",
                   "not a lower-case word", "names are a-z, 0-9 and _, starting with a letter");
      continue;
    }
    if (!def.pattern.flags.empty()) {
      diags_.Error(DiagCode::E2103, def.pattern.flags.front().loc,
                   "fragment '" + name + "' has flags", "flags belong to the patterns using it",
                   "give the flags to each pattern that uses (?&" + name + ")");
    }
    if (auto it = fragments_.find(name); it != fragments_.end()) {
      diags_.Error(DiagCode::E3021, def.name.loc, "fragment '" + name + "' is defined twice",
                   "defined again here",
                   "first defined at line " + std::to_string(it->second.name_loc.line));
      continue;
    }
    if (pack_ != nullptr && pack_->fragments_.count(name) != 0) {
      // A file's own meaning for a pack-wide name would make (?&name) read differently from file
      // to file; refused rather than shadowed.
      diags_.Error(DiagCode::E3021, def.name.loc, "fragment '" + name + "' is defined twice",
                   "the pack manifest defines it too",
                   "the manifest's definition (line " +
                       std::to_string(pack_->fragments_.at(name).name_loc.line) +
                       ") holds in every file; use it, or give this one another name");
      continue;
    }
    // Expanded before it is entered: a reference to itself or to a later fragment is unknown here.
    Fragment f;
    defining_ = true;
    f.expanded = Expand(def.pattern, nullptr);
    defining_ = false;
    f.name_loc = def.name.loc;
    fragments_.emplace(name, std::move(f));
  }
}

FragmentTable::Fragment* FragmentTable::Find(const std::string& name) {
  if (auto it = fragments_.find(name); it != fragments_.end()) return &it->second;
  return pack_ != nullptr ? pack_->Find(name) : nullptr;
}

std::vector<std::string> FragmentTable::KnownNames() const {
  std::vector<std::string> known =
      pack_ != nullptr ? pack_->KnownNames() : std::vector<std::string>{};
  for (const auto& [n, _] : fragments_) known.push_back(n);
  return known;
}

std::string FragmentTable::Expand(const PatternAst& pattern, std::vector<FragmentUse>* uses) {
  const std::string_view regex = pattern.regex.value;
  std::string out;
  size_t copied = 0;  // bytes of `regex` already in `out`
  ForEachReference(regex, [&](size_t at, size_t length, std::string_view name) {
    Fragment* fragment = Find(std::string(name));
    if (fragment == nullptr) {
      const std::string suggestion = ClosestMatch(name, KnownNames());
      diags_.Error(DiagCode::E3020,
                   PatternTextLoc(pattern.regex.loc, pattern.content_offset, at, length),
                   "unknown fragment '" + std::string(name) + "'",
                   !suggestion.empty() ? "did you mean '" + suggestion + "'?"
                   : defining_         ? "not defined before this fragment"
                   : pack_ != nullptr  ? "not defined in this file or in the pack manifest"
                                       : "not defined in this file",
                   defining_ ? "a fragment may use only the fragments defined before it"
                             : "define it in this file" +
                                   std::string(pack_ != nullptr ? " or in the manifest" : "") +
                                   ": define " + std::string(name) + " /.../ (YAML: define: {" +
                                   std::string(name) + ": '...'})");
      return;
    }
    fragment->used = true;
    out.append(regex.substr(copied, at - copied));
    FragmentUse use;
    use.source_at = at;
    use.source_length = length;
    use.expanded_at = out.size();
    out += "(?:";
    out += fragment->expanded;
    out += ')';
    use.expanded_length = out.size() - use.expanded_at;
    if (uses != nullptr) uses->push_back(use);
    copied = at + length;
  });
  out.append(regex.substr(copied));
  return out;
}

void FragmentTable::ReportUnused() {
  for (const auto& [name, f] : fragments_) {
    if (f.used) continue;
    diags_.Warning(DiagCode::W3022, f.name_loc, "fragment '" + name + "' is never used",
                   "defined here", "use it in a pattern as (?&" + name + "), or remove it");
  }
}

}  // namespace doberman::compiler
