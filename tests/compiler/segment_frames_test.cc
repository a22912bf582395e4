// The framed-pattern rewrite (compiler/src/segment_frames.h): its output for each construct, what
// it refuses, and - with Hyperscan - the property the runtime relies on: a framed pattern scanned
// over several framed segments at once reports, for each segment, a match exactly when the original
// pattern matches that segment scanned alone.
#include "segment_frames.h"

#include <gtest/gtest.h>
#include <hs/hs.h>

#include <random>
#include <string>
#include <vector>

#include "segment_frame.h"

namespace doberman::compiler {
namespace {

std::string Framed(std::string_view rx, unsigned int flags = 0) {
  std::string why;
  std::optional<std::string> out = FramePattern(rx, flags, &why);
  return out ? *out : "refused: " + why;
}

bool Refused(std::string_view rx, unsigned int flags = 0) {
  return !FramePattern(rx, flags, nullptr).has_value();
}

TEST(SegmentFrames, AnchorsBecomeFrameBytes) {
  EXPECT_EQ(Framed("^rm -rf /$"), "\\x1erm -rf /(?:\\n?\\x1f)");
  EXPECT_EQ(Framed("\\Agit\\z"), "\\x1egit\\x1f");
  EXPECT_EQ(Framed("x\\Z"), "x(?:\\n?\\x1f)");
  EXPECT_EQ(Framed("(^|;)\\s*curl"), "(\\x1e|;)\\s*curl");
}

TEST(SegmentFrames, WhatCouldMatchAFrameExcludesIt) {
  EXPECT_EQ(Framed("a.b"), "a[^\\n\\x1e\\x1f]b");
  EXPECT_EQ(Framed("a.b", HS_FLAG_DOTALL), "a[^\\x1e\\x1f]b");
  EXPECT_EQ(Framed("\\S+\\W\\D\\H\\V\\N"),
            "[^\\s\\x1e\\x1f]+[^\\w\\x1e\\x1f][^\\d\\x1e\\x1f][^\\h\\x1e\\x1f][^\\v\\x1e\\x1f]"
            "[^\\n\\x1e\\x1f]");
  EXPECT_EQ(Framed("[^ ;|&]+"), "[^\\x1e\\x1f ;|&]+");
  EXPECT_EQ(Framed("[^]a]"), "[^\\x1e\\x1f\\]a]");
  EXPECT_EQ(Framed("[^-a]"), "[^\\x1e\\x1f\\-a]");  // '-' must not join the frames into a range
  // A range across the frame bytes keeps what lies on either side (and the stand-in 0x1a).
  EXPECT_EQ(Framed("[\\x00-\\x7f]"), "[\\x00-\\x1d\\x20-\\x7f]");
  EXPECT_EQ(Framed("[\\x01-\\x1f]"), "[\\x01-\\x1d]");
}

TEST(SegmentFrames, WhatCannotSeeAFrameIsCopied) {
  for (std::string_view rx :
       {"\\bcurl\\b", "[a-z0-9_]+", "(?i)sudo", "(?i:rm)", "\\Q^.$\\E", "\\x41\\t", "[[:alpha:]]",
        "a{2,5}", "(?:ab|cd)?", "[\\s\\w]", "[.]"}) {
    std::optional<std::string> out = FramePattern(rx, 0, nullptr);
    ASSERT_TRUE(out.has_value()) << rx;
    EXPECT_EQ(*out, rx);
  }
  EXPECT_EQ(Framed("a(?#note)b"), "ab");  // a comment is dropped
  EXPECT_EQ(Framed("sin restricción", HS_FLAG_UTF8), "sin restricción");
}

TEST(SegmentFrames, RefusesWhatItCannotKeepExact) {
  EXPECT_TRUE(Refused("^x", HS_FLAG_MULTILINE));
  EXPECT_TRUE(Refused("(?s)a.b"));
  EXPECT_TRUE(Refused("(?m)^x"));
  EXPECT_TRUE(Refused("(?x) a b"));
  EXPECT_TRUE(Refused("\\p{L}"));
  EXPECT_TRUE(Refused("(a)\\1"));
  EXPECT_TRUE(Refused("[[:cntrl:]]"));     // holds the frames, and cannot lose them
  EXPECT_TRUE(Refused("[\\S]"));           // a negated shorthand inside a positive class
  EXPECT_TRUE(Refused("\\x1e"));           // names a frame byte
  EXPECT_TRUE(Refused("\\x1a"));           // names the stand-in
  EXPECT_TRUE(Refused("a\x1f"));           // a frame byte written as itself
  EXPECT_TRUE(Refused("[\\x1b-\\x1e]"));   // holds 0x1e but not the stand-in
  EXPECT_TRUE(Refused("[^\\x00-\\x1b]"));  // matches 0x1e but not the stand-in
  EXPECT_TRUE(Refused("[abc"));
  EXPECT_TRUE(Refused("(?=x)"));
}

// ---- the property, with Hyperscan

hs_database_t* Compile(const std::string& rx, unsigned int flags) {
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile(rx.c_str(), flags, HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
    ADD_FAILURE() << rx << ": " << (err ? err->message : "?");
    hs_free_compile_error(err);
    return nullptr;
  }
  return db;
}

struct Ends {
  std::vector<unsigned long long> ends;
};

int Record(unsigned int, unsigned long long, unsigned long long to, unsigned int, void* ctx) {
  static_cast<Ends*>(ctx)->ends.push_back(to);
  return 0;
}

TEST(SegmentFrames, EachSegmentMatchesInsideItsFrameAsItDoesAlone) {
  const std::vector<std::string> patterns = {"^rm -rf /$", "^git( -[^ ]+)* push",
                                             "curl .*-d",  "\\S+@\\S+",
                                             "^[^ ]+$",    "\\bsudo\\b",
                                             "^\\s*x|y$",  "[^a-z]{3}",
                                             "\\W\\W",     "^.{2,4}$",
                                             "x\\z",       "[\\x00-\\x7f]{5}",
                                             "^(a|b)+\\Z", "\\D\\D$",
                                             "[^ ]{3}x",   "[^\\n]+;",
                                             "^-"};
  const std::string alphabet = std::string("ab -/;xyz@\n\t") + '\x1a' + "0123";
  std::mt19937 rng(17);
  hs_scratch_t* scratch = nullptr;
  for (const std::string& rx : patterns) {
    for (unsigned int flags : {0u, static_cast<unsigned int>(HS_FLAG_DOTALL)}) {
      std::optional<std::string> framed = FramePattern(rx, flags, nullptr);
      ASSERT_TRUE(framed.has_value()) << rx;
      hs_database_t* alone = Compile(rx, flags);
      hs_database_t* joined = Compile(*framed, flags);
      ASSERT_NE(alone, nullptr);
      ASSERT_NE(joined, nullptr);
      ASSERT_EQ(hs_alloc_scratch(alone, &scratch), HS_SUCCESS);
      ASSERT_EQ(hs_alloc_scratch(joined, &scratch), HS_SUCCESS);
      for (int round = 0; round < 300; ++round) {
        std::vector<std::string> segments(1 + rng() % 4);
        for (std::string& seg : segments) {
          const size_t length = 1 + rng() % 12;
          for (size_t k = 0; k < length; ++k) seg.push_back(alphabet[rng() % alphabet.size()]);
        }
        if (round % 3 == 0) segments[0] = "rm -rf /";
        if (round % 5 == 0) segments.back() = "git -C x push";
        std::string buffer;
        std::vector<std::pair<size_t, size_t>> spans;  // text start, length
        for (const std::string& seg : segments) {
          buffer.push_back(internal::kFrameOpen);
          spans.emplace_back(buffer.size(), seg.size());
          buffer += seg;
          buffer.push_back(internal::kFrameClose);
        }
        Ends all;
        ASSERT_EQ(hs_scan(joined, buffer.data(), static_cast<unsigned>(buffer.size()), 0, scratch,
                          Record, &all),
                  HS_SUCCESS);
        for (size_t i = 0; i < segments.size(); ++i) {
          Ends one;
          ASSERT_EQ(hs_scan(alone, segments[i].data(), static_cast<unsigned>(segments[i].size()), 0,
                            scratch, Record, &one),
                    HS_SUCCESS);
          // The joined matches whose last byte lies in this segment's frame, in its offsets.
          std::vector<unsigned long long> in_frame;
          const auto [start, length] = spans[i];
          for (unsigned long long to : all.ends) {
            if (to >= start && to <= start + length + 1)
              in_frame.push_back(std::min<unsigned long long>(to - start, length));
          }
          EXPECT_EQ(in_frame.empty(), one.ends.empty())
              << rx << " on segment '" << segments[i] << "' of " << segments.size();
          // Where the segment ends in a newline, `$` may have taken it: the end then includes it.
          if (!one.ends.empty() && !in_frame.empty() && segments[i].back() != '\n') {
            EXPECT_EQ(in_frame.front(), std::min<unsigned long long>(one.ends.front(), length))
                << rx << " on '" << segments[i] << "'";
          }
        }
      }
      hs_free_database(alone);
      hs_free_database(joined);
    }
  }
  hs_free_scratch(scratch);
}

}  // namespace
}  // namespace doberman::compiler
