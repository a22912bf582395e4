// doberman-units-check: proves that the peers scan what Doberman scans. Linked with
// -Wl,--wrap=hs_scan, it records every hs_scan call doberman_decide makes (database, bytes) and
// compares them, call by call, with the unit list BuildUnits prepares for the peers
// (the decider's own walk, WalkCallUnits: this proves the wiring). It also counts heap allocations
// (operator new, replaced in this program) during warm doberman_decide calls: the hot path promises
// none once the scratch has grown.
//
//   doberman-units-check --pack P --pubkey K --corpus NAME=FILE... [--json OUT]
// Exit status 1 when any payload differs (the mirror must then follow the runtime). With
// DOBERMAN_UNITS_DEBUG set, the first differing payload's expected and actual scans are printed.
// Conditional databases (scanned only after a trigger matched) are left out of the comparison.
#include <hs/hs_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

bool g_count_allocations = false;
size_t g_allocations = 0;

}  // namespace

void* operator new(size_t size) {
  if (g_count_allocations) ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

struct Scan {
  const hs_database_t* db;
  std::string text;
};
std::vector<Scan>* g_record = nullptr;

}  // namespace

extern "C" hs_error_t __real_hs_scan(const hs_database_t* db, const char* data, unsigned int length,
                                     unsigned int flags, hs_scratch_t* scratch,
                                     match_event_handler on_event, void* context);

extern "C" hs_error_t __wrap_hs_scan(const hs_database_t* db, const char* data, unsigned int length,
                                     unsigned int flags, hs_scratch_t* scratch,
                                     match_event_handler on_event, void* context) {
  if (g_record != nullptr) g_record->push_back({db, std::string(data, length)});
  return __real_hs_scan(db, data, length, flags, scratch, on_event, context);
}

namespace doberman::bench {
namespace {

int Main(int argc, char** argv) {
  std::string pack_path, pubkey, json_out;
  std::vector<std::pair<std::string, std::string>> corpora;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--pack")
      pack_path = v;
    else if (a == "--pubkey")
      pubkey = v;
    else if (a == "--json")
      json_out = v;
    else if (a == "--corpus" && v.find('=') != std::string::npos) {
      corpora.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
    }
  }
  if (pack_path.empty() || pubkey.empty() || corpora.empty()) {
    std::fputs(
        "usage: doberman-units-check --pack P --pubkey K --corpus NAME=FILE... [--json OUT]\n",
        stderr);
    return 2;
  }
  LoadedPack lp;
  if (!LoadPack(pack_path, pubkey, &lp)) return 1;
  const internal::Pack& pack = lp.internal();
  size_t payloads = 0, units = 0, mismatches = 0, warm_calls = 0, allocating_calls = 0,
         allocations = 0;
  std::string first_mismatch;
  std::vector<std::vector<Payload>> all;
  for (const auto& [name, file] : corpora) {
    all.emplace_back();
    std::vector<Payload>& ps = all.back();
    size_t skipped = 0;
    std::string error;
    if (!ReadCorpus(file, &ps, &skipped, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    for (const Payload& p : ps) {
      std::vector<Unit> expected;
      std::vector<Scan> seen;
      for (const doberman_call& call : p.views) {
        BuildUnits(pack, call, &expected);
        g_record = &seen;
        doberman_result result{};
        result.struct_size = sizeof result;
        doberman_decide(lp.pack, lp.scratch, &call, &result);
        g_record = nullptr;
      }
      ++payloads;
      units += expected.size();
      // Each unit is one hs_scan per database serving its scope, in the scope's order.
      std::vector<std::pair<const hs_database_t*, const std::string*>> want;
      for (const Unit& u : expected) {
        for (const internal::PackDatabase* d : pack.scopes[u.scope].dbs) {
          if (d->gate_rules.empty() && (d->origins & u.origin_bit) != 0)
            want.emplace_back(d->db, &u.text);
        }
      }
      // Conditional databases are scanned only when a trigger matched, and gated ones only when
      // their gate is open (content_gates.h): not part of the units.
      std::erase_if(seen, [&](const Scan& sc) {
        for (const auto& d : pack.databases) {
          if (d->db == sc.db) return d->conditional || !d->gate_rules.empty();
        }
        return false;
      });
      bool same = want.size() == seen.size();
      for (size_t i = 0; same && i < want.size(); ++i) {
        same = seen[i].db == want[i].first && seen[i].text == *want[i].second;
      }
      if (!same) {
        ++mismatches;
        if (first_mismatch.empty() && std::getenv("DOBERMAN_UNITS_DEBUG") != nullptr) {
          for (const auto& w : want)
            std::fprintf(stderr, "want %p %s\n", static_cast<const void*>(w.first),
                         w.second->c_str());
          for (const auto& w : seen)
            std::fprintf(stderr, "seen %p %s\n", static_cast<const void*>(w.db), w.text.c_str());
        }
        if (first_mismatch.empty()) {
          first_mismatch = name + " " + p.id + ": Doberman made " + std::to_string(seen.size()) +
                           " scans, the peers' units need " + std::to_string(want.size());
        }
      }
    }
  }
  // Steady state: after the pass above the scratch has grown for every input; a second pass over
  // every payload must not allocate.
  for (const std::vector<Payload>& ps : all) {
    for (const Payload& p : ps) {
      for (const doberman_call& call : p.views) {
        doberman_result result{};
        result.struct_size = sizeof result;
        g_allocations = 0;
        g_count_allocations = true;
        doberman_decide(lp.pack, lp.scratch, &call, &result);
        g_count_allocations = false;
        ++warm_calls;
        allocations += g_allocations;
        if (g_allocations > 0) ++allocating_calls;
        if (g_allocations > 0 && std::getenv("DOBERMAN_UNITS_DEBUG") != nullptr)
          std::fprintf(stderr, "allocated %zu times in a warm call: %s\n", g_allocations,
                       p.id.c_str());
      }
    }
  }
  std::fprintf(stderr, "units check: %zu payloads, %zu units, %zu mismatches%s%s\n", payloads,
               units, mismatches,
               first_mismatch.empty() ? "" : "; first: ", first_mismatch.c_str());
  std::fprintf(stderr, "allocations in warm doberman_decide calls: %zu in %zu of %zu calls\n",
               allocations, allocating_calls, warm_calls);
  if (!json_out.empty()) {
    FILE* f = std::fopen(json_out.c_str(), "w");
    if (f == nullptr) return 1;
    std::fprintf(f,
                 "{\"payloads\":%zu,\"units\":%zu,\"mismatches\":%zu,\"first_mismatch\":%s,\"warm_"
                 "calls\":%zu,"
                 "\"allocating_calls\":%zu,\"allocations\":%zu}\n",
                 payloads, units, mismatches, JsonString(first_mismatch).c_str(), warm_calls,
                 allocating_calls, allocations);
    std::fclose(f);
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) { return doberman::bench::Main(argc, argv); }
