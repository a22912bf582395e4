// apply_patch sections (API in apply_patch.h).
#include "apply_patch.h"

#include <array>

namespace doberman::guard {

bool SplitApplyPatch(std::string_view patch, std::vector<PatchFileOp>* out) {
  static constexpr std::array<std::string_view, 4> kHeaders = {
      "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "};
  PatchFileOp* current = nullptr;
  size_t pos = 0;
  bool any = false;
  while (pos < patch.size()) {
    size_t nl = patch.find('\n', pos);
    if (nl == std::string_view::npos) nl = patch.size();
    std::string_view line = patch.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) {
      trimmed.remove_prefix(1);
    }
    bool header = false;
    for (std::string_view prefix : kHeaders) {
      if (trimmed.substr(0, prefix.size()) == prefix) {
        std::string_view path = trimmed.substr(prefix.size());
        while (!path.empty() && (path.back() == ' ' || path.back() == '\t')) path.remove_suffix(1);
        out->push_back({std::string(path), {}});
        current = &out->back();
        header = any = true;
        break;
      }
    }
    if (header || current == nullptr) continue;
    if (!line.empty() && line[0] == '+') {
      current->added.append(line.substr(1));
      current->added.push_back('\n');
    }
  }
  return any;
}

}  // namespace doberman::guard
