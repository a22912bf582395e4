// Fragments: the named pieces of regex a rule file defines (`define name /.../`, YAML `define:`)
// and its patterns use as (?&name). One table per file; the checker expands each pattern through it
// and reports names that are malformed, defined twice, unknown or never used.
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
  // (so no expansion can recurse).
  FragmentTable(const std::vector<FragmentAst>& defs, Diagnostics& diags);

  // `pattern`'s regex with every (?&name) replaced by (?:...) of the fragment, and where each was.
  // A rule's pattern may use any fragment of its file. An unknown name is reported at the
  // reference and left as written (Hyperscan would refuse it).
  std::string Expand(const PatternAst& pattern, std::vector<FragmentUse>* uses);

  // W3022 for each fragment nothing used. Call once the file's rules are expanded.
  void ReportUnused();

 private:
  struct Fragment {
    std::string expanded;
    Loc name_loc;
    bool used = false;
  };
  Diagnostics& diags_;
  std::map<std::string, Fragment> fragments_;
  bool defining_ = false;  // expanding a definition: only earlier fragments are known
};

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_FRAGMENTS_H_
