// Source files as loaded by the compiler, kept in memory so that diagnostics can quote the line
// they point at. Locations are 1-based lines and 1-based byte columns everywhere (front-ends
// convert once).
#ifndef DOBERMAN_COMPILER_SOURCE_MAP_H_
#define DOBERMAN_COMPILER_SOURCE_MAP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doberman::compiler {

struct Loc {
  uint32_t file = 0;    // index in SourceMap; 0 is "no file"
  uint32_t line = 0;    // 1-based; 0 means unknown/absent
  uint32_t column = 0;  // 1-based byte column
  uint32_t length = 1;  // caret width
  bool known() const { return line != 0; }
};

class SourceMap {
 public:
  SourceMap();
  // Registers a file and its text; returns its id (>= 1).
  uint32_t Add(std::string path, std::string text);
  const std::string& Path(uint32_t file) const { return files_[file].path; }
  const std::string& Text(uint32_t file) const { return files_[file].text; }
  // The text of line `line` (1-based) without its newline; empty when out of range.
  std::string_view Line(uint32_t file, uint32_t line) const;
  // Converts a byte offset in the file to a Loc.
  Loc LocAt(uint32_t file, size_t offset, uint32_t length = 1) const;
  size_t Offset(const Loc& loc) const;

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<size_t> line_starts;
  };
  std::vector<File> files_;
};

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_SOURCE_MAP_H_
