// Which rules the content gates may skip (runtime/format/content_gates.h): each reason a rule's
// `when:` is not settled before the content is scanned, one case each, over small rule tables.
#include "content_gates.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace doberman::internal {
namespace {

struct TestRule {
  uint32_t scopes = 0;
  doberman_verdict verdict = DOBERMAN_AUTH;
  std::string family = "path";
  std::vector<uint32_t> tags;
  std::vector<WhenInstr> when;
  std::vector<uint32_t> patterns{0};
};

constexpr uint32_t Bit(ScopeIndex s) { return 1u << s; }
std::vector<WhenInstr> Tag(uint32_t t) { return {{WhenOp::kTag, t}}; }
std::vector<WhenInstr> NotTag(uint32_t t) { return {{WhenOp::kTag, t}, {WhenOp::kNot, 0}}; }

// Rule 0 produces tag 0 and is varied by each test; rule 1 is a content rule gated by tag 0.
std::vector<uint8_t> Gated(const TestRule& producer, std::vector<WhenInstr> gate = Tag(0)) {
  TestRule content;
  content.scopes = Bit(kScopeContent);
  content.when = std::move(gate);
  std::vector<TestRule> rules{producer, content};
  rules[0].tags = {0};
  return ReadContentGates(std::span<const TestRule>(rules), 1).gated;
}

TEST(ContentGates, APathOrToolFactGates) {
  TestRule path;
  path.scopes = Bit(kScopePath);
  EXPECT_EQ(Gated(path)[1], 1);
  EXPECT_EQ(Gated(path, NotTag(0))[1], 1);  // a negation of a settled fact is settled too
  TestRule tool;
  tool.scopes = Bit(kScopeTool);
  tool.verdict = DOBERMAN_BLOCK;  // the tool name is never read again: any verdict
  EXPECT_EQ(Gated(tool)[1], 1);
  EXPECT_EQ(Gated(path)[0], 0);  // the producer itself has no `when`, so nothing to gate
}

TEST(ContentGates, AFactAScriptBeingWrittenCanRecordDoesNotGate) {
  TestRule command;
  command.scopes = Bit(kScopeCommand);
  EXPECT_EQ(Gated(command)[1], 1);   // an AUTH command rule: only the command line records it
  command.verdict = DOBERMAN_BLOCK;  // a script's commands record BLOCK verdicts, after content
  EXPECT_EQ(Gated(command)[1], 0);
  command.verdict = DOBERMAN_AUTH;
  command.family = "secret";  // and secret rules
  EXPECT_EQ(Gated(command)[1], 0);
  TestRule text;
  text.scopes = Bit(kScopeCommandText);
  text.verdict = DOBERMAN_BLOCK;
  EXPECT_EQ(Gated(text)[1], 0);
}

TEST(ContentGates, AFactFromContentOrLaterDoesNotGate) {
  for (ScopeIndex late : {kScopeContent, kScopeUrl, kScopeArgs, kScopePrompt, kScopePromptText}) {
    TestRule producer;
    producer.scopes = Bit(kScopePath) | Bit(late);
    EXPECT_EQ(Gated(producer)[1], 0) << kScopeNames[late];
  }
}

TEST(ContentGates, APatternlessProducerDoesNotGate) {
  // Pattern-less `when` rules are judged at the end of the call, some over a script's pipelines.
  TestRule combination;
  combination.patterns.clear();
  combination.when = {{WhenOp::kTrue, 0}};
  EXPECT_EQ(Gated(combination)[1], 0);
}

TEST(ContentGates, SettledFactsChainThroughWhen) {
  // Rule 0 (path) tags 1 unless tag 2 (tool, rule 2) is on; rule 1 (content) needs tag 1.
  std::vector<TestRule> rules(4);
  rules[0].scopes = Bit(kScopePath);
  rules[0].tags = {1};
  rules[0].when = NotTag(2);
  rules[1].scopes = Bit(kScopeContent);
  rules[1].when = Tag(1);
  rules[2].scopes = Bit(kScopeTool);
  rules[2].tags = {2};
  rules[3].scopes = Bit(kScopeContent);  // names rule 0 directly
  rules[3].when = {{WhenOp::kRule, 0}};
  std::vector<uint8_t> gated = ReadContentGates(std::span<const TestRule>(rules), 3).gated;
  EXPECT_EQ(gated[1], 1);
  EXPECT_EQ(gated[3], 1);
  // A tag any unsettled rule also carries is unsettled: here a content rule.
  rules[3].tags = {2};
  gated = ReadContentGates(std::span<const TestRule>(rules), 3).gated;
  EXPECT_EQ(gated[1], 0);
  // A tag or rule index out of range is never taken as settled.
  rules[1].when = Tag(7);
  rules[3].when = {{WhenOp::kRule, 9}};
  gated = ReadContentGates(std::span<const TestRule>(rules), 3).gated;
  EXPECT_EQ(gated[1], 0);
  EXPECT_EQ(gated[3], 0);
}

TEST(ContentGates, OnlyContentRulesWithPatternsAndWhenAreGated) {
  TestRule path;
  path.scopes = Bit(kScopePath);
  std::vector<TestRule> rules{path, path, path};
  rules[0].tags = {0};
  rules[1].scopes = Bit(kScopeUrl);  // a url rule: gates are judged for content only
  rules[1].when = Tag(0);
  rules[2].scopes = Bit(kScopeContent);  // no `when`: always read
  const std::vector<uint8_t> gated = ReadContentGates(std::span<const TestRule>(rules), 1).gated;
  EXPECT_EQ(gated[1], 0);
  EXPECT_EQ(gated[2], 0);
}

}  // namespace
}  // namespace doberman::internal
