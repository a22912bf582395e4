// `doberman-guard install|uninstall HOST`: writes the fail-closed hook settings into a host's
// settings file (keeping everything else, a backup beside it, idempotent, refusing a file it cannot
// parse) or takes them out again. Codex also gets the trust entries it requires before it runs a
// user hook (without them `codex exec` skips the hook silently).
#ifndef DOBERMAN_GUARD_INSTALL_COMMAND_H_
#define DOBERMAN_GUARD_INSTALL_COMMAND_H_

#include <string>
#include <vector>

#include "host_settings.h"

namespace doberman::guard {

struct InstallOptions {
  Host host = Host::kAny;
  std::string settings;     // --settings FILE (else the user's or the project's file)
  std::string project_dir;  // --project: the current directory's project settings
  bool dry_run = false;
  bool trust = true;  // Codex: write trust entries (--no-trust: review in Codex instead)
  std::string guard;  // --guard PATH (default: this executable)
  std::string pack, state_dir;
  std::vector<std::string> pubkeys;
};

// The settings file these options name.
std::string ResolveSettingsPath(const InstallOptions& o);

// Exit codes: 0 done (or nothing to do), 1 refused (unparseable file, pack that does not verify,
// I/O error), 2 usage.
int RunInstall(const InstallOptions& o);
int RunUninstall(const InstallOptions& o);

// Reads and parses a settings file. A missing or empty file is `{}` (`exists` false for missing).
bool ReadSettings(const std::string& path, internal::JsonValue* out, bool* exists,
                  std::string* error);
// Parses a settings file's text (`path` names it in errors); empty text is `{}`.
bool ParseSettings(const std::string& path, const std::string& text, internal::JsonValue* out,
                   std::string* error);

// The directory part of `path` ("." without one, "/" for the root).
std::string ParentDir(const std::string& path);

// Reads a regular file of at most 16 MiB (symbolic links not followed). A missing file is not an
// error: `*exists` says whether there was one.
bool ReadTextFile(const std::string& path, std::string* text, bool* exists, std::string* error);

// Codex's trust hash of one handler (codex-rs/hooks discovery: sha256 over the compact, key-sorted
// JSON of the event label, matcher and normalized handler), "sha256:<hex>".
std::string CodexTrustHash(const std::string& event, bool matcher, const std::string& command,
                           int timeout);
// The `[hooks.state."<file>:<event>:<group>:<handler>"]` key of each of our handlers in `hooks`,
// with the hash it must carry.
std::vector<std::pair<std::string, std::string>> CodexTrustEntries(
    const std::string& hooks_path, const internal::JsonValue& hooks);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_INSTALL_COMMAND_H_
