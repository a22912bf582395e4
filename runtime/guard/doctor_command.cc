// doctor: reads the host's settings as the host would, then checks each thing a silent pass could
// come from. Every check prints one line: ok, PROBLEM (counted; exit 1) or note.
#include "doctor_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "guard_output.h"
#include "guard_service.h"
#include "pack_loading.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

struct Report {
  int problems = 0;
  void Ok(const std::string& s) { std::printf("  ok       %s\n", s.c_str()); }
  void Problem(const std::string& s) {
    ++problems;
    std::printf("  PROBLEM  %s\n", s.c_str());
  }
  void Note(const std::string& s) { std::printf("  note     %s\n", s.c_str()); }
};

// Our handlers on one event, with the group each sits in (Claude Code, Codex) or null (Cursor).
struct Found {
  const JsonValue* handler;
  const JsonValue* group;
  size_t group_index, handler_index;
};

std::vector<Found> OursOn(Host host, const JsonValue& settings, const char* event) {
  std::vector<Found> out;
  const JsonValue* hooks = settings.Find("hooks");
  const JsonValue* list = hooks != nullptr ? hooks->Find(event) : nullptr;
  if (list == nullptr || list->type != JsonType::kArray) return out;
  for (size_t g = 0; g < list->items.size(); ++g) {
    const JsonValue& entry = list->items[g];
    if (host == Host::kCursor) {
      if (IsOurHandler(entry)) out.push_back({&entry, nullptr, g, 0});
      continue;
    }
    const JsonValue* handlers = entry.Find("hooks");
    if (handlers == nullptr || handlers->type != JsonType::kArray) continue;
    for (size_t h = 0; h < handlers->items.size(); ++h) {
      if (IsOurHandler(handlers->items[h])) out.push_back({&handlers->items[h], &entry, g, h});
    }
  }
  return out;
}

// The guard's invocation inside a hook command: its path and the options that matter here.
struct Invocation {
  std::string guard, pack, state_dir, image_cache;
  std::vector<std::string> pubkeys;
  bool thin_client = false;  // doberman-hook: pack and key come from the environment
};

Invocation ParseInvocation(const std::string& command) {
  Invocation inv;
  const std::vector<std::string> words = SplitCommandWords(command);
  size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::string base = w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1);
    if (base == "doberman-guard" || base == "doberman-hook") {
      inv.guard = w;
      inv.thin_client = base == "doberman-hook";
      break;
    }
  }
  for (++i; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "||" || w == ";" || w == "&&") break;
    if (i + 1 >= words.size()) break;
    if (w == "--pack") inv.pack = words[++i];
    if (w == "--pubkey") inv.pubkeys.push_back(words[++i]);
    if (w == "--state-dir") inv.state_dir = words[++i];
    if (w == "--image-cache") inv.image_cache = words[++i];
  }
  if (inv.pack.empty() && std::getenv("DOBERMAN_PACK") != nullptr)
    inv.pack = std::getenv("DOBERMAN_PACK");
  if (inv.pubkeys.empty()) inv.pubkeys = PublicKeysFromEnvironment();
  if (inv.state_dir.empty() && std::getenv("DOBERMAN_STATE_DIR") != nullptr)
    inv.state_dir = std::getenv("DOBERMAN_STATE_DIR");
  inv.image_cache = ResolveImageCache(inv.image_cache);
  return inv;
}

// The agent runs as this user: it can change a file it can write, or one in a directory it can
// write (by replacing it).
bool WritableHere(const std::string& path) {
  return ::access(path.c_str(), W_OK) == 0 || ::access(ParentDir(path).c_str(), W_OK) == 0;
}

// The pack's verdict on the agent writing `path` with its own file tool.
doberman_verdict WriteVerdict(doberman_pack* pack, doberman_scratch* scratch,
                              const std::string& path) {
  doberman_call call{};
  call.struct_size = sizeof call;
  call.tool = {"Write", 5};
  call.path = {path.data(), path.size()};
  call.content = {"x", 1};
  doberman_result r{};
  r.struct_size = sizeof r;
  doberman_decide(pack, scratch, &call, &r);
  return r.verdict;
}

void CheckReach(Report* report, doberman_pack* pack, doberman_scratch* scratch,
                const std::string& what, const std::string& path, bool must_be_writable) {
  const bool writable = must_be_writable || WritableHere(path);
  const doberman_verdict v = pack != nullptr ? WriteVerdict(pack, scratch, path) : DOBERMAN_AUTH;
  if (!writable) {
    report->Ok(what + " " + path + ": not writable by this user");
  } else if (v == DOBERMAN_BLOCK) {
    report->Ok(what + " " + path +
               ": writable by this user, and the pack BLOCKs the agent writing it");
  } else {
    report->Problem(what + " " + path + " is within the agent's reach: writable by this user (" +
                    (::geteuid() == 0 ? "root" : "its owner or directory") +
                    ") and the pack answers " + doberman_verdict_name(v) +
                    " to a Write of it; make it root-owned (e.g. under /etc/doberman) or protect "
                    "it in the pack");
  }
}

// Runs `command` with /bin/sh -c, `input` on stdin; collects stdout and stderr; kills it after
// `timeout_ms`. Returns the exit status (-1 when it could not run or was killed).
int RunShell(const std::string& command, const std::string& input, int timeout_ms, std::string* out,
             std::string* err) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err_pipe, O_CLOEXEC) != 0)
    return -1;
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  signal(SIGPIPE, SIG_IGN);
  (void)!::write(in_pipe[1], input.data(), input.size());
  ::close(in_pipe[1]);
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long elapsed =
        (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed >= timeout_ms) {
      ::kill(-pid, SIGKILL);
      killed = true;
      break;
    }
    if (::poll(fds, 2, static_cast<int>(timeout_ms - elapsed)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err)->append(buf, static_cast<size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (killed || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// The canary: a recursive delete of the filesystem root (only ever text in a payload), in the
// host's own payload shape. Returns true when the answer refuses it in that host's protocol.
bool Canary(Host host, const std::string& command, Report* report) {
  const std::string payload =
      host == Host::kCursor
          ? R"({"conversation_id":"doberman-doctor","hook_event_name":"beforeShellExecution",)"
            R"("command":"rm -rf / --no-preserve-root","cwd":"/tmp"})"
          : R"({"session_id":"doberman-doctor","hook_event_name":"PreToolUse","tool_name":"Bash",)"
            R"("tool_input":{"command":"rm -rf / --no-preserve-root"},"cwd":"/tmp"})";
  std::string out, err;
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const int rc = RunShell(command, payload + "\n", 20000, &out, &err);
  clock_gettime(CLOCK_MONOTONIC, &end);
  const long ms = (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1000000;
  JsonValue answer;
  internal::JsonError jerr;
  const bool parsed =
      !out.empty() && internal::ParseJson(out, internal::JsonLimits{}, &answer, &jerr);
  bool denied = false;
  if (parsed && host == Host::kCursor) {
    const std::string* p = answer.FindString("permission");
    denied = p != nullptr && *p == "deny";
  } else if (parsed) {
    const JsonValue* specific = answer.Find("hookSpecificOutput");
    const std::string* p =
        specific != nullptr ? specific->FindString("permissionDecision") : nullptr;
    denied = p != nullptr && *p == "deny";
  }
  const bool block_line = err.find("Doberman BLOCK") != std::string::npos;
  if (denied && err.find("Doberman BLOCK:") == std::string::npos) {
    report->Ok("canary: a Bash `rm -rf /` sent through the hook command came back deny (" +
               std::to_string(ms) + " ms)");
    return true;
  }
  std::string first_err = err.substr(0, err.find('\n'));
  if (rc == 2 && block_line) {
    report->Problem("canary: refused, but only because the hook failed: " + first_err);
  } else {
    report->Problem("canary: the hook command did not refuse `rm -rf /` (exit " +
                    std::to_string(rc) +
                    (out.empty() ? ", no answer" : ", answer " + out.substr(0, 200)) +
                    (first_err.empty() ? "" : ", stderr: " + first_err) + ")");
  }
  return false;
}

void CheckService(const Invocation& inv, Report* report) {
  const char* env = std::getenv("DOBERMAN_SOCKET");
  const std::string socket_path = env != nullptr && *env != '\0' ? env : DefaultSocketPath();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  bool up = false;
  if (fd >= 0 && socket_path.size() < sizeof addr.sun_path) {
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size());
    up = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  if (fd >= 0) ::close(fd);
  if (up) {
    report->Ok("service: answering on " + socket_path);
  } else if (inv.thin_client) {
    report->Note("service: nothing answers on " + socket_path +
                 "; doberman-hook falls back to the one-shot guard (fail closed, slower)");
  } else {
    report->Note("service: not used (the hook runs the one-shot guard; see docs/service.md)");
  }
}

}  // namespace

int RunDoctor(const InstallOptions& o) {
  Report report;
  const std::string path = ResolveSettingsPath(o);
  std::printf("doberman-guard doctor %s (%s)\n", HostName(o.host), path.c_str());
  JsonValue settings;
  bool exists = false;
  std::string error;
  if (!ReadSettings(path, &settings, &exists, &error)) {
    report.Problem(error + ": the host may refuse it or run without hooks");
  } else if (!exists) {
    report.Problem("no settings file " + path + ": nothing is guarded (doberman-guard install " +
                   HostName(o.host) + ")");
  }
  if (report.problems > 0) {
    std::printf("%d problem%s\n", report.problems, report.problems == 1 ? "" : "s");
    return 1;
  }
  const JsonValue* disable = settings.Find("disableAllHooks");
  if (disable != nullptr && disable->type == JsonType::kBool && disable->boolean)
    report.Problem("\"disableAllHooks\": true turns every hook off");

  // Every required event carries our handler, failing closed.
  std::string command;
  int events_ok = 0;
  const auto events = RequiredEvents(o.host);
  std::vector<std::pair<std::string, std::string>> trust_needed;
  for (const HookEventSpec& event : events) {
    const auto found = OursOn(o.host, settings, event.name);
    if (found.empty()) {
      report.Problem(std::string(event.name) + ": no Doberman hook (doberman-guard install " +
                     HostName(o.host) + ")");
      continue;
    }
    bool ok = true;
    for (const Found& f : found) {
      const std::string* cmd = f.handler->FindString("command");
      if (command.empty() && cmd != nullptr) command = *cmd;
      if (o.host == Host::kClaudeCode) {
        const std::string* on_failure = f.handler->FindString("onFailure");
        if (on_failure == nullptr || *on_failure != "block") {
          report.Problem(std::string(event.name) +
                         ": onFailure is not \"block\": a guard that is missing, crashes or times "
                         "out lets the call run");
          ok = false;
        }
      }
      if (o.host == Host::kCursor) {
        const JsonValue* fc = f.handler->Find("failClosed");
        if (fc == nullptr || fc->type != JsonType::kBool || !fc->boolean) {
          report.Problem(std::string(event.name) +
                         ": failClosed is not true: a failing guard lets the action run");
          ok = false;
        }
      }
      if (o.host == Host::kCodex && cmd != nullptr &&
          (cmd->find("|| {") == std::string::npos || cmd->find("exit 2") == std::string::npos)) {
        report.Problem(std::string(event.name) +
                       ": the command is not wrapped to exit 2 on failure: Codex runs the call "
                       "when a hook fails");
        ok = false;
      }
      if (event.matcher && f.group != nullptr) {
        const std::string* m = f.group->FindString("matcher");
        if (m != nullptr && *m != "*" && !m->empty()) {
          report.Problem(std::string(event.name) + ": matcher \"" + *m +
                         "\" leaves every other tool unjudged (use \"*\")");
          ok = false;
        }
      }
    }
    if (ok) ++events_ok;
  }
  if (events_ok == static_cast<int>(events.size())) {
    std::string names;
    for (const auto& e : events) names += (names.empty() ? "" : ", ") + std::string(e.name);
    report.Ok("settings: Doberman hooks on " + names + ", failing closed");
  }
  if (o.host == Host::kCodex) {
    std::string text, ignored;
    bool config_exists = false;
    ReadTextFile(ParentDir(path) + "/config.toml", &text, &config_exists, &ignored);
    int untrusted = 0;
    for (const auto& [key, hash] : CodexTrustEntries(path, settings)) {
      std::string header = "[hooks.state.";
      internal::AppendJsonString(key, &header);
      header += "]\ntrusted_hash = \"" + hash + "\"";
      if (text.find(header) == std::string::npos) ++untrusted;
    }
    if (untrusted > 0) {
      report.Problem(std::to_string(untrusted) +
                     " Doberman hook(s) not trusted in config.toml: `codex exec` skips them "
                     "silently (install again, or review them in the interactive client)");
    } else {
      report.Ok("codex: every Doberman hook is trusted in config.toml");
    }
  }
  if (command.empty()) {
    std::printf("%d problem%s\n", report.problems, report.problems == 1 ? "" : "s");
    return 1;
  }

  // The guard, the pack and the key the command names.
  const Invocation inv = ParseInvocation(command);
  if (inv.guard.empty() || ::access(inv.guard.c_str(), X_OK) != 0) {
    report.Problem("guard " +
                   (inv.guard.empty() ? std::string("(none in the command)") : inv.guard) +
                   " is not an executable file");
  }
  doberman_pack* pack = nullptr;
  doberman_scratch* scratch = nullptr;
  if (inv.pack.empty() || inv.pubkeys.empty()) {
    report.Problem(
        "the hook command names no pack or key (and DOBERMAN_PACK / DOBERMAN_PUBKEY "
        "are unset here)");
  } else {
    PackLoadResult r = LoadPackWithKeys(inv.pack, inv.pubkeys, "", 0);
    pack = r.pack;
    if (pack == nullptr) {
      report.Problem(r.error + " (" + r.status + "); every call is denied");
    } else {
      doberman_pack_info info{};
      info.struct_size = sizeof info;
      doberman_pack_get_info(pack, &info);
      report.Ok("pack " + inv.pack + ": " + info.name + " " + info.version + " r" +
                std::to_string(info.revision) + ", signature verified");
      if (info.expires_unix != 0 && info.expires_unix - std::time(nullptr) < 14 * 86400)
        report.Note("the pack expires within 14 days; every call is denied after that");
      doberman_scratch_create(pack, &scratch);
    }
  }
  if (!inv.guard.empty()) CheckReach(&report, pack, scratch, "guard", inv.guard, false);
  if (!inv.pack.empty()) CheckReach(&report, pack, scratch, "pack", inv.pack, false);
  for (const auto& k : inv.pubkeys) CheckReach(&report, pack, scratch, "key", k, false);
  CheckReach(&report, pack, scratch, "settings", path, false);
  // Codex's trust entries: an agent that could drop them would have the hooks skipped silently.
  if (o.host == Host::kCodex)
    CheckReach(&report, pack, scratch, "Codex config", ParentDir(path) + "/config.toml", false);
  if (!inv.state_dir.empty())
    CheckReach(&report, pack, scratch, "state directory", inv.state_dir + "/ledger", true);
  // A one-shot hook maps the databases it finds there: whoever can write an image can change what
  // is matched.
  if (!inv.image_cache.empty())
    CheckReach(&report, pack, scratch, "image cache", inv.image_cache + "/0.img", true);
  doberman_scratch_free(scratch);
  doberman_pack_free(pack);
  CheckService(inv, &report);
  Canary(o.host, command, &report);
  if (::geteuid() == 0)
    report.Note("running as root: an agent running as root can change anything; run it as a user");
  if (report.problems == 0) {
    std::printf("all checks passed\n");
    return 0;
  }
  std::printf("%d problem%s\n", report.problems, report.problems == 1 ? "" : "s");
  return 1;
}

}  // namespace doberman::guard
