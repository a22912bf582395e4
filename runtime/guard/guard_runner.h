// What doberman-guard does with one payload, shared by the one-shot modes (hook, check) and the
// service (serve): options, loading a pack, session memory for one process or worker, parsing and
// deciding. guard_main.cc is the command line; guard_service.cc the socket.
#ifndef DOBERMAN_GUARD_GUARD_RUNNER_H_
#define DOBERMAN_GUARD_GUARD_RUNNER_H_

#include <time.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker_history.h"
#include "doberman/doberman.h"
#include "egress_broker.h"
#include "guard_output.h"
#include "hook_payload.h"
#include "host_answer.h"
#include "install_command.h"
#include "log_command.h"
#include "session_memory.h"

namespace doberman::guard {

struct Options {
  std::string mode, host_name, pack, state, state_dir;
  // --image-cache DIR; for check and hook, ResolveImageCache's answer (empty: none).
  std::string image_cache;
  // Further packs (--pack repeated): an organisation pack and a team pack, say, each verified with
  // the trusted keys and combined raise-only (the verdict is the maximum over every pack).
  std::vector<std::string> more_packs;
  LogOptions log;
  Host host = Host::kAny;
  std::vector<std::string> pubkeys;
  bool turn_auth_blocks = false;
  bool turn_gate = true;  // DOBERMAN_TURN_GATE=off: prompt turns pass unjudged (only recorded)
  long deadline_ms = 5000;
  // serve
  std::string socket;  // --socket (default: $DOBERMAN_SOCKET, then under $XDG_RUNTIME_DIR)
  int workers = 4;
  long request_timeout_ms = 2000;
  // mcp-proxy
  std::string mcp_name;                  // --name: N in mcp__N__TOOL
  std::vector<std::string> server_argv;  // after `--`: the stdio MCP server to run
  std::string mcp_upstream;              // --upstream: a streamable-HTTP server's endpoint
  std::string mcp_listen;                // --listen HOST:PORT, with --upstream
  // squid-acl
  std::string allow_file;  // --allow: the egress allowlist (default-deny)
  // install, uninstall, doctor (host, pack, keys and state directory come from the fields above)
  InstallOptions install;
  std::string shell;  // completion
  // --broker FILE (or $DOBERMAN_BROKER): the egress broker, read once before judging; when it
  // cannot be read nothing is left to it (broker_error says why).
  std::string broker_file;
  BrokerConfig broker;
  bool broker_ok = false;
  std::string broker_error;
  bool help = false;  // --help after the command: print the usage once the rest has parsed
};

struct LoadedPack {
  doberman_pack* pack = nullptr;
  doberman_scratch* scratch = nullptr;
  std::string error;  // why it is not loaded
  std::string status = "DOBERMAN_OK";
  bool owns_pack = true;  // false for a service worker's view of the shared pack
  std::vector<std::unique_ptr<LoadedPack>> more;  // Options::more_packs, in order
  LoadedPack() = default;
  LoadedPack(const LoadedPack&) = delete;
  LoadedPack& operator=(const LoadedPack&) = delete;
  ~LoadedPack() {
    doberman_scratch_free(scratch);
    if (owns_pack) doberman_pack_free(pack);
  }
  // For a process about to exit: the packs are not freed (the kernel takes their mappings back in
  // one go at exit; unmapping them one by one first was a measurable part of a hook's time).
  void LeaveToExit() {
    owns_pack = false;
    for (auto& p : more) p->LeaveToExit();
  }
};

// "name version rREVISION" of the pack itself (not of the packs in `more`); "none" when not loaded.
std::string PackName(const LoadedPack& lp);

// Loads the pack `o` names. `fields`: bit per doberman_field the process will decide on (0: all).
// A hook knows its one payload before loading, so it hashes and deserializes only the databases
// that payload needs. On failure `lp->error` and `lp->status` say why (the decision then fails
// closed).
void Load(const Options& o, LoadedPack* lp, uint32_t fields = 0);

// Session memory for one process: opened before the pack (the rollback record lives in its
// directory), keyed into the scratch after it.
struct Memory {
  SessionMemory memory;
  bool open = false;
  std::string error;  // why it is not open (then every decision is raised to AUTH)
  bool rebuilt = false;

  // `lazy`: a one-shot process, which may leave the store closed (SessionMemory::Open); not with
  // the egress broker, whose history lives in the store.
  void Open(const Options& o, bool lazy = false) {
    if (o.state_dir.empty()) return;
    open = memory.Open(o.state_dir, &rebuilt, &error, lazy && !o.broker_ok);
  }
  bool Wanted(const Options& o) const { return !o.state_dir.empty(); }
  // For long-lived processes (the service's workers, squid-acl): a store that could not be opened
  // (busy, or being rebuilt by another process) is tried again, so that one bad moment does not
  // raise every later answer. True when it opened now (the caller then keys its scratch).
  bool OpenAgain(const Options& o) {
    if (!Wanted(o) || open) return false;
    Open(o);
    return open;
  }
  void Key(LoadedPack* lp) {
    if (open && lp->scratch != nullptr)
      doberman_scratch_set_fingerprint_key(lp->scratch, memory.key());
    for (auto& more : lp->more) Key(more.get());
  }
  // Raise-only: judges the decided payload against the session's record and records what it shows.
  // Wanted but not open: raises `d` to AUTH with the reason and returns true (the caller then
  // skips the session's record, which it cannot read).
  bool RaiseIfUnavailable(const Options& o, Decision* d) const {
    if (!Wanted(o) || open) return false;
    d->Raise(DOBERMAN_AUTH, "error:state_unavailable",
             "session memory is unavailable (" + error + "); a person must look at this call");
    return true;
  }
  void Apply(const Options& o, const LoadedPack& lp, const ParsedPayload& payload, Decision* d) {
    if (!Wanted(o) || RaiseIfUnavailable(o, d)) return;
    if (rebuilt) {
      // Once: a long-lived process (the service's workers, squid-acl) would otherwise ask about
      // every call until it restarts.
      rebuilt = false;
      d->Raise(DOBERMAN_AUTH, "state_rebuilt",
               "the session store was corrupt and has been rebuilt; what it recorded is lost");
    }
    // The secrets every further pack finds in shown text are recorded with the first pack's.
    for (const auto& more : lp.more) {
      if (more->scratch != nullptr) memory.AddShownSecrets(payload, more->pack, more->scratch, d);
    }
    if (lp.scratch != nullptr) memory.Apply(payload, lp.pack, lp.scratch, d, o.turn_gate);
    // What the egress broker saw since the previous decision (raise-only).
    if (o.broker_ok) ApplyBrokerHistory(memory, payload, d);
  }
  // PackName of each pack, joined with " + ".
  static std::string PackLabel(const LoadedPack& lp) {
    std::string label = PackName(lp);
    for (const auto& more : lp.more) label += " + " + PackLabel(*more);
    return label;
  }
  // `host_name`: the host the payload came from (empty: the one-shot mode's own).
  void Log(const Options& o, const LoadedPack& lp, const ParsedPayload& payload, const Decision& d,
           int64_t latency_us, const std::string& host_name = "") {
    if (!open) return;
    const std::string label = PackLabel(lp);
    std::string log_error;
    const std::string host = !host_name.empty() ? host_name
                             : o.mode == "hook" ? o.host_name
                                                : "check";
    if (!memory.Log(host, payload, d, label, latency_us, &log_error))
      std::fprintf(stderr, "doberman-guard: decision log: %s\n", log_error.c_str());
  }
};

// DOBERMAN_TURN_GATE=off: the turn gate is absent (the action path carries everything); a prompt
// turn is answered PASS without being judged, and session memory only records what it shows.
bool TurnGateOff(const Options& o, const ParsedPayload& payload);

int64_t MicrosSince(const timespec& start);

Decision DecideParsed(const LoadedPack& lp, const ParsedPayload& payload);
Decision DecideText(std::string_view text, const LoadedPack& lp, ParsedPayload* payload);

// The fields a payload's calls fill in, as doberman_load_options.fields bits.
uint32_t FieldsOf(const ParsedPayload& payload);

// One hook payload, judged as `host` would have it: parsed, decided (every pack, raise-only), held
// against session memory, answered. `lp` is loaded by the caller (`load_for` is called with the
// parsed payload first when not null: the one-shot hook loads only what it needs).
struct HookOutcome {
  ParsedPayload payload;
  Decision decision;
  HookAnswer answer;
  bool judged = false;  // the payload parsed and carried something to judge (then log it)
};
HookOutcome DecideHook(const Options& o, Host host, std::string_view text, LoadedPack* lp,
                       Memory* memory,
                       void (*load_for)(const Options&, const ParsedPayload&, LoadedPack*,
                                        Memory*));

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_GUARD_RUNNER_H_
