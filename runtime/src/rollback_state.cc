// Rollback protection state: lock, read, compare, merge, atomically rewrite. Many hook processes
// load packs at once; without the lock two of them could each read the old file and the later
// rename would drop the other's record, letting an older revision load afterwards.
#include "rollback_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "regular_file.h"

namespace doberman::internal {
namespace {

// How long a loader waits for another to finish updating the file. Holders keep the lock for one
// small read and write, so running out means something is wrong: refuse (AUTH), do not wait on.
constexpr auto kLockPatience = std::chrono::milliseconds(2000);
constexpr size_t kMaxStateBytes = 1u << 20;

// Reads "name revision" lines; a name seen twice keeps its highest revision.
bool ReadState(const std::string& path, std::map<std::string, uint64_t>* state,
               std::string* error) {
  std::string text;
  bool missing = false;
  if (!ReadRegularFile(path, kMaxStateBytes, "revision state", &text, error, &missing)) {
    if (missing) {
      error->clear();
      return true;
    }
    return false;
  }
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    char name[400];
    unsigned long long rev = 0;
    char extra = 0;
    if (line.size() >= sizeof name ||
        std::sscanf(line.c_str(), "%399s %llu %c", name, &rev, &extra) != 2) {
      *error = "revision state " + path + " is corrupt";
      return false;
    }
    uint64_t& slot = (*state)[name];
    if (rev > slot) slot = rev;
  }
  return true;
}

bool WriteState(const std::string& path, const std::map<std::string, uint64_t>& state,
                std::string* error) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  ::unlink(tmp.c_str());  // a leftover of a killed process with our pid; ours alone under the lock
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot write revision state " + tmp + ": " + std::strerror(errno);
    return false;
  }
  std::string text = "# doberman: highest accepted pack revision per pack name\n";
  for (const auto& [name, rev] : state) text += name + " " + std::to_string(rev) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = (::fsync(fd) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    *error = "cannot replace revision state " + path;
    return false;
  }
  return true;
}

// An exclusive lock on "<state>.lock" (a separate file: the state file itself is replaced by
// rename, so a lock on it would guard an inode that is about to go away).
class StateLock {
 public:
  bool Acquire(const std::string& state_path, std::string* error) {
    fd_ = OpenRegularFileForUpdate(state_path + ".lock", 0600, "revision state lock", error);
    if (fd_ < 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + kLockPatience;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > deadline) {
        *error = "cannot lock revision state " + state_path + " (held too long by another process)";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  ~StateLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  int fd_ = -1;
};

}  // namespace

doberman_status CheckAndRecordRevision(const char* state_path, std::string_view pack_name,
                                       uint64_t revision, std::string* error) {
  const std::string path(state_path);
  std::string name(pack_name);
  for (char& c : name) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') c = '_';
  }
  std::map<std::string, uint64_t> state;
  // Usually the revision is the one recorded already: a read without the lock says so (the file
  // is only ever replaced whole, by rename, and a recorded revision only grows, so what this read
  // finds was true and still bounds the answer). Anything else is decided under the lock.
  {
    std::string unused;
    if (ReadState(path, &state, &unused)) {
      const auto seen = state.find(name);
      if (seen != state.end() && revision == seen->second) return DOBERMAN_OK;
    }
    state.clear();
  }
  StateLock lock;
  if (!lock.Acquire(path, error)) return DOBERMAN_E_STATE;
  if (!ReadState(path, &state, error)) return DOBERMAN_E_STATE;
  auto it = state.find(name);
  if (it != state.end() && revision < it->second) {
    *error = "pack revision " + std::to_string(revision) + " is older than revision " +
             std::to_string(it->second) + " already accepted on this host (rollback refused)";
    return DOBERMAN_E_ROLLBACK;
  }
  if (it != state.end() && revision == it->second) return DOBERMAN_OK;
  state[name] = revision;
  return WriteState(path, state, error) ? DOBERMAN_OK : DOBERMAN_E_STATE;
}

}  // namespace doberman::internal
