// Two ways the decider skips work must never change a decision. Every payload of
// tests/cases/*.jsonl, benign ones included, is decided twice with the default pack and must agree
// in verdict, status and every hit (rule, verdict, field, unit, span):
// - conditional databases (all/none patterns of rules whose any patterns did not match the unit):
//   skipped as the runtime does it, against scanned for every unit;
// - joined scanning of a command's segments (a framed database, one hs_scan for all of them):
//   joined as the runtime does it, against each segment scanned alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "decider.h"
#include "default_test_pack.h"
#include "hook_payload.h"
#include "json.h"
#include "key_file.h"
#include "pack.h"

namespace doberman::internal {
namespace {

struct Compared {
  size_t calls = 0;
  size_t with_hits = 0;
};

// Decides every case payload with both scratches and expects the same answers.
void ExpectSameDecisions(Scratch& a_scratch, Scratch& b_scratch, Compared* compared) {
  const char* cases = std::getenv("DOBERMAN_CASES_DIR");
  ASSERT_NE(cases, nullptr);
  for (Scratch* s : {&a_scratch, &b_scratch}) {
    ASSERT_EQ(CloneHsScratch(*s), DOBERMAN_OK);
  }
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
        Decide(a_scratch, call, &a);
        Decide(b_scratch, call, &b);
        ++compared->calls;
        const std::string where = entry.path().filename().string() + ": " + line.substr(0, 160);
        ASSERT_EQ(a.verdict, b.verdict) << where;
        ASSERT_EQ(a.status, b.status) << where;
        ASSERT_EQ(a.hit_count, b.hit_count) << where;
        compared->with_hits += a.hit_count > 0 ? 1 : 0;
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
  EXPECT_GT(compared->calls, 1000u);     // every case file was read
  EXPECT_GT(compared->with_hits, 500u);  // and most decisions had something to compare
}

TEST(ConditionalDatabases, SkippingThemNeverChangesADecision) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  size_t conditional = 0;
  for (const auto& db : pack->databases) conditional += db->conditional ? 1 : 0;
  ASSERT_GT(conditional, 0u) << "the default pack has no conditional database: nothing is checked";
  Scratch lazy(*pack), eager(*pack);
  eager.scan_all_conditions = true;
  Compared compared;
  ExpectSameDecisions(lazy, eager, &compared);
}

TEST(FramedDatabases, JoinedSegmentsDecideAsSegmentsScannedAlone) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  bool framed = false;
  for (const PackDatabase* db : pack->scopes[kScopeCommand].dbs) framed = framed || db->framed;
  ASSERT_TRUE(framed) << "the default pack's command database is not framed: nothing is checked";
  Scratch joined(*pack), alone(*pack);
  alone.framed_match_cap = 0;  // the first match of a joined scan sends it unit by unit
  Compared compared;
  ExpectSameDecisions(joined, alone, &compared);
}

// A frame byte inside a segment is scanned as the stand-in: it neither ends the segment nor hides
// what follows it.
TEST(FramedDatabases, FrameBytesInsideASegmentChangeNothing) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  Scratch s(*pack);
  ASSERT_EQ(CloneHsScratch(s), DOBERMAN_OK);
  auto verdict = [&](const std::string& command) {
    doberman_call call{};
    call.tool = {"Bash", 4};
    call.command = {command.data(), command.size()};
    doberman_result r{};
    Decide(s, call, &r);
    return r.verdict;
  };
  for (const char byte : {'\x1e', '\x1f', '\x1a'}) {
    const std::string frame(1, byte);
    EXPECT_EQ(verdict("echo a" + frame + "b; rm -rf /"), DOBERMAN_BLOCK) << int(frame[0]);
    EXPECT_EQ(verdict("rm -rf / ; echo " + frame), DOBERMAN_BLOCK) << int(frame[0]);
    EXPECT_EQ(verdict("rm -rf /" + frame), verdict("rm -rf /\x1a")) << int(frame[0]);
    EXPECT_EQ(verdict("ls " + frame + " && make test"), DOBERMAN_PASS) << int(frame[0]);
  }
}

}  // namespace
}  // namespace doberman::internal
