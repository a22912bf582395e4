// The pack model's tables against the schema and the docs. Limits (DOBERMAN_PACK_LIMITS): every
// default equals the schema's, the list is in the schema's field order (CreateLimits takes them
// positionally), and every name can be set. Scopes (DOBERMAN_SCOPES): each name is the schema's
// enum name in snake case, and docs/rules.md's scope table lists exactly these names, its `any` row
// exactly the raw-text scopes. A limit or scope added to one and not the other fails here.
#include <gtest/gtest.h>

#include <flatbuffers/flatbuffers.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
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

std::string SnakeCase(std::string_view camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      if (!out.empty()) out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

TEST(ScopesTable, NamesAreTheSchemasInSnakeCase) {
  for (int i = 0; i < kScopeCount; ++i) {
    EXPECT_EQ(kScopeNames[i], SnakeCase(fb::EnumNameScope(static_cast<fb::Scope>(i)))) << i;
  }
  EXPECT_EQ(std::set<std::string_view>(std::begin(kScopeNames), std::end(kScopeNames)).size(),
            static_cast<size_t>(kScopeCount));
}

TEST(ScopesTable, RulesDocumentationListsEveryScopeAndAny) {
  std::ifstream in(DOBERMAN_SOURCE_DIR "/docs/rules.md");
  ASSERT_TRUE(in) << "docs/rules.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t table = doc.find("| scope | unit");
  ASSERT_NE(table, std::string::npos);
  std::set<std::string> documented;
  std::string any_row;
  std::istringstream lines(doc.substr(table));
  std::string line;
  const std::regex row(R"(^\| `([a-z_]+)` \| (.*)\|$)");
  std::getline(lines, line);  // header
  std::getline(lines, line);  // rule
  while (std::getline(lines, line) && line.rfind("|", 0) == 0) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, row)) << line;
    if (m[1] == "any") {
      any_row = m[2];
    } else {
      documented.insert(m[1]);
    }
  }
  EXPECT_EQ(documented, std::set<std::string>(std::begin(kScopeNames), std::end(kScopeNames)));
  std::set<std::string> any_documented;
  std::istringstream words(std::regex_replace(any_row, std::regex("`"), ""));
  for (std::string w; words >> w;) any_documented.insert(w);
  std::set<std::string> raw;
  for (int i = 0; i < kScopeCount; ++i) {
    if ((kRawTextScopes >> i) & 1u) raw.insert(std::string(kScopeNames[i]));
  }
  EXPECT_EQ(any_documented, raw);
}

}  // namespace
}  // namespace doberman::internal
