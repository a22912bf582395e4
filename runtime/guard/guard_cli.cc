// The definition of doberman-guard's command line (see guard_cli.h).
#include "guard_cli.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "doberman/doberman.h"
#include "log_command.h"
#include "pack_loading.h"

namespace doberman::guard {
namespace {

using cli::CommandDoc;
using cli::OptionDoc;
using cli::ValueKind;

const std::vector<std::string> kHosts = {"claude-code", "codex", "cursor"};

OptionDoc Pack() {
  return {"--pack",
          "",
          "P",
          ValueKind::kFile,
          {},
          "signed pack (default $DOBERMAN_PACK); repeat it for further packs, which combine "
          "raise-only (an organisation pack and a team pack, say)",
          true};
}
OptionDoc Pubkey() {
  return {"--pubkey", "",
          "K",        ValueKind::kFile,
          {},         "trusted public key file (default $DOBERMAN_PUBKEY, ':'-separated)",
          true};
}
OptionDoc State() {
  return {"--state",
          "",
          "S",
          ValueKind::kFile,
          {},
          "rollback state file: refuses a pack revision lower than one accepted before (default "
          "$DOBERMAN_STATE, else STATE_DIR/rollback.state)",
          false};
}
OptionDoc StateDir() {
  return {"--state-dir",
          "",
          "D",
          ValueKind::kDirectory,
          {},
          "session memory: taint ledger and decision log (default $DOBERMAN_STATE_DIR; unset: "
          "every call is judged alone and nothing is logged)",
          false};
}
OptionDoc Broker() {
  return {"--broker",
          "",
          "FILE",
          ValueKind::kFile,
          {},
          "the egress broker (proxy, allowlist, enforcement; default $DOBERMAN_BROKER): an AUTH "
          "only about where an HTTP connection goes, to allowlisted hosts, is left to it "
          "(docs/egress-broker.md)",
          false};
}
OptionDoc TurnAuth() {
  return {
      "--turn-auth",
      "",
      "MODE",
      ValueKind::kWord,
      {"warn", "block"},
      "what AUTH does to a prompt turn: warn (the default) lets it go on flagged, block stops it",
      false};
}

OptionDoc ImageCache() {
  return {"--image-cache",
          "",
          "D",
          ValueKind::kDirectory,
          {},
          "deserialized databases kept for the next process, so a one-shot call maps them instead "
          "of decoding them; off: none (default $DOBERMAN_IMAGE_CACHE, else "
          "$XDG_CACHE_HOME/doberman/images or ~/.cache/doberman/images)",
          false};
}

std::vector<OptionDoc> Loading() { return {Pack(), Pubkey(), State(), StateDir()}; }

std::vector<OptionDoc> Plus(std::vector<OptionDoc> a, const std::vector<OptionDoc>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

OptionDoc DryRun() {
  return {"--dry-run", "",
          "",          ValueKind::kNone,
          {},          "print the file as it would be written; change nothing",
          false};
}

std::vector<OptionDoc> Wiring(bool install) {
  std::vector<OptionDoc> o = {
      {"--user", "", "", ValueKind::kNone, {}, "the user's settings file (the default)", false},
      {"--project",
       "",
       "",
       ValueKind::kNone,
       {},
       "the current directory's project settings (.claude/, .codex/, .cursor/)",
       false},
      {"--settings", "", "FILE", ValueKind::kFile, {}, "this settings file instead", false},
  };
  if (install) {
    o.push_back(DryRun());
    o.push_back({"--guard",
                 "",
                 "PATH",
                 ValueKind::kFile,
                 {},
                 "the guard the hooks run (default: this executable)",
                 false});
    o.push_back({"--no-trust",
                 "",
                 "",
                 ValueKind::kNone,
                 {},
                 "codex: do not write trust entries to config.toml (review the hooks in Codex "
                 "instead; until then `codex exec` skips them)",
                 false});
    o.push_back(Pack());
    o.push_back(Pubkey());
    o.push_back(StateDir());
  } else {
    o.push_back(DryRun());
  }
  return o;
}

cli::ProgramDoc Build() {
  cli::ProgramDoc d;
  d.name = "doberman-guard";
  d.summary = "judges an AI coding agent's actions against a signed Doberman pack";
  d.version = doberman_runtime_version();
  d.description =
      "doberman-guard loads a pack compiled and signed by dobermanc, verifies its signature before "
      "reading anything in it, and answers PASS, AUTH (a person must approve) or BLOCK for hook "
      "payloads of Claude Code, Codex and Cursor, for MCP traffic and for a Squid proxy. Every "
      "failure (no pack, a bad signature, an unreadable payload, a deadline) answers a refusal, "
      "never a pass.";
  d.commands = {
      {"check",
       "",
       ValueKind::kNone,
       {},
       "judge JSON lines of hook payloads on stdin",
       "Each line (optionally with \"id\") gets one JSON line: "
       "{\"id\",\"verdict\",\"status\",\"reasons\",\"rules\",\"messages\",\"hits\"}.",
       Plus(Loading(), {ImageCache(), Broker()})},
      {"hook", "HOST", ValueKind::kWord, kHosts,
       "answer one hook payload on stdin in the host's own protocol",
       "The command a host's hook settings run (see doberman-guard install).",
       Plus(Loading(),
            {ImageCache(),
             TurnAuth(),
             Broker(),
             {"--deadline-ms",
              "",
              "N",
              ValueKind::kWord,
              {},
              "answer deny when not done after N ms (default 5000, or $DOBERMAN_DEADLINE_MS); "
              "keep it below the host's hook timeout",
              false}})},
      {"serve",
       "",
       ValueKind::kNone,
       {},
       "answer hook requests from doberman-hook on a unix socket",
       "The warm service: packs loaded once; SIGHUP or a changed pack file reloads.",
       Plus(Loading(),
            {TurnAuth(),
             Broker(),
             {"--socket",
              "",
              "S",
              ValueKind::kFile,
              {},
              "socket path (default $DOBERMAN_SOCKET, else $XDG_RUNTIME_DIR/doberman/guard.sock)",
              false},
             {"--workers",
              "",
              "N",
              ValueKind::kWord,
              {},
              "concurrent requests, 1-256 (default 4)",
              false},
             {"--request-timeout-ms",
              "",
              "N",
              ValueKind::kWord,
              {},
              "per-request deadline (default 2000)",
              false}})},
      {"log",
       "",
       ValueKind::kNone,
       {},
       "print the decision log of a state directory",
       "A table, or JSON lines with --json; --verify checks its hash chain.",
       {StateDir(),
        {"--json", "", "", ValueKind::kNone, {}, "JSON lines instead of a table", false},
        {"--session", "", "ID", ValueKind::kWord, {}, "only this session", false},
        {"--since",
         "",
         "AGE",
         ValueKind::kWord,
         {},
         "only rows newer than 30s, 10m, 2h, 3d...",
         false},
        {"--verdict",
         "",
         "V",
         ValueKind::kWord,
         {"PASS", "AUTH", "BLOCK"},
         "only this verdict",
         false},
        {"--verify",
         "",
         "",
         ValueKind::kNone,
         {},
         "check the hash chain; exit 1 when a row was edited or removed",
         false}}},
      {"mcp-proxy",
       "-- SERVER [ARGS...]",
       ValueKind::kCommand,
       {},
       "guard an MCP server: run a stdio one, or stand before a streamable-HTTP one",
       "tools/call is judged as tool mcp__N__NAME, results and tools/list too; anything not PASS "
       "is answered with a JSON-RPC error instead of being forwarded. With --upstream and --listen "
       "(instead of -- SERVER) the client connects to the proxy's address over streamable HTTP.",
       Plus(Loading(),
            {{"--name",
              "",
              "N",
              ValueKind::kWord,
              {},
              "the server's name in mcp__N__TOOL (default: the command's basename, or the "
              "upstream's host)",
              false},
             {"--upstream",
              "",
              "URL",
              ValueKind::kWord,
              {},
              "the streamable-HTTP server's MCP endpoint (http:// or https://)",
              false},
             {"--listen",
              "",
              "HOST:PORT",
              ValueKind::kWord,
              {},
              "where the client connects, with --upstream (port 0: any free port, printed)",
              false}})},
      {"squid-acl",
       "",
       ValueKind::kNone,
       {},
       "a Squid external ACL helper",
       "Reads %URI %METHOD %DST %PORT lines (with concurrency ids); OK only for an allowlisted "
       "host whose URL the pack lets through and that carries no secret an agent session was "
       "shown (--state-dir, or the service with --socket), else ERR.",
       Plus(Loading(), {{"--allow",
                         "",
                         "FILE",
                         ValueKind::kFile,
                         {},
                         "the egress allowlist: host[:port] or *.domain per line (default-deny)",
                         false},
                        {"--socket",
                         "",
                         "S",
                         ValueKind::kFile,
                         {},
                         "also ask the warm service at S (its session ledger); no answer refuses",
                         false}})},
      {"explain",
       "",
       ValueKind::kNone,
       {},
       "for rule authors: print the views rules match for each stdin line",
       "A line is a shell command, or prompt:TEXT, or path:PATH.",
       Loading()},
      {"install", "HOST", ValueKind::kWord, kHosts,
       "wire the fail-closed hooks into a host's settings file",
       "Keeps everything else in the file, writes a backup beside it, changes nothing when the "
       "hooks are already in place, and refuses a file it cannot parse or a pack that does not "
       "verify.",
       Wiring(true)},
      {"uninstall", "HOST", ValueKind::kWord, kHosts,
       "take the Doberman hooks out of a host's settings file", "", Wiring(false)},
      {"doctor",
       "HOST",
       ValueKind::kWord,
       kHosts,
       "check that a host is really guarded, and send a canary call that must come back refused",
       "Names each problem (settings that do not fail closed, a missing event, a pack that does "
       "not verify, files in the agent's reach, an untrusted Codex hook); exit 1 when there is "
       "any.",
       {Wiring(false)[0], Wiring(false)[1], Wiring(false)[2]}},
      {"completion",
       "SHELL",
       ValueKind::kWord,
       {"bash", "zsh"},
       "print the shell completion script",
       "",
       {}},
      {"man", "", ValueKind::kNone, {}, "print the man page (roff)", "", {}},
      {"version",
       "",
       ValueKind::kNone,
       {},
       "print the version, pack formats, Hyperscan version and build type (also --version)",
       "",
       {}},
  };
  d.environment = {
      {"DOBERMAN_PACK", "the pack when --pack is not given"},
      {"DOBERMAN_PUBKEY", "trusted public key files, ':'-separated, when --pubkey is not given"},
      {"DOBERMAN_STATE", "the rollback state file when --state is not given"},
      {"DOBERMAN_STATE_DIR", "session memory's directory when --state-dir is not given"},
      {"DOBERMAN_IMAGE_CACHE",
       "check and hook: the image cache when --image-cache is not given (off: none)"},
      {"DOBERMAN_DEADLINE_MS", "hook: the deadline when --deadline-ms is not given"},
      {"DOBERMAN_TURN_GATE",
       "off: prompt turns pass unjudged (the action path carries "
       "everything); on (the default)"},
      {"DOBERMAN_SOCKET", "serve: the socket when --socket is not given"},
      {"DOBERMAN_BROKER", "the egress broker's configuration when --broker is not given"},
  };
  d.exit_status =
      "0: answered (for hook, the verdict is in the answer). 1: doctor found a problem, install "
      "refused, log --verify found tampering. 2: usage error; for hook this also refuses the call "
      "in every host. 3: no usable pack or state directory.";
  d.see_also = {"dobermanc(1)"};
  return d;
}

}  // namespace

namespace {

// A positive number of milliseconds, at most an hour.
bool ParseDeadline(const std::string& v, long* out) {
  char* end = nullptr;
  const long ms = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || ms <= 0 || ms > 3600000) return false;
  *out = ms;
  return true;
}

bool TakesHost(const std::string& mode) {
  return mode == "hook" || mode == "install" || mode == "uninstall" || mode == "doctor";
}

// Accepts exactly what guard_cli.cc lists for the command; each option is then applied below.
}  // namespace

bool ParseGuardArgs(int argc, char** argv, Options* o) {
  const cli::ProgramDoc& program = GuardProgram();
  int i = 1;
  if (i >= argc) return false;
  o->mode = argv[i++];
  if (o->mode == "--version" || o->mode == "-V") o->mode = "version";
  const cli::CommandDoc* command = cli::FindCommand(program, o->mode);
  if (command == nullptr) return false;
  if (TakesHost(o->mode)) {
    if (i >= argc) return false;
    o->host_name = argv[i++];
    if (!HostFromName(o->host_name, &o->host)) return false;
  } else if (o->mode == "completion") {
    if (i >= argc) return false;
    o->shell = argv[i++];
  }
  if (const char* e = std::getenv("DOBERMAN_DEADLINE_MS"); e != nullptr && *e != '\0') {
    if (!ParseDeadline(e, &o->deadline_ms)) return false;
  }
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (o->mode == "mcp-proxy" && a == "--") {
      for (++i; i < argc; ++i) o->server_argv.emplace_back(argv[i]);
      break;
    }
    if (a == "--help" || a == "-h") {
      o->help = true;
      continue;
    }
    if (cli::FindOption(program, command, a) == nullptr) return false;
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--pack") {
      if (!value(&v) || v.empty()) return false;
      // Repeated: further packs, combined raise-only with the first.
      (o->pack.empty() ? o->pack : o->more_packs.emplace_back()) = v;
    } else if (a == "--pubkey") {
      if (!value(&v)) return false;
      o->pubkeys.push_back(v);
    } else if (a == "--state") {
      if (!value(&o->state)) return false;
    } else if (a == "--state-dir") {
      if (!value(&o->state_dir)) return false;
    } else if (a == "--image-cache") {
      if (!value(&o->image_cache) || o->image_cache.empty()) return false;
    } else if (a == "--socket") {
      if (!value(&o->socket) || o->socket.empty()) return false;
    } else if (a == "--workers") {
      if (!value(&v) || v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos ||
          std::atoi(v.c_str()) < 1 || std::atoi(v.c_str()) > 256) {
        return false;
      }
      o->workers = std::atoi(v.c_str());
    } else if (a == "--request-timeout-ms") {
      if (!value(&v) || !ParseDeadline(v, &o->request_timeout_ms)) return false;
    } else if (a == "--allow") {
      if (!value(&o->allow_file) || o->allow_file.empty()) return false;
    } else if (a == "--upstream") {
      if (!value(&o->mcp_upstream) || o->mcp_upstream.empty()) return false;
    } else if (a == "--listen") {
      if (!value(&o->mcp_listen) || o->mcp_listen.empty()) return false;
    } else if (a == "--name") {
      if (!value(&o->mcp_name) || o->mcp_name.empty() ||
          o->mcp_name.find_first_of(" \t/") != std::string::npos) {
        return false;
      }
    } else if (o->mode == "log" && ParseLogOption(a, value, &o->log)) {
      if (!o->log.error.empty()) return false;
    } else if (a == "--deadline-ms") {
      if (!value(&v) || !ParseDeadline(v, &o->deadline_ms)) return false;
    } else if (a == "--turn-auth") {
      if (!value(&v) || (v != "warn" && v != "block")) return false;
      o->turn_auth_blocks = v == "block";
    } else if (a == "--broker") {
      if (!value(&o->broker_file) || o->broker_file.empty()) return false;
    } else if (a == "--user") {
      o->install.project_dir.clear();
    } else if (a == "--project") {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd) == nullptr) return false;
      o->install.project_dir = cwd;
    } else if (a == "--settings") {
      if (!value(&o->install.settings) || o->install.settings.empty()) return false;
    } else if (a == "--dry-run") {
      o->install.dry_run = true;
    } else if (a == "--no-trust") {
      o->install.trust = false;
    } else if (a == "--guard") {
      if (!value(&o->install.guard) || o->install.guard.empty()) return false;
    } else {
      return false;  // listed in guard_cli.cc but not applied here: a bug the tests catch
    }
  }
  if (o->pack.empty()) {
    if (const char* e = std::getenv("DOBERMAN_PACK")) o->pack = e;
  }
  if (o->pubkeys.empty()) o->pubkeys = PublicKeysFromEnvironment();
  if (o->state_dir.empty()) {
    if (const char* e = std::getenv("DOBERMAN_STATE_DIR")) o->state_dir = e;
  }
  if (o->broker_file.empty() && (o->mode == "check" || o->mode == "hook" || o->mode == "serve")) {
    if (const char* e = std::getenv("DOBERMAN_BROKER")) o->broker_file = e;
  }
  if (!o->broker_file.empty())
    o->broker_ok = ReadBrokerConfig(o->broker_file, &o->broker, &o->broker_error);
  if (const char* e = std::getenv("DOBERMAN_TURN_GATE"); e != nullptr && *e != '\0') {
    if (std::strcmp(e, "off") == 0) {
      o->turn_gate = false;
    } else if (std::strcmp(e, "on") != 0) {
      return false;  // a typo must not silently leave the gate in an unintended state
    }
  }
  if (o->state.empty()) {
    if (const char* e = std::getenv("DOBERMAN_STATE")) o->state = e;
  }
  if (o->mode == "check" || o->mode == "hook") o->image_cache = ResolveImageCache(o->image_cache);
  // The rollback record lives in the state directory unless a file was named.
  if (o->state.empty() && !o->state_dir.empty()) o->state = o->state_dir + "/rollback.state";
  if (o->mode == "mcp-proxy" && !o->help) {
    // `-- SERVER ARGS...`, or `--upstream URL --listen HOST:PORT`: exactly one of them.
    const bool http = !o->mcp_upstream.empty() || !o->mcp_listen.empty();
    if (http ? (o->mcp_upstream.empty() || o->mcp_listen.empty() || !o->server_argv.empty())
             : o->server_argv.empty()) {
      return false;
    }
  }
  return true;
}

const cli::ProgramDoc& GuardProgram() {
  static const cli::ProgramDoc program = Build();
  return program;
}

}  // namespace doberman::guard
