// doberman-guard: the runtime's command-line face for hooks. `check` answers JSON lines; `hook
// HOST` answers one hook payload the way that host expects. Every failure (no pack, bad signature,
// bad payload) answers deny/block/AUTH with the cause: never allow.
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "guard_output.h"
#include "guard_runner.h"
#include "guard_service.h"
#include "hook_payload.h"
#include "host_answer.h"
#include "json.h"
#include "log_command.h"
#include "mcp_proxy.h"
#include "session_memory.h"
#include "squid_acl.h"

namespace {

using doberman::guard::DecideText;
using doberman::guard::Decision;
using doberman::guard::FieldsOf;
using doberman::guard::HookAnswer;
using doberman::guard::HookEvent;
using doberman::guard::HookOutcome;
using doberman::guard::Host;
using doberman::guard::kMaxPayloadBytes;
using doberman::guard::Load;
using doberman::guard::LoadedPack;
using doberman::guard::LogOptions;
using doberman::guard::Memory;
using doberman::guard::MicrosSince;
using doberman::guard::Options;
using doberman::guard::ParsedPayload;
using doberman::guard::SessionMemory;
using doberman::guard::TurnGateOff;

constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: doberman-guard check [--pack P] [--pubkey K]... [--state S] [--state-dir D]\n"
    "       doberman-guard hook claude-code|codex|cursor [--pack P] [--pubkey K]... [--state S]\n"
    "                           [--state-dir D] [--turn-auth warn|block] [--deadline-ms N]\n"
    "       doberman-guard serve [--socket S] [--pack P] [--pubkey K]... [--state-dir D]\n"
    "                            [--workers N] [--request-timeout-ms N]\n"
    "       doberman-guard log [--state-dir D] [--json] [--session ID] [--since 10m]\n"
    "                          [--verdict PASS|AUTH|BLOCK] [--verify]\n"
    "       doberman-guard mcp-proxy [--name N] [--pack P] [--pubkey K]... [--state-dir D]\n"
    "                                -- SERVER [ARGS...]\n"
    "       doberman-guard squid-acl [--pack P] [--pubkey K]... [--allow FILE]\n"
    "       doberman-guard explain [--pack P] [--pubkey K]...   (rule authors: show the views)\n"
    "       doberman-guard version | --version\n"
    "\n"
    "check   reads JSON lines (hook payloads, optionally with \"id\") on stdin and writes one "
    "JSON\n"
    "        line per input: "
    "{\"id\",\"verdict\",\"status\",\"reasons\",\"rules\",\"messages\",\"hits\"}.\n"
    "hook    reads one payload on stdin and answers in the host's hook protocol.\n"
    "serve   answers hook requests from doberman-hook on a unix socket (default\n"
    "        $DOBERMAN_SOCKET, else $XDG_RUNTIME_DIR/doberman/guard.sock); SIGHUP reloads.\n"
    "log     prints the decision log of a state directory (a table; JSON lines with --json);\n"
    "        --verify checks its hash chain and exits 1 when a row was edited or removed.\n"
    "mcp-proxy  runs the stdio MCP server SERVER and relays the client's messages (stdin/stdout),\n"
    "        judging tools/call (as tool mcp__N__NAME), results and tools/list; anything not\n"
    "        PASS is answered with a JSON-RPC error instead of being forwarded.\n"
    "squid-acl  a Squid external ACL helper (%URI %METHOD %DST %PORT, concurrency ids): OK\n"
    "        only for an allowlisted host whose URL the pack lets through; else ERR.\n"
    "\n"
    "--pack    signed pack (default $DOBERMAN_PACK); repeat it for further packs, which\n"
    "          combine raise-only (an organisation pack and a team pack, say)\n"
    "--pubkey  trusted public key file, repeatable (default $DOBERMAN_PUBKEY, ':'-separated)\n"
    "--state   rollback state file (default $DOBERMAN_STATE, else STATE_DIR/rollback.state when\n"
    "          a state directory is set; neither: no rollback check)\n"
    "--state-dir  session memory: taint ledger and decision log (default $DOBERMAN_STATE_DIR;\n"
    "             unset: every call is judged alone and nothing is logged)\n"
    "--turn-auth  what AUTH does to a prompt turn: warn (default) or block\n"
    "DOBERMAN_TURN_GATE=off  prompt turns pass unjudged (the action path carries everything)\n"
    "--deadline-ms  hook only: answer deny when not done after N ms (default 5000, or\n"
    "              $DOBERMAN_DEADLINE_MS); keep it below the host's hook timeout\n";

// A positive number of milliseconds, at most an hour.
bool ParseDeadline(const std::string& v, long* out) {
  char* end = nullptr;
  const long ms = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || ms <= 0 || ms > 3600000) return false;
  *out = ms;
  return true;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  int i = 1;
  if (i >= argc) return false;
  o->mode = argv[i++];
  if (o->mode == "--version" || o->mode == "-V") o->mode = "version";
  if (o->mode == "hook") {
    if (i >= argc) return false;
    o->host_name = argv[i++];
    if (!doberman::guard::HostFromName(o->host_name, &o->host)) return false;
  } else if (o->mode != "check" && o->mode != "version" && o->mode != "explain" &&
             o->mode != "log" && o->mode != "serve" && o->mode != "mcp-proxy" &&
             o->mode != "squid-acl") {
    return false;
  }
  if (const char* e = std::getenv("DOBERMAN_DEADLINE_MS"); e != nullptr && *e != '\0') {
    if (!ParseDeadline(e, &o->deadline_ms)) return false;
  }
  for (; i < argc; ++i) {
    std::string a = argv[i];
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
    } else if (o->mode == "serve" && a == "--socket") {
      if (!value(&o->socket) || o->socket.empty()) return false;
    } else if (o->mode == "serve" && a == "--workers") {
      if (!value(&v) || v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos ||
          std::atoi(v.c_str()) < 1 || std::atoi(v.c_str()) > 256) {
        return false;
      }
      o->workers = std::atoi(v.c_str());
    } else if (o->mode == "serve" && a == "--request-timeout-ms") {
      if (!value(&v) || !ParseDeadline(v, &o->request_timeout_ms)) return false;
    } else if (o->mode == "squid-acl" && a == "--allow") {
      if (!value(&o->allow_file) || o->allow_file.empty()) return false;
    } else if (o->mode == "mcp-proxy" && a == "--name") {
      if (!value(&o->mcp_name) || o->mcp_name.empty() ||
          o->mcp_name.find_first_of(" \t/") != std::string::npos) {
        return false;
      }
    } else if (o->mode == "mcp-proxy" && a == "--") {
      for (++i; i < argc; ++i) o->server_argv.emplace_back(argv[i]);
      break;
    } else if (o->mode == "log" && ParseLogOption(a, value, &o->log)) {
      if (!o->log.error.empty()) return false;
    } else if (a == "--deadline-ms") {
      if (!value(&v) || !ParseDeadline(v, &o->deadline_ms)) return false;
    } else if (a == "--turn-auth") {
      if (!value(&v) || (v != "warn" && v != "block")) return false;
      o->turn_auth_blocks = v == "block";
    } else {
      return false;
    }
  }
  if (o->pack.empty()) {
    if (const char* e = std::getenv("DOBERMAN_PACK")) o->pack = e;
  }
  if (o->pubkeys.empty()) {
    if (const char* e = std::getenv("DOBERMAN_PUBKEY")) {
      std::string s = e;
      size_t start = 0;
      while (start <= s.size()) {
        size_t colon = s.find(':', start);
        if (colon == std::string::npos) colon = s.size();
        if (colon > start) o->pubkeys.push_back(s.substr(start, colon - start));
        start = colon + 1;
      }
    }
  }
  if (o->state_dir.empty()) {
    if (const char* e = std::getenv("DOBERMAN_STATE_DIR")) o->state_dir = e;
  }
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
  // The rollback record lives in the state directory unless a file was named.
  if (o->state.empty() && !o->state_dir.empty()) o->state = o->state_dir + "/rollback.state";
  if (o->mode == "mcp-proxy" && o->server_argv.empty()) return false;  // `-- SERVER ARGS...`
  return true;
}

int RunCheck(const Options& o, const LoadedPack& lp, Memory* memory) {
  if (lp.scratch == nullptr) std::fprintf(stderr, "doberman-guard: %s\n", lp.error.c_str());
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    std::string_view text(line, static_cast<size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    ParsedPayload payload;
    Decision d = DecideText(text, lp, &payload);
    if (TurnGateOff(o, payload)) {
      d = Decision{};
      d.verdict = DOBERMAN_PASS;
    }
    if (payload.event != HookEvent::kUnknown) memory->Apply(o, lp, payload, &d);
    memory->Log(o, lp, payload, d, MicrosSince(start));
    // A line that failed to parse may still have had an id: echo it when we can find one.
    std::string out = doberman::guard::CheckLine(d, &payload);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  std::free(line);
  return lp.scratch == nullptr ? 3 : 0;
}

// Reads stdin whole. A FIFO or terminal that never closes is the deadline's business.
std::string ReadAll(int fd, bool* too_large, bool* failed) {
  std::string s;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *failed = true;
      break;
    }
    if (n == 0) break;
    s.append(buf, static_cast<size_t>(n));
    if (s.size() > kMaxPayloadBytes) {
      *too_large = true;
      break;
    }
  }
  return s;
}

// For rule authors: each stdin line is a shell command (or, prefixed with `prompt:` / `path:`, a
// prompt or a path); prints the views that rules match: canonical segments, folded text, canonical
// path.
int RunExplain(const LoadedPack& lp) {
  if (lp.pack == nullptr) {
    std::fprintf(stderr, "doberman-guard: %s\n", lp.error.c_str());
    return 3;
  }
  auto print = [](const char* label, bool numbered) {
    return [label, numbered](size_t unit, doberman_string v) {
      if (numbered) {
        std::printf("  %s %zu [%.*s]\n", label, unit + 1, static_cast<int>(v.size), v.data);
      } else {
        std::printf("%s [%.*s]\n", label, static_cast<int>(v.size), v.data);
      }
    };
  };
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    std::string_view text(line, static_cast<size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    doberman_field field = DOBERMAN_FIELD_COMMAND;
    std::function<void(size_t, doberman_string)> show;
    if (text.rfind("prompt:", 0) == 0) {
      text.remove_prefix(7);
      field = DOBERMAN_FIELD_PROMPT;
      show = print("prompt ", false);
    } else if (text.rfind("path:", 0) == 0) {
      text.remove_prefix(5);
      field = DOBERMAN_FIELD_PATH;
      show = print("path   ", false);
    } else {
      show = print("segment", true);
    }
    std::vector<std::pair<size_t, std::string>> views;
    const doberman_status s = doberman_canonical_views(
        lp.pack, field, {text.data(), text.size()}, {nullptr, 0},
        [](void* ctx, size_t unit, doberman_string v) {
          static_cast<std::vector<std::pair<size_t, std::string>>*>(ctx)->emplace_back(
              unit, std::string(v.data, v.size));
        },
        &views);
    if (field == DOBERMAN_FIELD_COMMAND)
      std::printf("command status=%s\n", doberman_status_name(s));
    for (const auto& [unit, v] : views) show(unit, {v.data(), v.size()});
  }
  std::free(line);
  return 0;
}

// The guard's own deadline. The host kills a hook that overruns its timeout and, unless configured
// to fail closed, lets the call run; so the guard answers deny itself well before that. The answer
// is prepared before anything can hang (reading stdin, opening files, loading) and written from the
// signal handler with write(2) and _exit(2) only.
namespace deadline {
std::string g_out, g_err;

extern "C" void OnDeadline(int) {
  if (!g_out.empty()) (void)!::write(STDOUT_FILENO, g_out.data(), g_out.size());
  if (!g_err.empty()) (void)!::write(STDERR_FILENO, g_err.data(), g_err.size());
  _exit(2);
}

void Arm(Host host, long ms) {
  const HookAnswer refusal = doberman::guard::RefuseUnreadable(
      host, "the guard did not finish within its deadline of " + std::to_string(ms) +
                " ms; the call is refused (fail closed)");
  g_out = refusal.out;
  g_err = refusal.err;
  struct sigaction sa {};
  sa.sa_handler = OnDeadline;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGALRM, &sa, nullptr);
  itimerval t{};
  t.it_value.tv_sec = ms / 1000;
  t.it_value.tv_usec = (ms % 1000) * 1000;
  ::setitimer(ITIMER_REAL, &t, nullptr);
}

// Called before the real answer is written, so that a late timer cannot add a second one.
void Disarm() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGALRM);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
}
}  // namespace deadline

int Emit(const HookAnswer& a) {
  deadline::Disarm();
  if (!a.out.empty()) std::fwrite(a.out.data(), 1, a.out.size(), stdout);
  if (!a.err.empty()) std::fwrite(a.err.data(), 1, a.err.size(), stderr);
  std::fflush(stdout);
  return a.exit_code;
}

// One-shot hooks load, after parsing, only the databases the payload needs (session memory also
// searches shown text with the content databases).
void LoadFor(const Options& o, const ParsedPayload& payload, LoadedPack* lp, Memory* memory) {
  memory->Open(o);
  uint32_t fields = FieldsOf(payload);
  if (memory->Wanted(o) && doberman::guard::ShowsText(payload.event))
    fields |= 1u << DOBERMAN_FIELD_CONTENT;
  Load(o, lp, fields);
  memory->Key(lp);
}

// One payload, parsed before the pack is loaded so that only the databases it needs are read.
int RunHook(const Options& o, const timespec& start) {
  deadline::Arm(o.host, o.deadline_ms);
  bool too_large = false, failed = false;
  std::string text = ReadAll(STDIN_FILENO, &too_large, &failed);
  if (too_large || failed) {
    return Emit(doberman::guard::RefuseUnreadable(
        o.host, too_large ? "hook payload larger than 64 MiB" : "cannot read the hook payload"));
  }
  Memory memory;
  LoadedPack lp;
  const HookOutcome outcome = doberman::guard::DecideHook(o, o.host, text, &lp, &memory, LoadFor);
  const int code = Emit(outcome.answer);
  // The log row after the answer is out (a host that reads the answer as it arrives goes on). It is
  // one short transaction; forking a child for it cost more than the write (the pack's pages make
  // fork slow: measured about 4 ms against 0.2 ms for the write).
  if (outcome.judged) memory.Log(o, lp, outcome.payload, outcome.decision, MicrosSince(start));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  Options o;
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!ParseArgs(argc, argv, &o)) {
    std::fputs(kUsage, stderr);
    if (argc >= 2 && std::strcmp(argv[1], "hook") == 0) {
      // A misconfigured hook must still not allow: exit 2 blocks in every host we support, and
      // Cursor also reads the deny on stdout.
      Host host = Host::kClaudeCode;
      if (argc >= 3 && doberman::guard::HostFromName(argv[2], &host) && host == Host::kCursor) {
        std::fputs(doberman::guard::RefuseUnreadable(
                       host, "doberman-guard is misconfigured (bad arguments)")
                       .out.c_str(),
                   stdout);
      }
      std::fputs("Doberman BLOCK: doberman-guard is misconfigured (bad arguments)\n", stderr);
    }
    return kExitUsage;
  }
  if (o.mode == "version") {
    std::printf("doberman-guard %s; runtime ABI %d\n", doberman_runtime_version(),
                DOBERMAN_ABI_VERSION);
    return 0;
  }
  if (o.mode == "hook") return RunHook(o, start);
  if (o.mode == "log") return doberman::guard::RunLog(o.state_dir, o.log);
  if (o.mode == "squid-acl") return doberman::guard::RunSquidAcl(o, o.allow_file);
  if (o.mode == "mcp-proxy") {
    doberman::guard::McpProxyOptions mo;
    mo.server_argv = o.server_argv;
    mo.name = o.mcp_name;
    if (mo.name.empty()) {  // the server command's name: npx pkg / node server.js -> its basename
      std::string base = o.server_argv.front();
      base = base.substr(base.rfind('/') == std::string::npos ? 0 : base.rfind('/') + 1);
      mo.name = base;
    }
    return doberman::guard::RunMcpProxy(o, mo);
  }
  if (o.mode == "serve") {
    doberman::guard::ServiceOptions service;
    service.socket = o.socket.empty() ? doberman::guard::DefaultSocketPath() : o.socket;
    service.workers = o.workers;
    service.request_timeout_ms = o.request_timeout_ms;
    return doberman::guard::RunServe(o, service);
  }
  Memory memory;
  memory.Open(o);
  LoadedPack lp;
  Load(o, &lp);
  memory.Key(&lp);
  if (o.mode == "check") return RunCheck(o, lp, &memory);
  return RunExplain(lp);
}
