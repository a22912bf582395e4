// Fragments: the named pieces of regex a rule file or a pack manifest defines (`define name /.../`,
// YAML `define:`) and patterns use as (?&name). One table per file, whose lookups fall back to the
// manifest's table; the checker expands each pattern through it and reports names that are
// malformed, defined twice, unknown or never used.
#ifndef DOBERMAN_COMPILER_FRAGMENTS_H_
#define DOBERMAN_COMPILER_FRAGMENTS_H_

#include <map>
#include <string>
#include <vector>

#include "ast.h"
#include "diagnostics.h"
#include "ir.h"

namespace doberman::compiler {

class FragmentTable {
 public:
  // Reads `defs` in order: a fragment may use the ones defined before it, not itself or later ones
  // (so no expansion can recurse). `pack`, when given, is the manifest's table: its fragments count
  // as defined before this file's, and a file may not define one of their names again.
  FragmentTable(const std::vector<FragmentAst>& defs, Diagnostics& diags,
                FragmentTable* pack = nullptr);

  // `pattern`'s regex with every (?&name) replaced by (?:...) of the fragment, and where each was.
  // A rule's pattern may use any fragment of its file or of the pack. An unknown name is reported
  // at the reference and left as written (Hyperscan would refuse it).
  std::string Expand(const PatternAst& pattern, std::vector<FragmentUse>* uses);

  // W3022 for each fragment nothing used. Call once every rule that may use them is expanded.
  void ReportUnused();

 private:
  struct Fragment {
    std::string expanded;
    Loc name_loc;
    bool used = false;
  };
  Fragment* Find(const std::string& name);
  std::vector<std::string> KnownNames() const;

  Diagnostics& diags_;
  FragmentTable* pack_;
  std::map<std::string, Fragment> fragments_;
  bool defining_ = false;  // expanding a definition: only earlier fragments are known
};

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_FRAGMENTS_H_
