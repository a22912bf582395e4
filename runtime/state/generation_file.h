// DIR/ledger.gen: the value ledger's generation as 8 little-endian bytes, which a process holding
// a session in memory reads before every lookup to learn of other processes' writes without taking
// SQLite's locks (StateStore::PrepareLookup).
#ifndef DOBERMAN_STATE_GENERATION_FILE_H_
#define DOBERMAN_STATE_GENERATION_FILE_H_

#include <cstdint>
#include <string>

namespace doberman::state {

class GenerationFile {
 public:
  GenerationFile() = default;
  GenerationFile(const GenerationFile&) = delete;
  GenerationFile& operator=(const GenerationFile&) = delete;
  ~GenerationFile();

  // Opens (creating, 0600) `path`; it must be a regular file owned by us.
  bool Open(const std::string& path, std::string* error);
  // The value; -1 when it cannot be read whole.
  int64_t Read() const;
  bool Write(int64_t value, std::string* error);
  // From now on Read is a load from a shared mapping instead of a read system call (a third of a
  // warm outbound check). Left unmapped when that fails.
  void Map();

 private:
  int fd_ = -1;
  const uint64_t* map_ = nullptr;
  bool map_failed_ = false;  // tried once: reads stay on pread
  std::string name_;
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_GENERATION_FILE_H_
