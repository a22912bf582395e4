// doberman-guard: the runtime's command-line face for hooks. `check` answers JSON lines; `hook
// HOST` answers one hook payload the way that host expects. Every failure (no pack, bad signature,
// bad payload) answers deny/block/AUTH with the cause: never allow.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "guard_output.h"
#include "hook_payload.h"
#include "json.h"
#include "key_file.h"
#include "pack.h"
#include "text_normalizer.h"
#include "units.h"

namespace {

using doberman::guard::Decision;
using doberman::guard::HookEvent;
using doberman::guard::ParsedPayload;

constexpr int kExitUsage = 2;
constexpr size_t kMaxPayloadBytes = 64u << 20;

const char kUsage[] =
    "usage: doberman-guard check [--pack P] [--pubkey K]... [--state S]\n"
    "       doberman-guard hook claude-code|codex|cursor [--pack P] [--pubkey K]... [--state S]\n"
    "                           [--turn-auth warn|block]\n"
    "       doberman-guard explain [--pack P] [--pubkey K]...   (rule authors: show the views)\n"
    "       doberman-guard version\n"
    "\n"
    "check   reads JSON lines (hook payloads, optionally with \"id\") on stdin and writes one "
    "JSON\n"
    "        line per input: "
    "{\"id\",\"verdict\",\"status\",\"reasons\",\"rules\",\"messages\",\"hits\"}.\n"
    "hook    reads one payload on stdin and answers in the host's hook protocol.\n"
    "\n"
    "--pack    signed pack (default $DOBERMAN_PACK)\n"
    "--pubkey  trusted public key file, repeatable (default $DOBERMAN_PUBKEY, ':'-separated)\n"
    "--state   rollback state file (default $DOBERMAN_STATE; unset: no rollback check)\n"
    "--turn-auth  what AUTH does to a prompt turn in Claude Code: warn (default) or block\n";

struct Options {
  std::string mode, host, pack, state;
  std::vector<std::string> pubkeys;
  bool turn_auth_blocks = false;
};

struct LoadedPack {
  doberman_pack* pack = nullptr;
  doberman_scratch* scratch = nullptr;
  std::string error;  // why it is not loaded
  std::string status = "DOBERMAN_OK";
  ~LoadedPack() {
    doberman_scratch_free(scratch);
    doberman_pack_free(pack);
  }
};

bool ParseArgs(int argc, char** argv, Options* o) {
  int i = 1;
  if (i >= argc) return false;
  o->mode = argv[i++];
  if (o->mode == "hook") {
    if (i >= argc) return false;
    o->host = argv[i++];
    if (o->host != "claude-code" && o->host != "codex" && o->host != "cursor") return false;
  } else if (o->mode != "check" && o->mode != "version" && o->mode != "explain") {
    return false;
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
      if (!value(&o->pack)) return false;
    } else if (a == "--pubkey") {
      if (!value(&v)) return false;
      o->pubkeys.push_back(v);
    } else if (a == "--state") {
      if (!value(&o->state)) return false;
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
  if (o->state.empty()) {
    if (const char* e = std::getenv("DOBERMAN_STATE")) o->state = e;
  }
  return true;
}

// `fields`: bit per doberman_field the process will decide on (0: all). A hook knows its one
// payload before loading, so it hashes and deserializes only the databases that payload needs.
void Load(const Options& o, LoadedPack* lp, uint32_t fields = 0) {
  if (o.pack.empty()) {
    lp->error = "no pack configured (--pack or DOBERMAN_PACK)";
    lp->status = "DOBERMAN_E_NO_PACK";
    return;
  }
  if (o.pubkeys.empty()) {
    lp->error = "no trusted public key configured (--pubkey or DOBERMAN_PUBKEY)";
    lp->status = "DOBERMAN_E_UNKNOWN_KEY";
    return;
  }
  std::vector<doberman_public_key> keys(o.pubkeys.size());
  for (size_t i = 0; i < o.pubkeys.size(); ++i) {
    if (!doberman::internal::ReadPublicKeyFile(o.pubkeys[i], &keys[i], &lp->error)) {
      lp->status = "DOBERMAN_E_IO";
      return;
    }
  }
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = keys.data();
  options.trusted_key_count = keys.size();
  options.state_path = o.state.empty() ? nullptr : o.state.c_str();
  options.fields = fields;
  char buf[512] = {0};
  doberman_status s = doberman_pack_load_file(o.pack.c_str(), &options, &lp->pack, buf, sizeof buf);
  if (s != DOBERMAN_OK) {
    lp->error = "pack " + o.pack + " refused: " + buf;
    lp->status = doberman_status_name(s);
    return;
  }
  if (doberman_scratch_create(lp->pack, &lp->scratch) != DOBERMAN_OK) {
    lp->error = "cannot allocate scratch";
    lp->status = "DOBERMAN_E_NO_MEMORY";
  }
}

// Parses one payload; on failure returns a Decision raised to `failure_verdict` naming the cause.
bool Parse(std::string_view text, ParsedPayload* payload, Decision* failure) {
  doberman::internal::JsonValue json;
  doberman::internal::JsonError jerr;
  doberman::internal::JsonLimits limits;
  limits.max_bytes = kMaxPayloadBytes;
  if (!doberman::internal::ParseJson(text, limits, &json, &jerr)) {
    failure->Raise(DOBERMAN_AUTH, "error:bad_payload",
                   "payload is not valid JSON (" + jerr.message + " at byte " +
                       std::to_string(jerr.offset) + ")");
    failure->status = "DOBERMAN_E_ARGUMENT";
    return false;
  }
  std::string error;
  if (!doberman::guard::ConvertPayload(json, payload, &error)) {
    failure->Raise(DOBERMAN_AUTH, "error:bad_payload", error);
    failure->status = "DOBERMAN_E_ARGUMENT";
    return false;
  }
  return true;
}

Decision DecideParsed(const LoadedPack& lp, const ParsedPayload& payload) {
  if (lp.scratch == nullptr) {
    Decision d;
    d.verdict = DOBERMAN_PASS;
    d.Raise(DOBERMAN_AUTH, "error:pack_unavailable", lp.error);
    d.status = lp.status;
    return d;
  }
  return doberman::guard::DecidePayload(lp.pack, lp.scratch, payload);
}

Decision DecideText(std::string_view text, const LoadedPack& lp, ParsedPayload* payload) {
  Decision d;
  d.verdict = DOBERMAN_PASS;
  if (!Parse(text, payload, &d)) return d;
  return DecideParsed(lp, *payload);
}

// The fields a payload's calls fill in, as doberman_load_options.fields bits.
uint32_t FieldsOf(const ParsedPayload& payload) {
  uint32_t fields = 0;
  std::vector<doberman_string> args;
  std::vector<doberman_prompt_segment> prompt;
  for (const auto& c : payload.calls)
    fields |= doberman::internal::FieldsOfCall(c.View(&args, &prompt));
  // A payload with no field at all still needs a pack to answer from: load the tool databases.
  return fields != 0 ? fields : 1u << DOBERMAN_FIELD_TOOL;
}

int RunCheck(const LoadedPack& lp) {
  if (lp.scratch == nullptr) std::fprintf(stderr, "doberman-guard: %s\n", lp.error.c_str());
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    std::string_view text(line, static_cast<size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    ParsedPayload payload;
    Decision d = DecideText(text, lp, &payload);
    // A line that failed to parse may still have had an id: echo it when we can find one.
    std::string out = doberman::guard::CheckLine(d, &payload);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  std::free(line);
  return lp.scratch == nullptr ? 3 : 0;
}

std::string ReadAll(FILE* f, bool* too_large) {
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    s.append(buf, n);
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
  const auto& pack = *static_cast<const doberman::internal::Pack*>(lp.pack);
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  std::string out;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    std::string_view text(line, static_cast<size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    if (text.rfind("prompt:", 0) == 0) {
      doberman::internal::FoldText(text.substr(7), &out);
      std::printf("prompt  [%s]\n", out.c_str());
    } else if (text.rfind("path:", 0) == 0) {
      doberman::internal::CanonicalPath(text.substr(5), "", &out);
      std::printf("path    [%s]\n", out.c_str());
    } else {
      doberman::internal::SegmentList segments;
      auto status = pack.shell->Normalize(text, &segments);
      std::printf("command status=%d\n", static_cast<int>(status));
      for (size_t i = 0; i < segments.count; ++i) {
        std::printf("  segment %zu [%s]\n", i + 1, segments.segments[i].c_str());
      }
    }
  }
  std::free(line);
  return 0;
}

// One payload, parsed before the pack is loaded so that only the databases it needs are read.
int RunHook(const Options& o) {
  bool too_large = false;
  std::string text = ReadAll(stdin, &too_large);
  ParsedPayload payload;
  Decision d;
  d.verdict = DOBERMAN_PASS;
  if (too_large) {
    d.Raise(DOBERMAN_BLOCK, "error:payload_too_large", "hook payload larger than 64 MiB");
  } else if (Parse(text, &payload, &d)) {
    LoadedPack lp;
    Load(o, &lp, FieldsOf(payload));
    d = DecideParsed(lp, payload);
  }
  const bool unusable = payload.event == HookEvent::kUnknown;
  if (unusable || d.status != "DOBERMAN_OK") {
    // Fail closed: a payload we cannot read, or a pack we cannot trust, is denied, not asked.
    d.verdict = DOBERMAN_BLOCK;
  }
  if (o.host == "cursor") {
    if (unusable) payload.event = HookEvent::kPreToolUse;
    std::string out = doberman::guard::CursorAnswer(payload.event, d);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return d.verdict == DOBERMAN_BLOCK ? 2 : 0;
  }
  if (unusable) {
    // Without the event we cannot shape a JSON answer; exit 2 blocks both tool calls and turns.
    std::fprintf(stderr, "Doberman BLOCK: %s\n", d.Explanation().c_str());
    return 2;
  }
  std::string out = doberman::guard::ClaudeAnswer(payload.event, d, o.turn_auth_blocks);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!ParseArgs(argc, argv, &o)) {
    std::fputs(kUsage, stderr);
    if (argc >= 3 && std::strcmp(argv[1], "hook") == 0) {
      // A misconfigured hook must still not allow: exit 2 blocks in every host we support.
      std::fputs("Doberman BLOCK: doberman-guard is misconfigured (bad arguments)\n", stderr);
    }
    return kExitUsage;
  }
  if (o.mode == "version") {
    std::printf("doberman-guard 0.1.0 (runtime ABI %d)\n", DOBERMAN_ABI_VERSION);
    return 0;
  }
  if (o.mode == "hook") return RunHook(o);
  LoadedPack lp;
  Load(o, &lp);
  if (o.mode == "check") return RunCheck(lp);
  return RunExplain(lp);
}
