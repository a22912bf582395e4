// Micro benchmarks of the views the decider builds before scanning: shell normalization of commands
// (the pack's own tables), Unicode folding of prompts, the search for encoded runs and their
// decoding, and path canonicalisation. Same environment as decide_bench (DOBERMAN_BENCH_PACK,
// _PUBKEY, _CORPUS).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_support.h"
#include "decider.h"
#include "encoded_runs.h"
#include "unicode_fold.h"
#include "units.h"

namespace doberman::bench {
namespace {

// Field `which` of every call in corpus `name`: "command", "prompt", "content" or "path".
std::vector<std::string> Texts(const std::string& name, const std::string& which) {
  std::vector<Payload> payloads;
  size_t skipped = 0;
  std::string error;
  std::vector<std::string> out;
  if (Env("DOBERMAN_BENCH_CORPUS").empty() ||
      !ReadCorpus(Env("DOBERMAN_BENCH_CORPUS") + "/" + name + ".jsonl", &payloads, &skipped,
                  &error)) {
    return out;
  }
  for (const Payload& p : payloads) {
    for (const guard::CallInput& c : p.calls) {
      if (which == "command" && !c.command.empty()) out.push_back(c.command);
      if (which == "content" && !c.content.empty()) out.push_back(c.content);
      if (which == "path" && !c.path.empty()) out.push_back(c.path);
      if (which == "prompt") {
        for (const auto& s : c.prompt) out.push_back(s.text);
      }
    }
  }
  return out;
}

void BM_ShellNormalize(benchmark::State& state) {
  LoadedPack* lp = BenchPackFromEnv();
  std::vector<std::string> commands = Texts("cmd200", "command");
  if (lp == nullptr || commands.empty()) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK, DOBERMAN_BENCH_PUBKEY and DOBERMAN_BENCH_CORPUS");
    return;
  }
  internal::SegmentList segments;
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    segments.Clear();
    benchmark::DoNotOptimize(lp->internal().shell->Normalize(commands[i], &segments));
    bytes += commands[i].size();
    i = (i + 1) % commands.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_FoldText(benchmark::State& state) {
  std::vector<std::string> prompts = Texts("prompt", "prompt");
  if (prompts.empty()) {
    state.SkipWithError("set DOBERMAN_BENCH_CORPUS");
    return;
  }
  std::string out;
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(internal::FoldText(prompts[i], &out));
    bytes += prompts[i].size();
    i = (i + 1) % prompts.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// The encoded-run search and decoding exactly as doberman_decide runs it on written content: the
// pack's limits (the default pack allows 4,096 runs) and identifier-shaped runs skipped without
// counting (ForEachRunToRescan). With the library's default limits the search stopped at the 64th
// run, so on 1 MiB it timed the first few kilobytes only.
void BM_EncodedRuns(benchmark::State& state, const char* corpus) {
  LoadedPack* lp = BenchPackFromEnv();
  // Written content, or for the command workload the raw command line (command_text).
  std::vector<std::string> texts =
      Texts(corpus, std::string(corpus) == "cmd200" ? "command" : "content");
  if (lp == nullptr || texts.empty()) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK, DOBERMAN_BENCH_PUBKEY and DOBERMAN_BENCH_CORPUS");
    return;
  }
  const internal::DecodeLimits& limits = lp->internal().limits.decode;
  std::string decoded;
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& t = texts[i];
    size_t n = 0;
    internal::ForEachRunToRescan(t, limits, [&](const internal::EncodedRun& run) {
      n += internal::DecodeRun(t, run, limits, &decoded) ? decoded.size() : 0;
    });
    benchmark::DoNotOptimize(n);
    bytes += t.size();
    i = (i + 1) % texts.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_CanonicalPath(benchmark::State& state) {
  std::vector<std::string> paths = Texts("write4k", "path");
  if (paths.empty()) {
    state.SkipWithError("set DOBERMAN_BENCH_CORPUS");
    return;
  }
  std::string out;
  size_t i = 0;
  for (auto _ : state) {
    internal::CanonicalPath(paths[i], "/home/dev/project", &out);
    benchmark::DoNotOptimize(out.size());
    i = (i + 1) % paths.size();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_ShellNormalize);
BENCHMARK(BM_FoldText);
BENCHMARK_CAPTURE(BM_EncodedRuns, cmd200, "cmd200");
BENCHMARK_CAPTURE(BM_EncodedRuns, write4k, "write4k");
BENCHMARK_CAPTURE(BM_EncodedRuns, write1m, "write1m")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CanonicalPath);

}  // namespace
}  // namespace doberman::bench

BENCHMARK_MAIN();
