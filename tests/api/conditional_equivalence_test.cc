// Skipping work must never change a decision: a conditional database (all/none patterns of rules
// whose any patterns did not match the unit, or only other rules' of them), a gated content one
// (rules whose `when:`, settled before the content, is false: content_gates.h), a prompt one
// whose rules read other origins than the unit's, and the middle ends of a validated pattern's
// long run of consecutive match ends (decider.cc, OnMatch). Every payload
// of tests/cases/*.jsonl, benign ones included, is decided twice with the default pack: as the
// runtime does it, and with every such database scanned for every unit. Verdict, status and every
// hit (rule, verdict, field, unit, span) must agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "decider.h"
#include "default_test_pack.h"
#include "hook_payload.h"
#include "json.h"
#include "key_file.h"
#include "pack.h"

namespace doberman::internal {
namespace {

struct Comparison {
  size_t calls = 0, with_hits = 0;
  size_t gates_closed = 0, gates_open = 0;  // calls where some gate was judged closed / open
};

// Decides every case payload with `lazy` and `eager` and compares the answers.
void CompareOnEveryCase(Scratch& lazy, Scratch& eager, Comparison* out) {
  const char* cases = std::getenv("DOBERMAN_CASES_DIR");
  ASSERT_NE(cases, nullptr);
  std::string error;
  for (const auto& entry : std::filesystem::directory_iterator(cases)) {
    if (entry.path().extension() != ".jsonl") continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      JsonValue doc;
      JsonError jerr;
      if (line.empty() || !ParseJson(line, JsonLimits{}, &doc, &jerr)) continue;
      const JsonValue* input = doc.Find("input");
      guard::ParsedPayload payload;
      if (input == nullptr || !guard::ConvertPayload(*input, guard::Host::kAny, &payload, &error))
        continue;
      for (const guard::CallInput& c : payload.calls) {
        std::vector<doberman_string> args;
        std::vector<doberman_prompt_segment> prompt;
        const doberman_call call = c.View(&args, &prompt);
        doberman_result a{}, b{};
        Decide(lazy, call, &a);
        Decide(eager, call, &b);
        ++out->calls;
        for (int8_t state : lazy.gate_state) {
          out->gates_closed += state == 0 ? 1 : 0;
          out->gates_open += state == 1 ? 1 : 0;
        }
        const std::string where = entry.path().filename().string() + ": " + line.substr(0, 160);
        ASSERT_EQ(a.verdict, b.verdict) << where;
        ASSERT_EQ(a.status, b.status) << where;
        ASSERT_EQ(a.hit_count, b.hit_count) << where;
        out->with_hits += a.hit_count > 0 ? 1 : 0;
        for (size_t i = 0; i < a.hit_count; ++i) {
          EXPECT_EQ(a.hits[i].rule, b.hits[i].rule) << where;
          EXPECT_EQ(a.hits[i].verdict, b.hits[i].verdict) << where;
          EXPECT_EQ(a.hits[i].field, b.hits[i].field) << where;
          EXPECT_EQ(a.hits[i].unit, b.hits[i].unit) << where;
          EXPECT_EQ(a.hits[i].start, b.hits[i].start) << where;
          EXPECT_EQ(a.hits[i].end, b.hits[i].end) << where;
        }
      }
    }
  }
  EXPECT_GT(out->calls, 1000u);     // every case file was read
  EXPECT_GT(out->with_hits, 500u);  // and most decisions had something to compare
}

// Decides every case with a scratch as the runtime has it and one `eager` makes scan more.
template <typename MakeEager>
void CompareWithEager(const Pack& pack, MakeEager make_eager, Comparison* seen) {
  Scratch lazy(pack), eager(pack);
  make_eager(eager);
  for (Scratch* s : {&lazy, &eager}) {
    ASSERT_EQ(CloneHsScratch(*s), DOBERMAN_OK);
  }
  CompareOnEveryCase(lazy, eager, seen);
}

TEST(ConditionalDatabases, SkippingThemNeverChangesADecision) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  size_t conditional = 0;
  for (const auto& db : pack->databases) conditional += db->conditional ? 1 : 0;
  ASSERT_GT(conditional, 0u) << "the default pack has no conditional database: nothing is checked";
  // The command scope's conditions are split by rule family (hs_builder.cc), so a unit is scanned
  // with the conditional databases its matched rules name, not all of them: this checks that too.
  EXPECT_GT(conditional, 1u);

  Comparison seen;
  CompareWithEager(
      *pack, [](Scratch& eager) { eager.scan_all_conditions = true; }, &seen);
}

TEST(ContentGates, SkippingGatedDatabasesNeverChangesADecision) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  // The default pack gates agent-instruction signals (tag:agent_instructions) and code rules
  // (tag:source_code, not tag:source_code): a database each.
  ASSERT_GE(pack->gate_count, 2u) << "the default pack has too few gated databases to check";

  Comparison seen;
  CompareWithEager(
      *pack, [](Scratch& eager) { eager.scan_all_gates = true; }, &seen);
  // Both sides of a gate were met: writes the gated rules skipped, and writes they were read in.
  EXPECT_GT(seen.gates_closed, 100u);
  EXPECT_GT(seen.gates_open, 10u);
}

TEST(OriginGroups, SkippingThemNeverChangesADecision) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  // The default pack's untrusted-text rules (pasted and tool output) and its typed-and-pasted
  // secret rules have prompt databases of their own (hs_builder.cc, SplitOrigins).
  size_t limited = 0;
  for (const auto& db : pack->databases) {
    const bool prompt_scope = (db->scopes & ((1u << kScopePrompt) | (1u << kScopePromptText))) != 0;
    limited += prompt_scope && db->origins != kAllOrigins ? 1 : 0;
  }
  ASSERT_GE(limited, 2u) << "no prompt database reads only some origins: nothing is checked";

  Comparison seen;
  CompareWithEager(
      *pack, [](Scratch& eager) { eager.scan_every_origin = true; }, &seen);
}

TEST(ValidationRuns, JudgingOnlyALongRunsLastEndNeverChangesADecision) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  Comparison seen;
  CompareWithEager(
      *pack, [](Scratch& eager) { eager.judge_every_end = true; }, &seen);
}

// Decides `content` written to a notes file with `s`.
doberman_verdict DecideWrite(Scratch& s, std::string_view content) {
  doberman_call call{};
  call.struct_size = sizeof call;
  call.tool = {"Write", 5};
  call.path = {"/home/dev/project/notes.txt", 26};
  call.cwd = {"/home/dev/project", 17};
  call.content = {content.data(), content.size()};
  doberman_result result{};
  Decide(s, call, &result);
  EXPECT_EQ(result.status, DOBERMAN_OK);
  return result.verdict;
}

// A value Hyperscan reports at every byte of a long run of symbols or UTF-8 text was judged again
// at each, 4 KiB at a time: a 1 MiB write took seconds (minutes in Chinese). Past the run's first
// kExactEnds judgements only its last end is judged, so the work is linear in the run, and the
// verdicts of such runs are those of judging every end.
TEST(ValidationRuns, ALongRunIsJudgedAFewTimesNotAtEveryByte) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  Scratch lazy(*pack), eager(*pack);
  eager.judge_every_end = true;
  ASSERT_EQ(CloneHsScratch(lazy), DOBERMAN_OK);
  ASSERT_EQ(CloneHsScratch(eager), DOBERMAN_OK);
  const std::string secret = "Zq7mR2pLw9Xk4vT8nB3cY6";  // no placeholder word, high entropy
  struct Run {
    std::string content;
    bool flagged;  // a secret must be found in it
  };
  std::string cjk;
  for (int i = 0; i < 400; ++i) cjk += "\xe4\xb8\xad\xe6\x96\x87";  // 中文, no space in 2,400 bytes
  const std::vector<Run> runs = {
      {"token=" + std::string(3000, '!'), false},
      {"password: " + cjk, false},
      {"token=" + secret + std::string(3000, '!'), true},
      {"password=" + secret + std::string(3000, '%') + "example", true},
      {"api_key=" + std::string(2000, '!') + secret, false},  // one value, mostly one byte
  };
  for (const Run& run : runs) {
    const std::string_view head = std::string_view(run.content).substr(0, 24);
    const doberman_verdict a = DecideWrite(lazy, run.content);
    const size_t judged_lazy = lazy.values_judged;
    const doberman_verdict b = DecideWrite(eager, run.content);
    EXPECT_EQ(a, b) << head;
    EXPECT_EQ(a != DOBERMAN_PASS, run.flagged) << head;
    // A view of the content judges a run kExactEnds + 1 times (17 here), where judging every end
    // takes thousands.
    EXPECT_LT(judged_lazy, 100u) << head;
    if (!run.flagged) {
      EXPECT_GT(eager.values_judged, 1500u) << head;
    }
  }
}
}  // namespace
}  // namespace doberman::internal
