// The loader's tier-1 clamp, which no pack our compiler writes can reach (the checker refuses a
// tier-1 BLOCK, E3003): a pack built from IR changed after the checker, signed with a trusted key,
// must still never BLOCK on a tier-1 rule. Defense in depth for packs from other writers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checker.h"
#include "doberman/doberman.h"
#include "envelope.h"
#include "hs_builder.h"
#include "payload_writer.h"
#include "signing.h"
#include "source_loader.h"

namespace {

TEST(TierClamp, ATierOneBlockInASignedPackDecidesAuth) {
  using namespace doberman::compiler;
  ASSERT_EQ(chdir(DOBERMAN_SOURCE_DIR), 0);
  SourceMap sources;
  Diagnostics diags(sources);
  PackSources src;
  ASSERT_TRUE(LoadPackSources("tests/data/mini/mini.yaml", sources, diags, &src));
  IrPack ir;
  ASSERT_TRUE(CheckPack(sources, src.manifest, src.files, diags, &ir)) << diags.RenderText();
  bool found = false;
  for (IrRule& r : ir.rules) {
    if (r.id == "test.rm.root") {
      ASSERT_EQ(r.verdict, DOBERMAN_BLOCK);
      r.tier = 1;  // what the checker would have refused
      found = true;
    }
  }
  ASSERT_TRUE(found);
  std::vector<CompiledDatabase> databases;
  ASSERT_TRUE(CompileDatabases(ir, diags, &databases)) << diags.RenderText();
  std::vector<uint8_t> blobs;
  const std::vector<uint8_t> payload = WritePayload(ir, databases, HyperscanVersion(), &blobs);
  SigningKey key;
  EphemeralKey(&key);
  doberman::internal::EnvelopeHeader header;
  header.revision = 1;
  header.hs_version = HyperscanVersion();
  header.platform = "generic";
  const std::vector<uint8_t> bytes = SealPack(header, payload, blobs, key);

  doberman_public_key pub{};
  std::memcpy(pub.bytes, key.public_key.data(), 32);
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &pub;
  options.trusted_key_count = 1;
  doberman_pack* pack = nullptr;
  char error[256] = {0};
  ASSERT_EQ(
      doberman_pack_load_memory(bytes.data(), bytes.size(), &options, &pack, error, sizeof error),
      DOBERMAN_OK)
      << error;
  doberman_scratch* scratch = nullptr;
  ASSERT_EQ(doberman_scratch_create(pack, &scratch), DOBERMAN_OK);
  const std::string cmd = "rm -rf /";
  doberman_call call{};
  call.struct_size = sizeof call;
  call.command = {cmd.data(), cmd.size()};
  doberman_result result{};
  result.struct_size = sizeof result;
  EXPECT_EQ(doberman_decide(pack, scratch, &call, &result), DOBERMAN_OK);
  EXPECT_EQ(result.verdict, DOBERMAN_AUTH);
  ASSERT_GE(result.hit_count, 1u);
  EXPECT_STREQ(doberman_rule_id(pack, result.hits[0].rule), "test.rm.root");
  doberman_scratch_free(scratch);
  doberman_pack_free(pack);
}

}  // namespace
