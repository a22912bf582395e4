// Shared by the benchmark tools: loading a signed pack through the public C API, reading hook
// payload corpora (raw payloads or the test-case wrapper {"id","min","max","input"}), converting
// them with the guard's own converter, listing the (scope, text) units the decider scans for a
// call, the exported per-scope pattern sets the peers compile, and latency statistics. Benchmark
// code only: it reaches into runtime internals (pack.h) read-only and never changes runtime
// behaviour.
#ifndef DOBERMAN_BENCH_BENCH_SUPPORT_H_
#define DOBERMAN_BENCH_BENCH_SUPPORT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "doberman/doberman.h"
#include "hook_payload.h"
#include "pack.h"
#include "shell_normalizer.h"

namespace doberman::bench {

inline constexpr int kScopeCount = internal::kScopeCount;
extern const char* const kScopeNames[kScopeCount];
int ScopeIndexOf(std::string_view name);  // -1 when unknown

// Reads a whole file; false when it cannot be read.
bool ReadFile(const std::string& path, std::string* out);
// Writes `text` to `path` (replacing it); false when it cannot be written.
bool WriteFile(const std::string& path, std::string_view text);

// A pack loaded and verified through doberman_pack_load_file, with one scratch.
struct LoadedPack {
  doberman_pack* pack = nullptr;
  doberman_scratch* scratch = nullptr;
  ~LoadedPack();
  const internal::Pack& internal() const { return *pack; }
};
// Loads `pack_path` trusting the public key file `pubkey_path`; prints the reason and returns false
// on failure.
bool LoadPack(const std::string& pack_path, const std::string& pubkey_path, LoadedPack* out);

// An environment variable's value, or "" when unset.
std::string Env(const char* name);

// For the Google Benchmark programs: the pack named by DOBERMAN_BENCH_PACK (trusting
// DOBERMAN_BENCH_PUBKEY), loaded once per process; nullptr when unset or refused.
LoadedPack* BenchPackFromEnv();

// One (scope, text) unit as the decider scans it.
struct Unit {
  int scope;
  std::string text;
  bool decoded = false;
  uint32_t origin_bit = internal::kAllOrigins;  // a prompt segment's origin; every one elsewhere
};

// One hook payload of a corpus: its converted calls (owned) and their views.
struct Payload {
  std::string id;
  size_t payload_bytes = 0;  // the JSON payload's size
  size_t input_bytes = 0;    // bytes of call fields (command, content, prompt, ...)
  std::vector<guard::CallInput> calls;
  std::vector<std::vector<doberman_string>> arg_views;
  std::vector<std::vector<doberman_prompt_segment>> prompt_views;
  std::vector<doberman_call> views;
  std::vector<Unit> units;  // every unit of every call, in the decider's order
  void BuildViews();
};

// Reads a JSON-lines corpus. Each line is a hook payload, or {"input": payload, ...} (the id is
// kept). Lines that are not hook payloads are skipped with a count in `skipped`.
bool ReadCorpus(const std::string& path, std::vector<Payload>* out, size_t* skipped,
                std::string* error);

// Lists the units Doberman scans for `call` with `pack`: the decider's own walk
// (runtime/src/call_units.h, WalkCallUnits), so the peers scan exactly what Doberman scans.
void BuildUnits(const internal::Pack& pack, const doberman_call& call, std::vector<Unit>* out);

// Units without a pack (peer hook processes): raw fields only, no shell normalization, no decoding;
// path canonicalised and prompts folded (those need no tables).
void BuildRawUnits(const doberman_call& call, std::vector<Unit>* out);

// An exported pattern (bench/export_patterns.py writes them from `dobermanc inspect --json`).
struct PatternSpec {
  std::string regex;
  unsigned flags = 0;  // Hyperscan flag bits (CASELESS 1, DOTALL 2, MULTILINE 4, UTF8 32, UCP 64)
  std::string role;    // any, all, none
  std::string rule;
  bool som = false;
};
struct PatternSets {
  std::vector<PatternSpec> scopes[kScopeCount];
  size_t rule_count = 0;
  size_t pattern_count = 0;  // distinct patterns (a pattern in several scopes counts once)
};
bool ReadPatternSets(const std::string& path, PatternSets* out, std::string* error);

// Latency samples in nanoseconds -> summary.
struct Summary {
  size_t samples = 0;
  double total_ns = 0;
  double calls_per_s = 0;
  double mean_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, min_ns = 0, max_ns = 0;
};
Summary Summarize(std::vector<double> samples_ns);

inline uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Resident set size of this process in bytes (VmRSS), 0 when unknown.
size_t CurrentRssBytes();

// JSON helpers for tool output.
std::string JsonString(std::string_view s);
// Bytes as a JSON string in which every byte >= 0x80 is written \u00XX (Latin-1), so that a reader
// can recover the exact bytes: Python's s.encode('latin-1').
std::string JsonBytes(std::string_view s);

}  // namespace doberman::bench

#endif  // DOBERMAN_BENCH_BENCH_SUPPORT_H_
