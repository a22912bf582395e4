// Micro benchmarks of the runtime's public entry points on a real pack and corpus: doberman_decide
// per workload, the bare Hyperscan floor over the same units, pack load (file and memory), scratch
// creation, and the hook's payload parsing (not part of "decide", shown for the whole-process
// budget).
//
// Environment: DOBERMAN_BENCH_PACK (signed pack), DOBERMAN_BENCH_PUBKEY (its public key file) and
// DOBERMAN_BENCH_CORPUS (a folder with cmd200.jsonl, prompt.jsonl, write4k.jsonl, write1m.jsonl, as
// bench/make_corpus.py writes them). Benchmarks whose inputs are missing report an error and skip.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "bench_support.h"
#include "json.h"
#include "key_file.h"
#include "peers.h"

namespace doberman::bench {
namespace {

const std::vector<Payload>* Corpus(const std::string& name) {
  static std::map<std::string, std::unique_ptr<std::vector<Payload>>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second.get();
  auto v = std::make_unique<std::vector<Payload>>();
  size_t skipped = 0;
  std::string error;
  if (Env("DOBERMAN_BENCH_CORPUS").empty() ||
      !ReadCorpus(Env("DOBERMAN_BENCH_CORPUS") + "/" + name + ".jsonl", v.get(), &skipped,
                  &error) ||
      v->empty()) {
    v.reset();
  } else if (BenchPackFromEnv() != nullptr) {
    for (Payload& p : *v) {
      for (const doberman_call& call : p.views)
        BuildUnits(BenchPackFromEnv()->internal(), call, &p.units);
    }
  }
  return (cache[name] = std::move(v)).get();
}

void BM_Decide(benchmark::State& state, const char* corpus) {
  LoadedPack* lp = BenchPackFromEnv();
  const std::vector<Payload>* c = Corpus(corpus);
  if (lp == nullptr || c == nullptr) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK, DOBERMAN_BENCH_PUBKEY and DOBERMAN_BENCH_CORPUS");
    return;
  }
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const Payload& p = (*c)[i];
    i = (i + 1) % c->size();
    for (const doberman_call& call : p.views) {
      doberman_result result{};
      result.struct_size = sizeof result;
      doberman_decide(lp->pack, lp->scratch, &call, &result);
      benchmark::DoNotOptimize(result.verdict);
    }
    bytes += p.input_bytes;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_HyperscanFloor(benchmark::State& state, const char* corpus) {
  LoadedPack* lp = BenchPackFromEnv();
  const std::vector<Payload>* c = Corpus(corpus);
  if (lp == nullptr || c == nullptr) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK, DOBERMAN_BENCH_PUBKEY and DOBERMAN_BENCH_CORPUS");
    return;
  }
  static std::unique_ptr<Engine> floor = MakeHsFloorEngine(lp->internal());
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const Payload& p = (*c)[i];
    i = (i + 1) % c->size();
    for (const Unit& u : p.units) benchmark::DoNotOptimize(floor->Scan(u.scope, u.text));
    bytes += p.input_bytes;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_ParsePayload(benchmark::State& state, const char* corpus) {
  std::string text;
  if (Env("DOBERMAN_BENCH_CORPUS").empty() ||
      !ReadFile(Env("DOBERMAN_BENCH_CORPUS") + "/" + corpus + ".jsonl", &text)) {
    state.SkipWithError("set DOBERMAN_BENCH_CORPUS");
    return;
  }
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& line = lines[i];
    i = (i + 1) % lines.size();
    internal::JsonValue json;
    internal::JsonError err;
    internal::ParseJson(line, internal::JsonLimits{}, &json, &err);
    guard::ParsedPayload payload;
    std::string error;
    guard::ConvertPayload(json, guard::Host::kAny, &payload, &error);
    benchmark::DoNotOptimize(payload.calls.size());
    bytes += line.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_PackLoad(benchmark::State& state, bool from_file) {
  const std::string path = Env("DOBERMAN_BENCH_PACK");
  doberman_public_key key;
  std::string error, bytes;
  if (path.empty() || !internal::ReadPublicKeyFile(Env("DOBERMAN_BENCH_PUBKEY"), &key, &error) ||
      !ReadFile(path, &bytes)) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK and DOBERMAN_BENCH_PUBKEY");
    return;
  }
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &key;
  options.trusted_key_count = 1;
  for (auto _ : state) {
    doberman_pack* p = nullptr;
    doberman_status s =
        from_file ? doberman_pack_load_file(path.c_str(), &options, &p, nullptr, 0)
                  : doberman_pack_load_memory(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              bytes.size(), &options, &p, nullptr, 0);
    if (s != DOBERMAN_OK) {
      state.SkipWithError("load failed");
      break;
    }
    doberman_pack_free(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}

void BM_ScratchCreate(benchmark::State& state) {
  LoadedPack* lp = BenchPackFromEnv();
  if (lp == nullptr) {
    state.SkipWithError("set DOBERMAN_BENCH_PACK and DOBERMAN_BENCH_PUBKEY");
    return;
  }
  for (auto _ : state) {
    doberman_scratch* s = nullptr;
    doberman_scratch_create(lp->pack, &s);
    doberman_scratch_free(s);
  }
}

BENCHMARK_CAPTURE(BM_Decide, cmd200, "cmd200");
BENCHMARK_CAPTURE(BM_Decide, prompt, "prompt");
BENCHMARK_CAPTURE(BM_Decide, write4k, "write4k");
BENCHMARK_CAPTURE(BM_Decide, write1m, "write1m")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HyperscanFloor, cmd200, "cmd200");
BENCHMARK_CAPTURE(BM_HyperscanFloor, prompt, "prompt");
BENCHMARK_CAPTURE(BM_HyperscanFloor, write4k, "write4k");
BENCHMARK_CAPTURE(BM_HyperscanFloor, write1m, "write1m")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ParsePayload, cmd200, "cmd200");
BENCHMARK_CAPTURE(BM_ParsePayload, write4k, "write4k");
BENCHMARK_CAPTURE(BM_ParsePayload, write1m, "write1m")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PackLoad, file, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PackLoad, memory, false)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScratchCreate)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace doberman::bench

BENCHMARK_MAIN();
