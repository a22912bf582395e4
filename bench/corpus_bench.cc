// doberman-corpus-bench: per-call latency of Doberman and its peers over corpora of hook payloads.
//
// Each corpus is a JSON-lines file of hook payloads (raw, or the test-case wrapper
// {"id","min","max", "input": payload}). Payloads are parsed and converted before timing (the
// guard's own converter), so the Doberman column is doberman_decide only, end to end: unit building
// (shell normalization, folding, decoding), every Hyperscan scan, rule evaluation. The peers scan
// the very (scope, text) units Doberman scans for that call, prepared in advance, with the same
// per-scope pattern sets: they are timed on matching alone. The floor is hs_scan with a no-op
// callback over the pack's own databases and units. With --onepass DIR (databases written by
// `doberman-hs-cost --onepass-out`), "hs-onepass" is the independent floor of issue 17: one scan
// of each raw call field with one single-match database of every trigger pattern the field feeds.
//
// Engines take turns in rounds (interleaved, so that noise from other processes is shared), each
// round giving every engine the same time slice; all samples are kept and summarised
// (p50/p90/p99/p99.9). The cost of reading the clock is measured and subtracted from every sample.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_support.h"
#include "peers.h"

namespace doberman::bench {
namespace {

struct Options {
  std::string pack, pubkey, patterns, json_out, export_units, onepass;
  std::vector<std::pair<std::string, std::string>> corpora;  // name, file
  std::vector<std::string> engines = {"doberman", "hyperscan", "re2", "pcre2", "yara"};
  double seconds = 2.0;  // timed budget per engine and corpus
  int rounds = 5;
  size_t min_samples = 3;
  size_t max_samples = 2000000;
  std::map<std::string, double> seconds_for;  // per-corpus override: --seconds-for NAME=S
  std::map<std::string, std::vector<std::string>> skip;  // --skip NAME=engine,engine
};

const char kUsage[] =
    "usage: doberman-corpus-bench --pack P --pubkey K [--patterns patterns.json]\n"
    "         --corpus NAME=FILE.jsonl... [--engines doberman,hyperscan,re2,pcre2,yara]\n"
    "         [--seconds S] [--seconds-for NAME=S] [--rounds R] [--min-samples N] [--skip "
    "NAME=e1,e2]\n"
    "         [--json OUT.json] [--export-units UNITS.json] [--onepass DIR]\n";

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--pack")
      o->pack = next();
    else if (a == "--pubkey")
      o->pubkey = next();
    else if (a == "--patterns")
      o->patterns = next();
    else if (a == "--json")
      o->json_out = next();
    else if (a == "--export-units")
      o->export_units = next();
    else if (a == "--onepass")
      o->onepass = next();
    else if (a == "--engines")
      o->engines = Split(next(), ',');
    else if (a == "--seconds")
      o->seconds = std::stod(next());
    else if (a == "--rounds")
      o->rounds = std::max(1, std::stoi(next()));
    else if (a == "--min-samples")
      o->min_samples = std::stoul(next());
    else if (a == "--max-samples")
      o->max_samples = std::stoul(next());
    else if (a == "--corpus" || a == "--seconds-for" || a == "--skip") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos) return false;
      std::string name = v.substr(0, eq), value = v.substr(eq + 1);
      if (a == "--corpus")
        o->corpora.emplace_back(name, value);
      else if (a == "--seconds-for")
        o->seconds_for[name] = std::stod(value);
      else
        o->skip[name] = Split(value, ',');
    } else {
      return false;
    }
  }
  if (!o->onepass.empty() &&
      std::find(o->engines.begin(), o->engines.end(), "hs-onepass") == o->engines.end()) {
    o->engines.push_back("hs-onepass");
  }
  return !o->pack.empty() && !o->pubkey.empty() && !o->corpora.empty();
}

struct Corpus {
  std::string name, file;
  std::vector<Payload> payloads;
  size_t skipped = 0;
  size_t units = 0, unit_bytes = 0, input_bytes = 0, calls = 0;
};

// One timed thing: Doberman deciding a payload, or an engine scanning the payload's units.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  // Processes payload `i`; returns a value that keeps the work observable (verdicts, match counts).
  virtual int Run(const Payload& p) = 0;
  // The agreement pass counts matches; timed runs use a callback that does nothing.
  virtual void SetCounting(bool /*counting*/) {}
  const EngineStats* stats = nullptr;
  size_t errors = 0;
};

class DobermanRunner : public Runner {
 public:
  explicit DobermanRunner(const LoadedPack& lp) : lp_(lp) {}
  std::string name() const override { return "doberman"; }
  int Run(const Payload& p) override {
    int v = 0;
    for (const doberman_call& call : p.views) {
      doberman_result result{};
      result.struct_size = sizeof result;
      doberman_status s = doberman_decide(lp_.pack, lp_.scratch, &call, &result);
      if (s != DOBERMAN_OK) ++errors;
      v = std::max(v, static_cast<int>(result.verdict));
    }
    return v;
  }

 private:
  const LoadedPack& lp_;
};

class EngineRunner : public Runner {
 public:
  explicit EngineRunner(std::unique_ptr<Engine> e) : e_(std::move(e)) { stats = &e_->stats(); }
  std::string name() const override { return e_->name(); }
  int Run(const Payload& p) override {
    int matched_units = 0;
    for (const Unit& u : p.units) {
      int n = e_->Scan(u.scope, u.text);
      if (n < 0) ++errors;
      if (n > 0) ++matched_units;
    }
    return matched_units;
  }
  void SetCounting(bool counting) override { e_->SetCounting(counting); }

 private:
  std::unique_ptr<Engine> e_;
};

// The independent floor: each raw field of a call scanned once (no normalization, decoding or
// folding) with a database of every trigger pattern of the scopes that field feeds.
class OnePassRunner : public Runner {
 public:
  ~OnePassRunner() override {
    if (scratch_ != nullptr) hs_free_scratch(scratch_);
    for (hs_database_t* db : dbs_) {
      if (db != nullptr) hs_free_database(db);
    }
  }
  std::string name() const override { return "hs-onepass"; }
  bool Load(const std::string& dir) {
    const char* fields[kFields] = {"tool", "command", "path", "content", "url", "args", "prompt"};
    for (int f = 0; f < kFields; ++f) {
      std::string bytes;
      if (!ReadFile(dir + "/onepass-" + fields[f] + ".db", &bytes))
        continue;  // no pattern serves it
      if (hs_deserialize_database(bytes.data(), bytes.size(), &dbs_[f]) != HS_SUCCESS ||
          hs_alloc_scratch(dbs_[f], &scratch_) != HS_SUCCESS) {
        return false;
      }
    }
    return true;
  }
  void SetCounting(bool counting) override { counting_ = counting; }
  // Fields with at least one match (timed runs: fields scanned).
  int Run(const Payload& p) override {
    int n = 0;
    for (const doberman_call& call : p.views) {
      n += Scan(kTool, call.tool) + Scan(kCommand, call.command) + Scan(kPath, call.path) +
           Scan(kContent, call.content) + Scan(kUrl, call.url);
      for (size_t i = 0; i < call.arg_count; ++i) n += Scan(kArgs, call.args[i]);
      for (size_t i = 0; i < call.prompt_count; ++i) n += Scan(kPrompt, call.prompt[i].text);
    }
    return n;
  }

 private:
  enum { kTool, kCommand, kPath, kContent, kUrl, kArgs, kPrompt, kFields };
  static int NoMatch(unsigned, unsigned long long, unsigned long long, unsigned, void*) {
    return 0;
  }
  static int Count(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
    ++*static_cast<int*>(ctx);
    return 0;
  }
  int Scan(int field, const doberman_string& text) {
    if (dbs_[field] == nullptr || text.size == 0) return 0;
    int matches = 0;
    if (hs_scan(dbs_[field], text.data, static_cast<unsigned>(text.size), 0, scratch_,
                counting_ ? Count : NoMatch, &matches) != HS_SUCCESS) {
      ++errors;
    }
    return counting_ ? (matches > 0 ? 1 : 0) : 1;
  }
  bool counting_ = false;
  hs_database_t* dbs_[kFields] = {};
  hs_scratch_t* scratch_ = nullptr;
};

double ClockOverheadNs() {
  std::vector<double> v;
  for (int i = 0; i < 20001; ++i) {
    uint64_t a = NowNs();
    uint64_t b = NowNs();
    v.push_back(static_cast<double>(b - a));
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string SummaryJson(const Summary& s) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "{\"samples\":%zu,\"calls_per_s\":%.1f,\"mean_ns\":%.1f,\"p50_ns\":%.1f,\"p90_ns\":%.1f,"
      "\"p99_ns\":%.1f,\"p999_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f}",
      s.samples, s.calls_per_s, s.mean_ns, s.p50_ns, s.p90_ns, s.p99_ns, s.p999_ns, s.min_ns,
      s.max_ns);
  return buf;
}

std::string Human(double ns) {
  char buf[64];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  LoadedPack lp;
  if (!LoadPack(o.pack, o.pubkey, &lp)) return 1;
  const internal::Pack& pack = lp.internal();

  std::vector<Corpus> corpora;
  for (const auto& [name, file] : o.corpora) {
    Corpus c;
    c.name = name;
    c.file = file;
    std::string error;
    if (!ReadCorpus(file, &c.payloads, &c.skipped, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    if (c.payloads.empty()) {
      std::fprintf(stderr, "corpus %s has no hook payloads\n", name.c_str());
      return 1;
    }
    for (Payload& p : c.payloads) {
      for (const doberman_call& call : p.views) BuildUnits(pack, call, &p.units);
      c.units += p.units.size();
      for (const Unit& u : p.units) c.unit_bytes += u.text.size();
      c.input_bytes += p.input_bytes;
      c.calls += p.views.size();
    }
    corpora.push_back(std::move(c));
  }

  PatternSets sets;
  bool need_patterns = false;
  for (const std::string& e : o.engines) need_patterns |= e == "re2" || e == "pcre2" || e == "yara";
  if (need_patterns) {
    std::string error;
    if (o.patterns.empty() || !ReadPatternSets(o.patterns, &sets, &error)) {
      std::fprintf(stderr, "peers need --patterns: %s\n", error.c_str());
      return 1;
    }
  }

  std::vector<std::unique_ptr<Runner>> runners;
  for (const std::string& e : o.engines) {
    std::unique_ptr<Engine> engine;
    if (e == "doberman") {
      runners.push_back(std::make_unique<DobermanRunner>(lp));
      continue;
    }
    if (e == "hs-onepass") {
      auto r = std::make_unique<OnePassRunner>();
      if (o.onepass.empty() || !r->Load(o.onepass)) {
        std::fprintf(stderr, "hs-onepass needs --onepass DIR with readable databases\n");
        return 1;
      }
      runners.push_back(std::move(r));
      continue;
    }
    if (e == "hyperscan")
      engine = MakeHsFloorEngine(pack);
    else if (e == "re2")
      engine = MakeRe2Engine(sets);
    else if (e == "pcre2")
      engine = MakePcre2Engine(sets);
    else if (e == "yara")
      engine = MakeYaraEngine(sets);
    else {
      std::fprintf(stderr, "unknown engine %s\n", e.c_str());
      return 2;
    }
    if (engine == nullptr) {
      std::fprintf(stderr, "engine %s unavailable\n", e.c_str());
      return 1;
    }
    const EngineStats& st = engine->stats();
    std::fprintf(stderr, "%-9s built in %.1f ms: %zu/%zu patterns%s\n", e.c_str(), st.build_ms,
                 st.patterns_compiled, st.patterns_total,
                 st.failures.empty() ? "" : " (see failures)");
    auto r = std::make_unique<EngineRunner>(std::move(engine));
    runners.push_back(std::move(r));
  }

  if (!o.export_units.empty()) {
    FILE* f = std::fopen(o.export_units.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", o.export_units.c_str());
      return 1;
    }
    std::fputs("{\"corpora\":{", f);
    for (size_t ci = 0; ci < corpora.size(); ++ci) {
      std::fprintf(f, "%s%s:[", ci ? "," : "", JsonString(corpora[ci].name).c_str());
      for (size_t pi = 0; pi < corpora[ci].payloads.size(); ++pi) {
        const Payload& p = corpora[ci].payloads[pi];
        std::fprintf(f, "%s{\"id\":%s,\"input_bytes\":%zu,\"units\":[", pi ? "," : "",
                     JsonString(p.id).c_str(), p.input_bytes);
        for (size_t ui = 0; ui < p.units.size(); ++ui) {
          std::string t = JsonBytes(p.units[ui].text);
          std::fprintf(f, "%s[\"%s\",", ui ? "," : "", kScopeNames[p.units[ui].scope]);
          std::fwrite(t.data(), 1, t.size(), f);
          std::fputs("]", f);
        }
        std::fputs("]}", f);
      }
      std::fputs("]", f);
    }
    std::fputs("}}\n", f);
    std::fclose(f);
  }

  const double overhead = ClockOverheadNs();
  std::string json = "{\"clock_overhead_ns\":" + std::to_string(overhead) +
                     ",\"pack\":{\"rules\":" + std::to_string(pack.rules.size()) +
                     ",\"patterns\":" + std::to_string(pack.patterns.size()) + "},\"engines\":{";
  for (size_t i = 0; i < runners.size(); ++i) {
    const Runner& r = *runners[i];
    if (i) json += ",";
    json += JsonString(r.name()) + ":";
    if (r.stats == nullptr) {
      json += "{}";
      continue;
    }
    json += "{\"build_ms\":" + std::to_string(r.stats->build_ms) +
            ",\"patterns_total\":" + std::to_string(r.stats->patterns_total) +
            ",\"patterns_compiled\":" + std::to_string(r.stats->patterns_compiled) +
            ",\"failures\":[";
    for (size_t k = 0; k < r.stats->failures.size(); ++k) {
      if (k) json += ",";
      json += JsonString(r.stats->failures[k]);
    }
    json += "]}";
  }
  json += "},\"corpora\":{";

  for (size_t ci = 0; ci < corpora.size(); ++ci) {
    Corpus& c = corpora[ci];
    const double n = static_cast<double>(c.payloads.size());
    std::fprintf(
        stderr,
        "\ncorpus %s: %zu payloads (%zu skipped), %.1f calls, %.1f units, %.0f input bytes "
        "and %.0f unit bytes per payload\n",
        c.name.c_str(), c.payloads.size(), c.skipped, static_cast<double>(c.calls) / n,
        static_cast<double>(c.units) / n, static_cast<double>(c.input_bytes) / n,
        static_cast<double>(c.unit_bytes) / n);
    if (ci) json += ",";
    json += JsonString(c.name) + ":{\"file\":" + JsonString(c.file) +
            ",\"payloads\":" + std::to_string(c.payloads.size()) +
            ",\"skipped\":" + std::to_string(c.skipped) + ",\"calls\":" + std::to_string(c.calls) +
            ",\"units\":" + std::to_string(c.units) +
            ",\"unit_bytes\":" + std::to_string(c.unit_bytes) +
            ",\"input_bytes\":" + std::to_string(c.input_bytes) + ",\"engines\":{";

    std::vector<Runner*> active;
    const auto skip = o.skip.find(c.name);
    for (auto& r : runners) {
      if (skip != o.skip.end() &&
          std::find(skip->second.begin(), skip->second.end(), r->name()) != skip->second.end()) {
        continue;
      }
      active.push_back(r.get());
    }
    // Agreement check (one untimed pass): verdicts for Doberman, units with a match for the others.
    std::map<std::string, std::string> check;
    for (Runner* r : active) {
      const size_t errors_before = r->errors;
      if (r->name() == "doberman") {
        size_t verdicts[3] = {0, 0, 0};
        for (const Payload& p : c.payloads) ++verdicts[std::clamp(r->Run(p), 0, 2)];
        check[r->name()] = "\"verdicts\":{\"PASS\":" + std::to_string(verdicts[0]) +
                           ",\"AUTH\":" + std::to_string(verdicts[1]) +
                           ",\"BLOCK\":" + std::to_string(verdicts[2]) + "}";
      } else {
        r->SetCounting(true);
        size_t matched = 0;
        for (const Payload& p : c.payloads) matched += static_cast<size_t>(r->Run(p));
        r->SetCounting(false);
        check[r->name()] = "\"matched_units\":" + std::to_string(matched);
      }
      r->errors = errors_before;
    }

    // Warm-up: up to one pass or 0.3 s each.
    for (Runner* r : active) {
      const uint64_t start = NowNs();
      for (const Payload& p : c.payloads) {
        r->Run(p);
        if (NowNs() - start > 300'000'000) break;
      }
    }

    const double seconds = o.seconds_for.count(c.name) ? o.seconds_for[c.name] : o.seconds;
    const uint64_t slice_ns = static_cast<uint64_t>(seconds * 1e9 / o.rounds);
    std::vector<std::vector<double>> samples(active.size());
    std::vector<size_t> cursor(active.size(), 0);
    std::vector<uint64_t> wall(active.size(), 0);
    volatile int sink = 0;
    auto one = [&](size_t k) {
      const Payload& p = c.payloads[cursor[k]];
      cursor[k] = (cursor[k] + 1) % c.payloads.size();
      const uint64_t t0 = NowNs();
      sink = sink + active[k]->Run(p);
      const uint64_t t1 = NowNs();
      samples[k].push_back(std::max(0.0, static_cast<double>(t1 - t0) - overhead));
      wall[k] += t1 - t0;
    };
    for (int round = 0; round < o.rounds; ++round) {
      for (size_t j = 0; j < active.size(); ++j) {
        const size_t k = (j + static_cast<size_t>(round)) % active.size();
        const uint64_t start = NowNs();
        do {
          one(k);
        } while (NowNs() - start < slice_ns && samples[k].size() < o.max_samples);
      }
    }
    for (size_t k = 0; k < active.size(); ++k) {
      while (samples[k].size() < o.min_samples) one(k);
    }
    (void)sink;

    for (size_t k = 0; k < active.size(); ++k) {
      Summary s = Summarize(samples[k]);
      std::fprintf(
          stderr,
          "  %-9s p50 %10s  p90 %10s  p99 %10s  p99.9 %10s  %12.0f calls/s  (%zu samples)\n",
          active[k]->name().c_str(), Human(s.p50_ns).c_str(), Human(s.p90_ns).c_str(),
          Human(s.p99_ns).c_str(), Human(s.p999_ns).c_str(), s.calls_per_s, s.samples);
      if (k) json += ",";
      json += JsonString(active[k]->name()) + ":{\"summary\":" + SummaryJson(s) + "," +
              check[active[k]->name()] + ",\"errors\":" + std::to_string(active[k]->errors) + "}";
    }
    json += "}}";
  }
  json += "}}\n";
  if (!o.json_out.empty() && !WriteFile(o.json_out, json)) return 1;
  return 0;
}

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) { return doberman::bench::Main(argc, argv); }
