// The peer engines Doberman is measured against, on the same per-scope pattern sets and the same
// (scope, text) units: RE2::Set, a PCRE2-JIT loop, YARA (patterns translated to YARA regex syntax),
// and the floor, bare Hyperscan hs_scan with a no-op callback over the pack's own databases. Every
// engine answers "how many patterns (rules, for YARA) matched this unit"; none evaluates Doberman's
// rule logic (all/none roles, validators, when-programs), which the Doberman column pays for.
#ifndef DOBERMAN_BENCH_PEERS_H_
#define DOBERMAN_BENCH_PEERS_H_

#include <hs/hs_runtime.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.h"

namespace doberman::bench {

struct EngineStats {
  size_t patterns_total = 0;  // per-scope patterns offered (a pattern in k scopes counts k times)
  size_t patterns_compiled = 0;       // of those, how many the engine accepted
  std::vector<std::string> failures;  // "scope: regex: why", all of them
  double build_ms = 0;                // compile (or load) time of every scope's set
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Number of patterns that matched `text` in `scope` (0 when the scope has none); -1 on an engine
  // error.
  virtual int Scan(int scope, std::string_view text) = 0;
  // The floor's timed callback does nothing; for the agreement check it counts matches instead.
  virtual void SetCounting(bool /*counting*/) {}
  const EngineStats& stats() const { return stats_; }

 protected:
  EngineStats stats_;
};

// Builders. Each returns nullptr (with a message on stderr) when the engine cannot be set up at
// all; patterns the engine rejects are recorded in stats().failures and left out of that engine
// only.
std::unique_ptr<Engine> MakeRe2Engine(const PatternSets& sets);
std::unique_ptr<Engine> MakePcre2Engine(const PatternSets& sets);
std::unique_ptr<Engine> MakeYaraEngine(const PatternSets& sets);
// YARA from rule files compiled earlier (`yara-<scope>.yarc` in `dir`), as a deployed YARA would
// load them.
std::unique_ptr<Engine> LoadYaraEngine(const std::string& dir);
// Writes the compiled YARA rules of `sets` into `dir` for LoadYaraEngine.
bool SaveYaraRules(const PatternSets& sets, const std::string& dir, EngineStats* stats);
// The floor: the pack's own Hyperscan databases (borrowed; the pack must outlive the engine).
std::unique_ptr<Engine> MakeHsFloorEngine(const internal::Pack& pack);
// The floor from serialized databases (`hs-<scope>.db` in `dir`), for a process without the pack.
std::unique_ptr<Engine> LoadHsFloorEngine(const std::string& dir);
bool SaveHsDatabases(const internal::Pack& pack, const std::string& dir);

// Patterns in Hyperscan syntax translated to YARA's regex dialect. Returns false with `why` when
// the pattern uses something YARA lacks (lookaround, backreferences, inline flags mid-pattern,
// possessive quantifiers). \Q..\E, POSIX classes, (?:...), leading inline flags and multiline
// anchors are translated.
bool TranslateToYara(const PatternSpec& p, std::string* yara_string, std::string* why);

}  // namespace doberman::bench

#endif  // DOBERMAN_BENCH_PEERS_H_
