// doberman-peer-hook: the smallest hook process a peer engine allows, for the cold-start comparison
// with `doberman-guard hook claude-code`. It loads its patterns, reads one hook payload on stdin,
// scans the raw fields (no shell normalization, no decoding: peers have no pack tables, which only
// flatters them), and answers in Claude Code's protocol: nothing on PASS, a permissionDecision
// "ask" when anything matched.
//
//   doberman-peer-hook prepare --pack P --pubkey K --patterns patterns.json DIR
//       writes DIR/hs-<scope>.db (the pack's databases, serialized), DIR/yara-<scope>.yarc
//       (compiled YARA rules) and DIR/patterns.json (for RE2 and PCRE2, which have no compiled form
//       and compile at start)
//   doberman-peer-hook ENGINE DIR < payload.json     ENGINE: hyperscan, re2, pcre2, yara
#include <cstdio>
#include <filesystem>
#include <string>

#include "bench_support.h"
#include "json.h"
#include "peers.h"

namespace doberman::bench {
namespace {

int Prepare(int argc, char** argv) {
  std::string pack_path, pubkey, patterns, dir;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--pack" && i + 1 < argc)
      pack_path = argv[++i];
    else if (a == "--pubkey" && i + 1 < argc)
      pubkey = argv[++i];
    else if (a == "--patterns" && i + 1 < argc)
      patterns = argv[++i];
    else
      dir = a;
  }
  if (pack_path.empty() || pubkey.empty() || patterns.empty() || dir.empty()) return 2;
  std::filesystem::create_directories(dir);
  LoadedPack lp;
  if (!LoadPack(pack_path, pubkey, &lp)) return 1;
  if (!SaveHsDatabases(lp.internal(), dir)) {
    std::fprintf(stderr, "cannot write Hyperscan databases\n");
    return 1;
  }
  PatternSets sets;
  std::string error;
  if (!ReadPatternSets(patterns, &sets, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  EngineStats stats;
  if (!SaveYaraRules(sets, dir, &stats)) {
    std::fprintf(stderr, "cannot write YARA rules\n");
    return 1;
  }
  std::filesystem::copy_file(patterns, dir + "/patterns.json",
                             std::filesystem::copy_options::overwrite_existing);
  return 0;
}

int Hook(const std::string& engine_name, const std::string& dir) {
  std::unique_ptr<Engine> engine;
  if (engine_name == "hyperscan") {
    engine = LoadHsFloorEngine(dir);
  } else if (engine_name == "yara") {
    engine = LoadYaraEngine(dir);
  } else {
    PatternSets sets;
    std::string error;
    if (!ReadPatternSets(dir + "/patterns.json", &sets, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    if (engine_name == "re2") engine = MakeRe2Engine(sets);
    if (engine_name == "pcre2") engine = MakePcre2Engine(sets);
  }
  if (engine == nullptr) return 2;
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
  internal::JsonValue json;
  internal::JsonError err;
  guard::ParsedPayload payload;
  std::string error;
  if (!internal::ParseJson(text, internal::JsonLimits{}, &json, &err) ||
      !guard::ConvertPayload(json, guard::Host::kAny, &payload, &error)) {
    std::fputs("bad payload\n", stderr);
    return 2;
  }
  int matched = 0;
  std::vector<doberman_string> args;
  std::vector<doberman_prompt_segment> prompt;
  std::vector<Unit> units;
  for (const guard::CallInput& c : payload.calls) {
    doberman_call call = c.View(&args, &prompt);
    units.clear();
    BuildRawUnits(call, &units);
    for (const Unit& u : units) matched += std::max(0, engine->Scan(u.scope, u.text));
  }
  if (matched > 0) {
    std::fputs(
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\","
        "\"permissionDecisionReason\":\"matched\"}}\n",
        stdout);
  }
  return 0;
}

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "prepare") return doberman::bench::Prepare(argc, argv);
  if (argc != 3) {
    std::fputs(
        "usage: doberman-peer-hook prepare --pack P --pubkey K --patterns J DIR\n"
        "       doberman-peer-hook hyperscan|re2|pcre2|yara DIR < payload.json\n",
        stderr);
    return 2;
  }
  return doberman::bench::Hook(argv[1], argv[2]);
}
