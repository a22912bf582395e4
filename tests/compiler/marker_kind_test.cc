// Mention-marker kinds in the pack: the kind is written with the bool older runtimes read (true for
// sentence and before markers, false for the negation kinds, so an older runtime is never more
// lenient than it was), and the loader refuses a kind it does not know or one the bool contradicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pack_generated.h"
#include "signed_mini.h"

namespace {

using doberman::test_support::SignedMini;
using Bytes = std::vector<uint8_t>;

// Sets rule `id`'s `marker` field in a copy of the tables (the field is stored: the mini pack's
// markers are not None).
Bytes WithMarker(const Bytes& payload, std::string_view id, uint8_t marker) {
  Bytes tables = payload;
  const auto* rules = doberman::fb::GetPack(tables.data())->rules();
  for (const doberman::fb::Rule* r : *rules) {
    if (r->id()->string_view() != id) continue;
    auto* table = const_cast<flatbuffers::Table*>(reinterpret_cast<const flatbuffers::Table*>(r));
    EXPECT_TRUE(table->SetField<uint8_t>(doberman::fb::Rule::VT_MARKER, marker, 0)) << id;
  }
  return tables;
}

TEST(MarkerKinds, AreWrittenForOldRuntimesAndCheckedOnLoad) {
  SignedMini mini;
  const auto* fp = doberman::fb::GetPack(mini.payload.data());
  size_t seen = 0;
  for (const doberman::fb::Rule* r : *fp->rules()) {
    if (r->id()->string_view() == "test.turn.marker") {
      EXPECT_EQ(r->marker(), doberman::fb::MentionMarker::Before);
      EXPECT_TRUE(r->mention_marker());  // an older runtime reads it as a sentence marker
      ++seen;
    } else if (r->id()->string_view() == "test.turn.negated") {
      EXPECT_EQ(r->marker(), doberman::fb::MentionMarker::Negation);
      EXPECT_FALSE(r->mention_marker());  // and ignores a negation marker
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2u);
  std::string error;
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.marker", 1), &error), DOBERMAN_OK)
      << error;
  // The bool and the kind disagree: a negation marker the bool calls a marker, a before marker
  // the bool calls none.
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.marker", 3), &error),
            DOBERMAN_E_STRUCTURE);
  EXPECT_NE(error.find("disagree"), std::string::npos) << error;
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.negated", 2), &error),
            DOBERMAN_E_STRUCTURE);
  // A negated-phrase marker is hidden from older runtimes like a negation marker.
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.negated", 4), &error), DOBERMAN_OK)
      << error;
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.marker", 4), &error),
            DOBERMAN_E_STRUCTURE);
  EXPECT_EQ(mini.Load(WithMarker(mini.payload, "test.turn.marker", 9), &error),
            DOBERMAN_E_STRUCTURE);
  EXPECT_NE(error.find("unknown mention marker kind"), std::string::npos) << error;
}

}  // namespace
