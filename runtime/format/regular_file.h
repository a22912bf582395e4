// Opening files named by configuration (packs, keys, state) without ever waiting on them. A hook
// that blocks forever is as bad as one that allows: a FIFO, a device or a socket at a configured
// path must be refused at once, not read.
#ifndef DOBERMAN_RUNTIME_REGULAR_FILE_H_
#define DOBERMAN_RUNTIME_REGULAR_FILE_H_

#include <cstddef>
#include <string>

namespace doberman::internal {

// Opens `path` for reading (O_NONBLOCK, so opening a FIFO does not wait for a writer), requires a
// regular file, then clears O_NONBLOCK. Returns the descriptor, or -1 with `error` naming the path.
// `what` names the file in messages ("pack", "public key").
int OpenRegularFileForReading(const std::string& path, const char* what, std::string* error);

// Opens (creating with `mode` when missing) `path` for reading and writing under the same rules;
// symbolic links are not followed. For lock and state files.
int OpenRegularFileForUpdate(const std::string& path, unsigned mode, const char* what,
                             std::string* error);

// Reads a whole regular file of at most `max_bytes`. Returns false with `error` otherwise. A
// missing file sets `*missing` (when not null) and fails.
bool ReadRegularFile(const std::string& path, size_t max_bytes, const char* what, std::string* out,
                     std::string* error, bool* missing = nullptr);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_REGULAR_FILE_H_
