// The one table of pack limits (DOBERMAN_PACK_LIMITS in pack_model.h) against the schema: every
// default equals the schema's, the list is in the schema's field order (CreateLimits takes them
// positionally), and every name can be set. A limit added to one and not the other fails here.
#include <gtest/gtest.h>

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>

#include "pack_generated.h"
#include "pack_model.h"

namespace doberman::internal {
namespace {

TEST(LimitsTable, DefaultsAreTheSchemas) {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(fb::LimitsBuilder(b).Finish());  // an empty table: every field reads as its default
  const auto* empty = flatbuffers::GetRoot<fb::Limits>(b.GetBufferPointer());
  const PackLimits ours;
#define DOBERMAN_CHECK_DEFAULT(name, type, default_value) \
  EXPECT_EQ(empty->name(), ours.name) << #name;
  DOBERMAN_PACK_LIMITS(DOBERMAN_CHECK_DEFAULT)
#undef DOBERMAN_CHECK_DEFAULT
}

TEST(LimitsTable, OrderIsTheSchemasAndEveryNameSets) {
  // Distinct values through SetPackLimit by name, then CreateLimits in the table's order: each
  // field must read back its own value.
  PackLimits set;
  uint64_t next = 1000;
  for (const char* name : kPackLimitNames) ASSERT_TRUE(SetPackLimit(&set, name, next++)) << name;
  EXPECT_FALSE(SetPackLimit(&set, "max_nothing", 1));
  flatbuffers::FlatBufferBuilder b;
#define DOBERMAN_LIMIT_ARG(name, type, default_value) , set.name
  b.Finish(fb::CreateLimits(b DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_ARG)));
#undef DOBERMAN_LIMIT_ARG
  const auto* l = flatbuffers::GetRoot<fb::Limits>(b.GetBufferPointer());
  uint64_t expected = 1000;
#define DOBERMAN_CHECK_ORDER(name, type, default_value) EXPECT_EQ(l->name(), expected++) << #name;
  DOBERMAN_PACK_LIMITS(DOBERMAN_CHECK_ORDER)
#undef DOBERMAN_CHECK_ORDER
}

TEST(LimitsTable, RuntimeDefaultsComeFromTheTable) {
  const PackLimits p;
  const Limits r;
  EXPECT_EQ(r.max_string_bytes, p.max_string_bytes);
  EXPECT_EQ(r.max_content_bytes, p.max_content_bytes);
  EXPECT_EQ(r.max_prompt_bytes, p.max_prompt_bytes);
  EXPECT_EQ(r.max_units, p.max_units);
  EXPECT_EQ(r.decode.max_runs, p.max_decoded_runs);
  EXPECT_EQ(r.decode.max_run_bytes, p.max_decoded_bytes);
  EXPECT_EQ(r.decode.min_base64, p.min_base64);
  EXPECT_EQ(r.decode.min_hex, p.min_hex);
}

}  // namespace
}  // namespace doberman::internal
