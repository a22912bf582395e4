// A signed pack built in memory from tests/data/mini with its key kept, so that a test can alter
// the tables and sign them again: what a broken writer (not an attacker, who has no key) could
// produce. Shared by the tests of the loader's structure checks.
#ifndef DOBERMAN_TESTS_COMPILER_SIGNED_MINI_H_
#define DOBERMAN_TESTS_COMPILER_SIGNED_MINI_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "envelope.h"
#include "pack.h"
#include "pack_builder.h"
#include "signing.h"
#include "source_loader.h"

namespace doberman::test_support {

struct SignedMini {
  doberman::compiler::SigningKey key;
  doberman::internal::EnvelopeHeader header;
  std::vector<uint8_t> payload, blobs;

  explicit SignedMini(bool compress = true) {
    using namespace doberman::compiler;
    EXPECT_EQ(chdir(DOBERMAN_SOURCE_DIR), 0);
    SourceMap sources;
    Diagnostics diags(sources);
    EphemeralKey(&key);
    PackSources src;
    BuiltPack built;
    EXPECT_TRUE(LoadPackSources("tests/data/mini/mini.yaml", sources, diags, &src));
    EXPECT_TRUE(BuildPack(sources, &src.manifest, src.files, key, 0, diags, &built, compress))
        << diags.RenderText();
    doberman::internal::EnvelopeParts parts;
    std::string error;
    EXPECT_EQ(doberman::internal::UNVERIFIED_PeekHeader(built.bytes, &header, &parts, &error),
              DOBERMAN_OK);
    payload.assign(parts.payload.begin(), parts.payload.end());
    blobs.assign(parts.blobs.begin(), parts.blobs.end());
  }

  doberman_status Load(const std::vector<uint8_t>& tables, std::string* error) const {
    const std::vector<uint8_t> bytes = doberman::compiler::SealPack(header, tables, blobs, key);
    doberman_public_key pub{};
    std::memcpy(pub.bytes, key.public_key.data(), 32);
    doberman::internal::LoadOptions options;
    options.trusted = {&pub, 1};
    std::unique_ptr<doberman::internal::Pack> pack;
    return doberman::internal::LoadPack(bytes, options, &pack, error);
  }
};

}  // namespace doberman::test_support

#endif  // DOBERMAN_TESTS_COMPILER_SIGNED_MINI_H_
