// The fail-closed hook settings of each host, as data: which file holds them, which events get the
// guard and with which options, how to recognise our entries among the user's own, and how to
// merge them into (or take them out of) a parsed settings file. `install`, `uninstall` and `doctor`
// build on this; tests/guard/install_test.py holds it equal to the settings the real-client tests
// run (tests/hosts/*.json.in).
#ifndef DOBERMAN_GUARD_HOST_SETTINGS_H_
#define DOBERMAN_GUARD_HOST_SETTINGS_H_

#include <string>
#include <vector>

#include "hook_payload.h"
#include "json.h"

namespace doberman::guard {

// What the hook command runs: `guard hook HOST --pack P --pubkey K... [--state-dir D]`.
struct GuardCommand {
  std::string guard;  // absolute path of doberman-guard
  std::string pack;
  std::vector<std::string> pubkeys;
  std::string state_dir;  // empty: none
};

// One event the guard must be on, and whether the host's entry for it takes a matcher.
struct HookEventSpec {
  const char* name;
  bool matcher;
};

// The events each host's settings wire (the same list the real-client tests use).
std::vector<HookEventSpec> RequiredEvents(Host host);

// The settings file for `host`: user level (under $HOME, or $CODEX_HOME for Codex) or the
// project at `project_dir` (when not empty).
std::string SettingsPath(Host host, const std::string& project_dir);

// The shell command a host runs for every event: the one-shot guard (Codex: wrapped so that any
// failure of the guard becomes exit 2 with a reason, since Codex runs the call on every other hook
// failure).
std::string HookCommand(Host host, const GuardCommand& g);

// Our handler entry for `host` (Claude Code and Codex: {type, command, timeout[, onFailure]};
// Cursor: {command, timeout, failClosed}).
internal::JsonValue OurHandler(Host host, const std::string& command);

// A handler is ours when its command runs doberman-guard or doberman-hook.
bool IsOurHandler(const internal::JsonValue& handler);

// Puts our handler on every required event of `settings` (an object; `{}` for a new file), keeping
// everything else: a group or entry that only holds our handler is replaced in place, our handler
// is taken out of groups it shares with the user's, and a new entry is appended when none was
// ours. Returns false with `error` when the file's shape is not the host's (then nothing is
// changed).
bool MergeOurHooks(Host host, const std::string& command, internal::JsonValue* settings,
                   std::string* error);

// Takes every handler of ours out of `settings`, dropping groups and events left empty. Returns
// how many were removed; false with `error` when the shape is not the host's.
bool RemoveOurHooks(Host host, internal::JsonValue* settings, int* removed, std::string* error);

// Splits a command line written by HookCommand (plain and single-quoted words) back into words.
std::vector<std::string> SplitCommandWords(const std::string& command);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_HOST_SETTINGS_H_
