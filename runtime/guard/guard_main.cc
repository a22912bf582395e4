// doberman-guard: the runtime's command-line face for hooks. `check` answers JSON lines; `hook
// HOST` answers one hook payload the way that host expects. Every failure (no pack, bad signature,
// bad payload) answers deny/block/AUTH with the cause: never allow.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "doctor_command.h"
#include "guard_cli.h"
#include "guard_output.h"
#include "guard_runner.h"
#include "guard_service.h"
#include "hook_payload.h"
#include "host_answer.h"
#include "install_command.h"
#include "json.h"
#include "log_command.h"
#include "mcp_proxy.h"
#include "session_memory.h"
#include "squid_acl.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it and the pages fault in
#endif
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

std::string Usage() { return doberman::cli::RenderUsage(doberman::guard::GuardProgram()); }

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
    if (o.broker_ok) doberman::guard::ApplyBroker(o.broker, payload, &d);
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

// The hook payload: stdin read whole (a FIFO or terminal that never closes is the deadline's
// business), straight into one buffer that is neither zero-filled nor copied while it
// grows within its reservation (the file's size when stdin is a file, else 8 MiB of address space;
// untouched pages cost nothing). A large payload copied through a doubling buffer lands on fresh
// pages at every step, and page faults are the dearest part of a one-shot process here: a 1 MiB
// Write took 1,857 faults that way.
struct PayloadBuffer {
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  size_t size = 0;
  std::string_view view() const { return {data.get(), size}; }
};

PayloadBuffer ReadAll(int fd, bool* too_large, bool* failed) {
  PayloadBuffer b;
  struct stat st {};
  size_t capacity = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
                        ? static_cast<size_t>(st.st_size) + 1
                        : size_t{8} << 20;
  capacity = std::min(capacity, kMaxPayloadBytes + 1);
  b.data.reset(static_cast<char*>(std::malloc(capacity)));
  for (;;) {
    if (b.data == nullptr) {
      *failed = true;
      break;
    }
    if (b.size == capacity) {
      if (capacity > kMaxPayloadBytes) {
        *too_large = true;
        break;
      }
      capacity = std::min(capacity * 2, kMaxPayloadBytes + 1);
      char* grown = static_cast<char*>(std::realloc(b.data.get(), capacity));
      if (grown == nullptr) {
        *failed = true;
        break;
      }
      (void)b.data.release();
      b.data.reset(grown);
    }
    const ssize_t n = ::read(fd, b.data.get() + b.size, capacity - b.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *failed = true;
      break;
    }
    if (n == 0) break;
    b.size += static_cast<size_t>(n);
    if (b.size > kMaxPayloadBytes) {
      *too_large = true;
      break;
    }
  }
  return b;
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
// The refusals the handlers write, prepared before they can run: a handler only calls write(2) and
// _exit(2).
HookAnswer g_deadline, g_crash;

[[noreturn]] void WritePreparedAndExit(const HookAnswer& refusal, bool with_stdout) {
  if (with_stdout && !refusal.out.empty())
    (void)!::write(STDOUT_FILENO, refusal.out.data(), refusal.out.size());
  if (!refusal.err.empty()) (void)!::write(STDERR_FILENO, refusal.err.data(), refusal.err.size());
  _exit(2);
}

extern "C" void OnDeadline(int) { WritePreparedAndExit(g_deadline, true); }

// A hook that dies on a signal answers nothing, and the hosts read a killed hook as a non-blocking
// error: the call would go ahead. So a crash (a fault, an abort from an uncaught exception) answers
// the same refusal as a deadline, from a handler that only writes prepared bytes and exits, on its
// own stack (a stack overflow faults on the thread's stack). After the real answer is out it only
// exits 2, which every supported host reads as a refusal.
volatile sig_atomic_t g_answered = 0;

extern "C" void OnCrash(int) { WritePreparedAndExit(g_crash, g_answered == 0); }

void ArmCrash(Host host) {
  g_crash = doberman::guard::RefuseUnreadable(
      host, "the guard stopped on an internal error; the call is refused (fail closed)");
  static char alternate_stack[64 << 10];
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = OnCrash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

void Arm(Host host, long ms) {
  g_deadline = doberman::guard::RefuseUnreadable(
      host, "the guard did not finish within its deadline of " + std::to_string(ms) +
                " ms; the call is refused (fail closed)");
  struct sigaction sa {};
  sa.sa_handler = OnDeadline;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGALRM, &sa, nullptr);
  ArmCrash(host);
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
  deadline::g_answered = 1;
  return a.exit_code;
}

// One-shot hooks load, after parsing, only the databases the payload needs (session memory also
// searches shown tool output with the content databases).
void LoadFor(const Options& o, const ParsedPayload& payload, LoadedPack* lp, Memory* memory) {
  memory->Open(o, /*lazy=*/true);
  uint32_t fields = FieldsOf(payload);
  if (memory->Wanted(o) && doberman::guard::ShownTextNeedsContent(payload))
    fields |= 1u << DOBERMAN_FIELD_CONTENT;
  Load(o, lp, fields);
  memory->Key(lp);
}

// A hook process's heap grows to about half a megabyte (the pack's tables, the normalizer,
// Hyperscan's scratch). Taken page by page, each first touch was a page fault (10-17 us each on the
// virtual machines measured, against about 2 us for a page populated in one call), so the heap is
// grown once and populated in one madvise, and allocations up to a megabyte stay in it.
void TakeHeapInOneGo() {
  constexpr size_t kHeap = 512u << 10;
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
  void* block = std::malloc(kHeap);  // grows the heap by about kHeap; freed, it is the heap's top
  const long page = ::sysconf(_SC_PAGESIZE);
  const auto begin = (reinterpret_cast<uintptr_t>(block) + page - 1) & ~uintptr_t(page - 1);
  const auto end = reinterpret_cast<uintptr_t>(::sbrk(0)) & ~uintptr_t(page - 1);
  if (block != nullptr && end > begin)
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  std::free(block);
}

// One payload, parsed before the pack is loaded so that only the databases it needs are read.
int RunHook(const Options& o, const timespec& start) {
  deadline::Arm(o.host, o.deadline_ms);
  bool too_large = false, failed = false;
  const PayloadBuffer text = ReadAll(STDIN_FILENO, &too_large, &failed);
  if (too_large || failed) {
    return Emit(doberman::guard::RefuseUnreadable(
        o.host, too_large ? "hook payload larger than 64 MiB" : "cannot read the hook payload"));
  }
  Memory memory;
  LoadedPack lp;
  const HookOutcome outcome =
      doberman::guard::DecideHook(o, o.host, text.view(), &lp, &memory, LoadFor);
  const int code = Emit(outcome.answer);
  // The log row after the answer is out (a host that reads the answer as it arrives goes on). It is
  // one short transaction; forking a child for it cost more than the write (the pack's pages make
  // fork slow: measured about 4 ms against 0.2 ms for the write).
  if (outcome.judged) memory.Log(o, lp, outcome.payload, outcome.decision, MicrosSince(start));
  lp.LeaveToExit();
  return code;
}

// The streamable-HTTP MCP proxy links a shared HTTP library, which this static program cannot:
// it is doberman-mcp-http, beside this program (or in ../libexec/doberman), run with the same
// arguments and environment.
int RunHttpProxyProgram(char** argv) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
  for (const std::string& path :
       {dir + "/doberman-mcp-http", dir + "/../libexec/doberman/doberman-mcp-http"}) {
    if (::access(path.c_str(), X_OK) != 0) continue;
    argv[0] = const_cast<char*>(path.c_str());
    ::execv(path.c_str(), argv);
    std::fprintf(stderr, "doberman-guard mcp-proxy: cannot run %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return 125;
  }
  std::fprintf(stderr,
               "doberman-guard mcp-proxy: doberman-mcp-http (the streamable-HTTP proxy) is not "
               "installed beside %s\n",
               dir.c_str());
  return 125;
}

}  // namespace

int main(int argc, char** argv) {
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  // Before anything allocates: the option table is the first thing on the heap.
  if (argc >= 2 && std::strcmp(argv[1], "hook") == 0) TakeHeapInOneGo();
  Options o;
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (!doberman::guard::ParseGuardArgs(argc, argv, &o)) {
    std::fputs(Usage().c_str(), stderr);
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
  if (!o.broker_file.empty() && !o.broker_ok)
    std::fprintf(stderr, "doberman-guard: egress broker: %s (nothing is left to it)\n",
                 o.broker_error.c_str());
  if (o.help) {  // after parsing, so that `CMD OPTIONS --help` also checks OPTIONS
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (o.mode == "version") {
    std::printf("doberman-guard %s; runtime ABI %d\n", doberman_runtime_version(),
                DOBERMAN_ABI_VERSION);
    return 0;
  }
  if (o.mode == "hook") return RunHook(o, start);
  if (o.mode == "completion" || o.mode == "man")
    return doberman::cli::PrintGenerated(doberman::guard::GuardProgram(), o.mode, o.shell);
  if (o.mode == "install" || o.mode == "uninstall" || o.mode == "doctor") {
    doberman::guard::InstallOptions io = o.install;
    io.host = o.host;
    io.pack = o.pack;
    io.pubkeys = o.pubkeys;
    io.state_dir = o.state_dir;
    if (o.mode == "install") return doberman::guard::RunInstall(io);
    if (o.mode == "uninstall") return doberman::guard::RunUninstall(io);
    return doberman::guard::RunDoctor(io);
  }
  if (o.mode == "log") return doberman::guard::RunLog(o.state_dir, o.log);
  if (o.mode == "squid-acl") return doberman::guard::RunSquidAcl(o, o.allow_file);
  if (o.mode == "mcp-proxy" && !o.mcp_upstream.empty()) return RunHttpProxyProgram(argv);
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
