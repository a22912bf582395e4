// Canonical forms of call fields that are not shell commands or prose: the target path.
#ifndef DOBERMAN_RUNTIME_UNITS_H_
#define DOBERMAN_RUNTIME_UNITS_H_

#include <string>
#include <string_view>

namespace doberman::internal {

// Writes the canonical path into `out`: backslashes become '/', `//` and `.` segments collapse,
// `..` resolves lexically (a relative path that climbs out keeps its leading `../`), a path inside
// `cwd` becomes relative to it, and ASCII letters are lower-cased (rules match case-insensitive
// filesystems too). Never touches the filesystem: symlinks are the host's business.
void CanonicalPath(std::string_view path, std::string_view cwd, std::string* out);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_UNITS_H_
