// Codex's apply_patch format -> one file operation per section. Every path a patch touches is
// judged (added, updated, deleted, and a move's destination), with the lines it adds as that file's
// content.
#ifndef DOBERMAN_GUARD_APPLY_PATCH_H_
#define DOBERMAN_GUARD_APPLY_PATCH_H_

#include <string>
#include <string_view>
#include <vector>

namespace doberman::guard {

struct PatchFileOp {
  std::string path;
  std::string added;  // the section's '+' lines, each ending in '\n'
};

// Splits a patch at its "*** Add File: ", "*** Update File: ", "*** Delete File: " and
// "*** Move to: " headers (leading white space tolerated, as Codex's own parser does). Returns
// false when the text names no file at all: the caller must not treat such a patch as harmless.
bool SplitApplyPatch(std::string_view patch, std::vector<PatchFileOp>* out);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_APPLY_PATCH_H_
