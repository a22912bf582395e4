// Rollback protection state: read, compare, atomically rewrite. Concurrent loaders may race to write;
// each writes a complete file via rename, and the highest revision wins on the next load anyway.
#include "rollback_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace doberman::internal {
namespace {

bool ReadState(const char* path, std::map<std::string, uint64_t>* state, std::string* error) {
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) {
    if (errno == ENOENT) return true;
    *error = std::string("cannot read revision state ") + path + ": " + std::strerror(errno);
    return false;
  }
  char line[512];
  bool ok = true;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    char name[400];
    unsigned long long rev = 0;
    if (line[0] == '\n' || line[0] == '#') continue;
    if (std::sscanf(line, "%399s %llu", name, &rev) != 2) {
      *error = std::string("revision state ") + path + " is corrupt";
      ok = false;
      break;
    }
    (*state)[name] = rev;
  }
  std::fclose(f);
  return ok;
}

bool WriteState(const char* path, const std::map<std::string, uint64_t>& state, std::string* error) {
  std::string tmp = std::string(path) + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = std::string("cannot write revision state ") + tmp + ": " + std::strerror(errno);
    return false;
  }
  std::string text = "# doberman: highest accepted pack revision per pack name\n";
  for (const auto& [name, rev] : state) text += name + " " + std::to_string(rev) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = (::fsync(fd) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path) != 0) {
    ::unlink(tmp.c_str());
    *error = std::string("cannot replace revision state ") + path;
    return false;
  }
  return true;
}

}  // namespace

doberman_status CheckAndRecordRevision(const char* state_path, std::string_view pack_name,
                                       uint64_t revision, std::string* error) {
  std::map<std::string, uint64_t> state;
  if (!ReadState(state_path, &state, error)) return DOBERMAN_E_STATE;
  std::string name(pack_name);
  for (char& c : name) {
    if (c == ' ' || c == '\n' || c == '\t') c = '_';
  }
  auto it = state.find(name);
  if (it != state.end() && revision < it->second) {
    *error = "pack revision " + std::to_string(revision) + " is older than revision " +
             std::to_string(it->second) + " already accepted on this host (rollback refused)";
    return DOBERMAN_E_ROLLBACK;
  }
  if (it != state.end() && revision == it->second) return DOBERMAN_OK;
  state[name] = revision;
  return WriteState(state_path, state, error) ? DOBERMAN_OK : DOBERMAN_E_STATE;
}

}  // namespace doberman::internal
