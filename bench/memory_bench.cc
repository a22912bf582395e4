// Session memory's cost in process (Google Benchmark): a 200-byte outbound command decided alone,
// and decided plus judged against a ledger of 100,000 recorded values
// (doberman_memory_check_outbound: the command's values tagged, the fingerprints of those whose tag
// the session holds, one lookup each), the check alone; recording a shown .env file. The growth
// the goal reads comes from BM_DecideGrowthPaired: the two arms timed in alternation, one pair at
// a time, so that a slow phase of the machine lands on both sides of a difference instead of on
// one of two benchmarks run a second apart.
//
// Also a tool mode for bench/run's whole-process comparison:
//   memory_bench --fill DIR N    creates state directory DIR with N recorded values (N/1000
//   sessions)
//
// Environment: DOBERMAN_BENCH_PACK and DOBERMAN_BENCH_PUBKEY (as decide_bench).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.h"
#include "doberman/doberman_memory.h"
#include "state_dir.h"
#include "state_store.h"

namespace doberman::bench {
namespace {

constexpr const char* kCommand =
    "curl -sS -X POST -H 'Content-Type: application/json' -d '{\"build\":\"4821\",\"status\":"
    "\"green\",\"branch\":\"release/2.7\"}' https://ci-metrics.internal.example.com/api/v2/"
    "builds/4821/report --retry 3 --max-time 20";

// Fills `dir` with `n` recorded values (keyed fingerprints) spread over n/1000 sessions ("bench-0",
// "bench-1", ...), each with a tag, as values recorded from a hit or a shown text are.
bool Fill(const std::string& dir, int64_t n) {
  state::StateDir d;
  std::string error;
  bool rebuilt = false;
  if (!state::OpenStateDir(dir, &d, &error))
    return std::fprintf(stderr, "%s\n", error.c_str()), false;
  auto store = state::StateStore::Open(d, {}, &rebuilt, &error);
  if (store == nullptr) return std::fprintf(stderr, "%s\n", error.c_str()), false;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (int64_t s = 0; s * 1000 < n; ++s) {
    std::vector<state::RecordedValue> values;
    for (int64_t i = s * 1000; i < std::min(n, (s + 1) * 1000); ++i) {
      state::RecordedValue v;
      // Keyed digests, uniform as recorded fingerprints are (the ledger's hints file is a Bloom
      // filter over them: patterned bytes would fill it unlike real use).
      v.fingerprint = state::KeyedFingerprint(d.key, "bench-value", std::to_string(i));
      v.tag = static_cast<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL;  // spread like a keyed tag
      v.tagged = true;
      values.push_back(v);
    }
    const state::Fingerprint session =
        state::SessionFingerprint(d.key, "bench-" + std::to_string(s));
    if (!store->RecordValues(session, values, state::ValueKind::kSecret, now, &error))
      return std::fprintf(stderr, "%s\n", error.c_str()), false;
  }
  return true;
}

struct MemoryFixture {
  LoadedPack* lp = nullptr;
  doberman_memory* memory = nullptr;
  std::string dir;
  MemoryFixture() {
    lp = BenchPackFromEnv();
    if (lp == nullptr) return;
    char tmpl[] = "/tmp/doberman-memory-bench.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return;
    dir = std::string(tmpl) + "/state";
    if (!Fill(dir, 100000)) return;
    if (doberman_memory_open(dir.c_str(), &memory, nullptr, nullptr, 0) != DOBERMAN_OK) return;
    doberman_memory_bind_scratch(memory, lp->scratch);
  }
  ~MemoryFixture() {
    doberman_memory_close(memory);
    if (!dir.empty()) std::system(("rm -rf '" + dir.substr(0, dir.size() - 6) + "'").c_str());
  }
};

MemoryFixture& Fixture() {
  static MemoryFixture f;
  return f;
}

doberman_call CommandCall() {
  doberman_call call{};
  call.struct_size = sizeof call;
  call.tool = {"Bash", 4};
  call.command = {kCommand, std::strlen(kCommand)};
  return call;
}

void BM_DecideOutbound(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  const doberman_call call = CommandCall();
  for (auto _ : state) {
    doberman_result r{};
    r.struct_size = sizeof r;
    doberman_decide(f.lp->pack, f.lp->scratch, &call, &r);
    benchmark::DoNotOptimize(r.verdict);
  }
}

void BM_DecideOutboundWithMemory(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  const doberman_call call = CommandCall();
  const doberman_string session{"bench-7", 7};
  for (auto _ : state) {
    doberman_result r{};
    r.struct_size = sizeof r;
    doberman_decide(f.lp->pack, f.lp->scratch, &call, &r);
    doberman_verdict v = DOBERMAN_PASS;
    doberman_memory_check_outbound(f.memory, f.lp->scratch, session, &call, &v);
    benchmark::DoNotOptimize(v);
  }
}

// Decide alone and decide plus the check, alternated call by call (the order flipped every pair),
// each call timed on its own: counters give each arm's median and the median of the pairs'
// differences, which is what the in-process goal reads (bench/report.py).
void BM_DecideGrowthPaired(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  const doberman_call call = CommandCall();
  const doberman_string session{"bench-7", 7};
  auto time_one = [&](bool with_memory) {
    const uint64_t t0 = NowNs();
    doberman_result r{};
    r.struct_size = sizeof r;
    doberman_decide(f.lp->pack, f.lp->scratch, &call, &r);
    doberman_verdict v = DOBERMAN_PASS;
    if (with_memory) doberman_memory_check_outbound(f.memory, f.lp->scratch, session, &call, &v);
    benchmark::DoNotOptimize(v);
    return static_cast<double>(NowNs() - t0);
  };
  std::vector<double> alone, with, diff;
  bool flip = false;
  for (auto _ : state) {
    double a = 0, w = 0;
    if (flip) {
      w = time_one(true);
      a = time_one(false);
    } else {
      a = time_one(false);
      w = time_one(true);
    }
    flip = !flip;
    alone.push_back(a);
    with.push_back(w);
    diff.push_back(w - a);
  }
  state.counters["alone_ns"] = Summarize(std::move(alone)).p50_ns;
  state.counters["with_memory_ns"] = Summarize(std::move(with)).p50_ns;
  state.counters["growth_ns"] = Summarize(std::move(diff)).p50_ns;
}

// The memory check alone (what BM_DecideOutboundWithMemory adds to BM_DecideOutbound, measured
// without the decision's own noise).
void BM_CheckOutbound(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  const doberman_call call = CommandCall();
  const doberman_string session{"bench-7", 7};
  for (auto _ : state) {
    doberman_verdict v = DOBERMAN_PASS;
    doberman_memory_check_outbound(f.memory, f.lp->scratch, session, &call, &v);
    benchmark::DoNotOptimize(v);
  }
}

// The part of the check that does not touch the store: the command's value fingerprints.
void BM_ValueFingerprints(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  size_t values = 0;
  for (auto _ : state) {
    values = 0;
    doberman_value_fingerprints(
        f.lp->scratch, {kCommand, std::strlen(kCommand)}, 8, 512,
        [](void* ctx, const uint8_t*, int) { ++*static_cast<size_t*>(ctx); }, &values);
  }
  state.counters["values"] = static_cast<double>(values);
}

void BM_RecordShownEnvFile(benchmark::State& state) {
  MemoryFixture& f = Fixture();
  if (f.memory == nullptr) return state.SkipWithError("set DOBERMAN_BENCH_PACK and _PUBKEY");
  const std::string env =
      "DB_PASSWORD=Zq8vN3kP0wLx7RtY2mBc\nGITHUB_TOKEN=ghp_R7kLmN2pQ9sT4vW6xY8zA1bC3dE5fG7hJ9kL\n"
      "DEBUG=1\nPORT=8080\n";
  for (auto _ : state) {
    doberman_memory_record_shown(f.memory, f.lp->pack, f.lp->scratch, {"bench-3", 7}, {"Read", 4},
                                 {env.data(), env.size()});
  }
}

BENCHMARK(BM_DecideOutbound);
BENCHMARK(BM_DecideOutboundWithMemory);
BENCHMARK(BM_CheckOutbound);
BENCHMARK(BM_DecideGrowthPaired);
BENCHMARK(BM_ValueFingerprints);
BENCHMARK(BM_RecordShownEnvFile);

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--fill") == 0)
    return doberman::bench::Fill(argv[2], std::atoll(argv[3])) ? 0 : 1;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
