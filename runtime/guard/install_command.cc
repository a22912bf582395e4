// install / uninstall: one settings file, read strictly, changed in memory, written atomically with
// a backup of what was there.
#include "install_command.h"

#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "doberman/doberman.h"
#include "pack_loading.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

constexpr size_t kMaxSettingsBytes = 16u << 20;

std::string Absolute(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

// mkdir -p, new directories 0700 (settings may hold tokens).
bool MakeDirs(const std::string& dir, std::string* error) {
  if (dir.empty() || dir == "/" || dir == ".") return true;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  if (!MakeDirs(ParentDir(dir), error)) return false;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool ReadTextFile(const std::string& path, std::string* text, bool* exists, std::string* error) {
  *exists = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return true;
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxSettingsBytes) {
    ::close(fd);
    *error = path + " is not a regular file of at most 16 MiB";
    return false;
  }
  *exists = true;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text->append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (n < 0) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

namespace {

// Writes `text` to `path` through a temporary file and rename(2): a crash leaves the old file or
// the new one, never half of one. Keeps an existing file's mode; new files are 0600.
bool WriteAtomically(const std::string& path, const std::string& text, std::string* error) {
  struct stat st {};
  const mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0600;
  const std::string tmp = path + ".doberman-tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == text.size() && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

// PATH.doberman-backup-YYYYMMDDTHHMMSS (UTC), never replacing an earlier backup.
bool Backup(const std::string& path, const std::string& text, std::string* backup,
            std::string* error) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
  *backup = path + ".doberman-backup-" + stamp;
  for (int i = 1; ::access(backup->c_str(), F_OK) == 0; ++i)
    *backup = path + ".doberman-backup-" + stamp + "-" + std::to_string(i);
  return WriteAtomically(*backup, text, error);
}

std::string Compact(const JsonValue& v) {
  std::string out;
  internal::AppendJsonValue(v, &out);
  return out;
}

std::string Render(const JsonValue& settings) {
  std::string out;
  internal::AppendJsonValue(settings, &out, 2);
  out.push_back('\n');
  return out;
}

// Refuses to wire a pack the guard would refuse (it would deny every call). Signature and
// structure, and one small database.
bool VerifyPack(const InstallOptions& o, std::string* error) {
  PackLoadResult r = LoadPackWithKeys(o.pack, o.pubkeys, "", 1u << DOBERMAN_FIELD_TOOL);
  if (r.pack == nullptr) {
    *error = r.error;
    return false;
  }
  doberman_pack_free(r.pack);
  return true;
}

const char* CodexLabel(const std::string& event) {
  if (event == "PreToolUse") return "pre_tool_use";
  if (event == "PostToolUse") return "post_tool_use";
  if (event == "UserPromptSubmit") return "user_prompt_submit";
  if (event == "PermissionRequest") return "permission_request";
  return nullptr;
}

// config.toml with our trust tables replaced: each `[hooks.state."KEY"]` we write is first taken
// out (header to the next table header), then all are appended.
std::string WithTrust(const std::string& toml,
                      const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<std::string> headers;
  for (const auto& [key, hash] : entries) {
    std::string h = "[hooks.state.";
    internal::AppendJsonString(key, &h);
    headers.push_back(h + "]");
  }
  std::string out;
  bool skipping = false;
  for (size_t at = 0; at < toml.size();) {
    size_t end = toml.find('\n', at);
    if (end == std::string::npos) end = toml.size();
    const std::string line = toml.substr(at, end - at);
    at = end + 1;
    std::string trimmed = line;
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    if (!trimmed.empty() && trimmed[0] == '[') {
      skipping = false;
      for (const std::string& h : headers) skipping = skipping || trimmed.rfind(h, 0) == 0;
    }
    if (!skipping) out += line + "\n";
  }
  if (!out.empty() && out.size() >= 2 && out.substr(out.size() - 2) != "\n\n") out += "\n";
  for (size_t i = 0; i < entries.size(); ++i)
    out += headers[i] + "\ntrusted_hash = \"" + entries[i].second + "\"\n";
  return out;
}

// The settings file read once: its text (for the backup) and its parsed value.
bool Prepare(const InstallOptions& o, std::string* path, JsonValue* settings, std::string* before,
             bool* exists) {
  *path = ResolveSettingsPath(o);
  std::string error;
  if (!ReadTextFile(*path, before, exists, &error)) {
    std::fprintf(stderr, "doberman-guard: %s\n", error.c_str());
    return false;
  }
  if (!ParseSettings(*path, *before, settings, &error)) {
    std::fprintf(stderr, "doberman-guard: %s; nothing was changed\n", error.c_str());
    return false;
  }
  return true;
}

// Writes `after` over `path` (a backup of `before` first when the file existed) when `changed`.
int Commit(const InstallOptions& o, const std::string& path, const std::string& before, bool exists,
           bool changed, const std::string& after, const char* what) {
  if (exists && !changed) {
    std::printf("%s: %s already; nothing to change\n", path.c_str(), what);
    return 0;
  }
  if (o.dry_run) {
    std::fputs(after.c_str(), stdout);
    std::fprintf(stderr, "doberman-guard: dry run: %s would be written as above%s\n", path.c_str(),
                 exists ? " (after a backup)" : "");
    return 0;
  }
  std::string error, backup;
  if (!MakeDirs(ParentDir(path), &error) || (exists && !Backup(path, before, &backup, &error)) ||
      !WriteAtomically(path, after, &error)) {
    std::fprintf(stderr, "doberman-guard: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s: %s%s\n", path.c_str(), what,
              backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
  return 0;
}

}  // namespace

std::string ResolveSettingsPath(const InstallOptions& o) {
  if (!o.settings.empty()) return o.settings;
  return SettingsPath(o.host, o.project_dir);
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

bool ReadSettings(const std::string& path, JsonValue* out, bool* exists, std::string* error) {
  std::string text;
  return ReadTextFile(path, &text, exists, error) && ParseSettings(path, text, out, error);
}

bool ParseSettings(const std::string& path, const std::string& text, JsonValue* out,
                   std::string* error) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    *out = JsonValue{};
    out->type = JsonType::kObject;
    return true;
  }
  internal::JsonLimits limits;
  limits.max_bytes = kMaxSettingsBytes;
  internal::JsonError jerr;
  if (!internal::ParseJson(text, limits, out, &jerr)) {
    *error = "cannot parse " + path + " (" + jerr.message + " at byte " +
             std::to_string(jerr.offset) + ")";
    return false;
  }
  return true;
}

std::string CodexTrustHash(const std::string& event, bool matcher, const std::string& command,
                           int timeout) {
  // Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False) of
  // {"event_name", "hooks": [{"async", "command", "timeout", "type"}], "matcher"}.
  std::string data = "{\"event_name\":";
  internal::AppendJsonString(CodexLabel(event) != nullptr ? CodexLabel(event) : event, &data);
  data += ",\"hooks\":[{\"async\":false,\"command\":";
  internal::AppendJsonString(command, &data);
  data += ",\"timeout\":" + std::to_string(timeout) + ",\"type\":\"command\"}]";
  if (matcher) data += ",\"matcher\":\"*\"";
  data += "}";
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  static const char* hex = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned char b : digest) {
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 15]);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> CodexTrustEntries(const std::string& hooks_path,
                                                                   const JsonValue& settings) {
  std::vector<std::pair<std::string, std::string>> out;
  const JsonValue* hooks = settings.Find("hooks");
  if (hooks == nullptr) return out;
  for (const HookEventSpec& event : RequiredEvents(Host::kCodex)) {
    const JsonValue* list = hooks->Find(event.name);
    if (list == nullptr) continue;
    for (size_t g = 0; g < list->items.size(); ++g) {
      const JsonValue* handlers = list->items[g].Find("hooks");
      if (handlers == nullptr) continue;
      for (size_t h = 0; h < handlers->items.size(); ++h) {
        const JsonValue& handler = handlers->items[h];
        const std::string* command = handler.FindString("command");
        const JsonValue* timeout = handler.Find("timeout");
        if (!IsOurHandler(handler) || command == nullptr || timeout == nullptr) continue;
        out.emplace_back(
            hooks_path + ":" + CodexLabel(event.name) + ":" + std::to_string(g) + ":" +
                std::to_string(h),
            CodexTrustHash(event.name, event.matcher, *command, std::atoi(timeout->text.c_str())));
      }
    }
  }
  return out;
}

int RunInstall(const InstallOptions& o) {
  InstallOptions abs = o;
  std::string error;
  abs.pack = Absolute(o.pack);
  for (auto& k : abs.pubkeys) k = Absolute(k);
  if (abs.pack.empty() || abs.pubkeys.empty()) {
    std::fprintf(stderr,
                 "doberman-guard: install needs an existing --pack and --pubkey (or "
                 "DOBERMAN_PACK, DOBERMAN_PUBKEY)\n");
    return 2;
  }
  for (const auto& k : abs.pubkeys) {
    if (k.empty()) {
      std::fprintf(stderr, "doberman-guard: a --pubkey file does not exist\n");
      return 2;
    }
  }
  if (!VerifyPack(abs, &error)) {
    std::fprintf(stderr, "doberman-guard: %s; nothing was changed\n", error.c_str());
    return 1;
  }
  GuardCommand g;
  g.guard = Absolute(o.guard.empty() ? "/proc/self/exe" : o.guard);
  if (g.guard.empty() || ::access(g.guard.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "doberman-guard: the guard %s is not an executable file\n",
                 o.guard.c_str());
    return 2;
  }
  g.pack = abs.pack;
  g.pubkeys = abs.pubkeys;
  g.state_dir = o.state_dir;
  std::string path, before;
  JsonValue settings;
  bool exists = false;
  if (!Prepare(o, &path, &settings, &before, &exists)) return 1;
  const std::string original = Compact(settings);
  if (!MergeOurHooks(o.host, HookCommand(o.host, g), &settings, &error)) {
    std::fprintf(stderr, "doberman-guard: %s: %s; nothing was changed\n", path.c_str(),
                 error.c_str());
    return 1;
  }
  // Compared as values: a file in another layout but with our hooks in place is left alone.
  const int rc = Commit(o, path, before, exists, Compact(settings) != original, Render(settings),
                        "Doberman hooks installed");
  if (rc != 0 || o.host != Host::kCodex || !o.trust) return rc;
  // Codex runs a user or project hook only once trusted; the operator installing it is the review.
  const std::string config = ParentDir(path) + "/config.toml";
  std::string toml;
  bool toml_exists = false;
  if (!ReadTextFile(config, &toml, &toml_exists, &error)) {
    std::fprintf(stderr, "doberman-guard: %s\n", error.c_str());
    return 1;
  }
  const std::string trusted = WithTrust(toml, CodexTrustEntries(path, settings));
  return Commit(o, config, toml, toml_exists, trusted != toml, trusted,
                "Codex trust entries for the Doberman hooks written");
}

int RunUninstall(const InstallOptions& o) {
  std::string path, before, error;
  JsonValue settings;
  bool exists = false;
  if (!Prepare(o, &path, &settings, &before, &exists)) return 1;
  if (!exists) {
    std::printf("%s: no such file; nothing to change\n", path.c_str());
    return 0;
  }
  int removed = 0;
  if (!RemoveOurHooks(o.host, &settings, &removed, &error)) {
    std::fprintf(stderr, "doberman-guard: %s: %s; nothing was changed\n", path.c_str(),
                 error.c_str());
    return 1;
  }
  if (removed == 0) {
    std::printf("%s: no Doberman hooks; nothing to change\n", path.c_str());
    return 0;
  }
  return Commit(o, path, before, exists, true, Render(settings),
                ("Doberman hooks removed (" + std::to_string(removed) + ")").c_str());
}

}  // namespace doberman::guard
