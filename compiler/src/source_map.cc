// Line tables for loaded sources.
#include "source_map.h"

#include <algorithm>

namespace doberman::compiler {

SourceMap::SourceMap() { files_.push_back(File{"<none>", "", {0}}); }

uint32_t SourceMap::Add(std::string path, std::string text) {
  File f{std::move(path), std::move(text), {0}};
  for (size_t i = 0; i < f.text.size(); ++i) {
    if (f.text[i] == '\n') f.line_starts.push_back(i + 1);
  }
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size() - 1);
}

std::string_view SourceMap::Line(uint32_t file, uint32_t line) const {
  if (file >= files_.size() || line == 0) return {};
  const File& f = files_[file];
  if (line > f.line_starts.size()) return {};
  size_t begin = f.line_starts[line - 1];
  size_t end = line < f.line_starts.size() ? f.line_starts[line] - 1 : f.text.size();
  if (end > begin && f.text[end - 1] == '\r') --end;
  return std::string_view(f.text).substr(begin, end - begin);
}

Loc SourceMap::LocAt(uint32_t file, size_t offset, uint32_t length) const {
  if (file >= files_.size()) return {};
  const File& f = files_[file];
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  size_t line = static_cast<size_t>(it - f.line_starts.begin());
  return Loc{file, static_cast<uint32_t>(line),
             static_cast<uint32_t>(offset - f.line_starts[line - 1] + 1), length};
}

size_t SourceMap::Offset(const Loc& loc) const {
  if (loc.file >= files_.size() || !loc.known()) return 0;
  const File& f = files_[loc.file];
  if (loc.line > f.line_starts.size()) return f.text.size();
  return f.line_starts[loc.line - 1] + loc.column - 1;
}

}  // namespace doberman::compiler
