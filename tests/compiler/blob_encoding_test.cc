// Databases stored as LZ4 blocks: the runtime's decoder on hand-made blocks (each refusal it owes),
// the compiler's encoder and the decoder against each other (round trips over data shaped like
// Hyperscan databases and data that defeats compression), and a signed pack whose tables lie about
// a database's decoded size, which must be refused and never handed to Hyperscan.
#include <gtest/gtest.h>
#include <hs/hs.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "envelope.h"
#include "lz4_block.h"
#include "lz4_block_encoder.h"
#include "pack_generated.h"
#include "signed_mini.h"

namespace {

using doberman::compiler::EncodeLz4Block;
using doberman::internal::DecodeLz4Block;
using doberman::test_support::SignedMini;
using Bytes = std::vector<uint8_t>;

Bytes B(std::initializer_list<int> v) {
  Bytes out;
  for (int x : v) out.push_back(static_cast<uint8_t>(x));
  return out;
}

// Decodes into a buffer with guard bytes after the declared size: a decoder that writes past the
// end of its output (even in bytes it would later overwrite) fails the test, not only under ASan.
bool Decode(const Bytes& block, size_t size, Bytes* out) {
  constexpr size_t kGuard = 64;
  Bytes buffer(size + kGuard, 0xA5);
  const bool ok = DecodeLz4Block(block, {buffer.data(), size});
  for (size_t i = size; i < buffer.size(); ++i) {
    EXPECT_EQ(buffer[i], 0xA5) << "decoder wrote " << (i - size) << " bytes past its output";
  }
  buffer.resize(size);
  *out = std::move(buffer);
  return ok;
}

TEST(Lz4Decode, LiteralsOnly) {
  Bytes out;
  ASSERT_TRUE(Decode(B({0x50, 'h', 'e', 'l', 'l', 'o'}), 5, &out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello");
  ASSERT_TRUE(Decode(B({0x00}), 0, &out));  // the empty block
}

TEST(Lz4Decode, OverlappingMatchRepeatsItsSource) {
  // 'a', then a match of 4 + 5 bytes at offset 1, then the five closing literals the format asks
  // for.
  Bytes out;
  ASSERT_TRUE(Decode(B({0x15, 'a', 0x01, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z'}), 15, &out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "aaaaaaaaaavwxyz");
  // "abc" repeated with period 3: a match of 4 + 15 + 2 bytes at offset 3.
  ASSERT_TRUE(
      Decode(B({0x3F, 'a', 'b', 'c', 0x03, 0x00, 0x02, 0x50, 'v', 'w', 'x', 'y', 'z'}), 29, &out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcabcabcabcabcabcabcabcvwxyz");
}

TEST(Lz4Decode, MatchInTheLastBytesIsRefusedAndWritesNothingPastTheOutput) {
  // 16 literals, then 4 + 15 + 1 = 20 bytes at offset 16 that end exactly at the end of the output.
  // The format ends every block with at least five literals and starts no match in its last 12
  // bytes (encoders keep to it; liblz4's safe decoder enforces it): refused, and the copy never
  // ran past the output (the guard bytes after it are checked).
  Bytes block = {0xFF, 0x01};
  const std::string head = "abcdefghijklmnop";
  block.insert(block.end(), head.begin(), head.end());
  block.insert(block.end(), {0x10, 0x00, 0x01, 0x00});
  Bytes out;
  EXPECT_FALSE(Decode(block, 36, &out));
  EXPECT_FALSE(Decode(B({0x15, 'a', 0x01, 0x00, 0x00}), 10, &out)) << "match up to the very end";
}

TEST(Lz4Decode, LiteralsFillingTheOutputWriteNothingPastIt) {
  // Literals that exactly fill the output, then more input (a match that cannot fit): refused,
  // and the literal copy must not have run past the output on the way.
  Bytes block = B({0x50, 'h', 'e', 'l', 'l', 'o', 0x01, 0x00});
  block.insert(block.end(), 32, 0);
  Bytes out;
  EXPECT_FALSE(Decode(block, 5, &out));
}

TEST(Lz4Decode, LongLiteralLengthContinues) {
  // 15 + 255 + 10 = 280 literals.
  Bytes block = {0xF0, 255, 10};
  for (int i = 0; i < 280; ++i) block.push_back(static_cast<uint8_t>(i));
  Bytes out;
  ASSERT_TRUE(Decode(block, 280, &out));
  for (int i = 0; i < 280; ++i) ASSERT_EQ(out[i], static_cast<uint8_t>(i));
}

TEST(Lz4Decode, RefusesMalformedBlocks) {
  Bytes out;
  EXPECT_FALSE(Decode(B({}), 0, &out)) << "no token at all";
  EXPECT_FALSE(Decode(B({0x50, 'h', 'e'}), 5, &out)) << "literals run past the input";
  EXPECT_FALSE(Decode(B({0x50, 'h', 'e', 'l', 'l', 'o'}), 4, &out)) << "output too small";
  EXPECT_FALSE(Decode(B({0x50, 'h', 'e', 'l', 'l', 'o'}), 6, &out)) << "output too large";
  EXPECT_FALSE(Decode(B({0x10, 'a', 0x00, 0x00, 0x00}), 5, &out)) << "offset 0";
  EXPECT_FALSE(Decode(B({0x10, 'a', 0x02, 0x00, 0x00}), 5, &out)) << "offset before the start";
  EXPECT_FALSE(Decode(B({0x10, 'a', 0x01}), 5, &out)) << "offset cut short";
  EXPECT_FALSE(Decode(B({0x10, 'a', 0x01, 0x00}), 5, &out)) << "ends on a match, not literals";
  EXPECT_FALSE(Decode(B({0xF0}), 15, &out)) << "length continuation missing";
  EXPECT_FALSE(Decode(B({0xF0, 255}), 300, &out)) << "length continuation cut short";
  EXPECT_FALSE(Decode(B({0x1F, 'a', 0x01, 0x00, 255, 255, 255, 0x00}), 64, &out))
      << "match longer than the output";
}

// Input shaped like a Hyperscan database: runs of zeros, tables of small integers repeating with
// various periods (some under the decoder's 16-byte fast path, some over), sprinkled with noise.
Bytes DatabaseLike(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes out;
  while (out.size() < size) {
    switch (rng() % 4) {
      case 0:
        out.insert(out.end(), rng() % 3000, 0);
        break;
      case 1: {
        const size_t period = 1 + rng() % 40, n = rng() % 2000;
        const size_t start = out.size();
        for (size_t i = 0; i < period; ++i) out.push_back(static_cast<uint8_t>(rng() % 8));
        for (size_t i = period; i < n; ++i) out.push_back(out[start + i % period]);
        break;
      }
      case 2:
        for (size_t i = rng() % 64; i > 0; --i) out.push_back(static_cast<uint8_t>(rng()));
        break;
      default:
        if (out.size() > 70000) {  // a copy from beyond the format's 64 KiB window
          const size_t from = out.size() - 70000, n = rng() % 500;
          for (size_t i = 0; i < n; ++i) out.push_back(out[from + i]);
        }
    }
  }
  out.resize(size);
  return out;
}

void ExpectRoundTrip(const Bytes& in) {
  const Bytes block = EncodeLz4Block(in);
  Bytes out;
  ASSERT_TRUE(Decode(block, in.size(), &out)) << in.size() << " bytes";
  ASSERT_EQ(out, in) << in.size() << " bytes";
  // The exact size is part of the contract: one byte more or less is a refusal.
  if (!in.empty()) {
    EXPECT_FALSE(Decode(block, in.size() - 1, &out));
  }
  EXPECT_FALSE(Decode(block, in.size() + 1, &out));
}

TEST(Lz4RoundTrip, SmallAndEdgeSizes) {
  std::mt19937 rng(7);
  for (size_t n = 0; n <= 40; ++n) {
    Bytes random(n), zeros(n, 0);
    for (auto& b : random) b = static_cast<uint8_t>(rng());
    ExpectRoundTrip(random);
    ExpectRoundTrip(zeros);
  }
}

TEST(Lz4RoundTrip, DatabaseShapedData) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const Bytes in = DatabaseLike(1000 + seed * 37000, seed);
    ExpectRoundTrip(in);
    EXPECT_LT(EncodeLz4Block(in).size(), in.size() / 2) << "seed " << seed;
  }
}

TEST(Lz4RoundTrip, IncompressibleAndUniform) {
  std::mt19937 rng(11);
  Bytes random(200000);
  for (auto& b : random) b = static_cast<uint8_t>(rng());
  ExpectRoundTrip(random);
  ExpectRoundTrip(Bytes(1 << 20, 0));  // one long run: offset 1, lengths far past 255
}

TEST(Lz4RoundTrip, RealHyperscanDatabase) {
  const char* patterns[] = {"^rm (.* )?-[a-z]*r", "AKIA[0-9A-Z]{16}", "curl\\s+[^|]*\\|\\s*sh"};
  unsigned flags[] = {0, 0, HS_FLAG_CASELESS};
  unsigned ids[] = {0, 1, 2};
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  ASSERT_EQ(hs_compile_multi(patterns, flags, ids, 3, HS_MODE_BLOCK, nullptr, &db, &err),
            HS_SUCCESS);
  char* bytes = nullptr;
  size_t size = 0;
  ASSERT_EQ(hs_serialize_database(db, &bytes, &size), HS_SUCCESS);
  const Bytes serialized(bytes, bytes + size);
  std::free(bytes);
  hs_free_database(db);
  ExpectRoundTrip(serialized);
}

// Overwrites the one place in `tables` holding the 8 bytes of `from` (FlatBuffers stores scalars
// inline, little-endian); fails the test when the value is not there exactly once.
void Patch(Bytes* tables, uint64_t from, uint64_t to) {
  uint8_t a[8], b[8];
  std::memcpy(a, &from, 8);
  std::memcpy(b, &to, 8);
  size_t found = 0, at = 0;
  for (size_t i = 0; i + 8 <= tables->size(); ++i) {
    if (std::memcmp(tables->data() + i, a, 8) == 0) {
      ++found;
      at = i;
    }
  }
  ASSERT_EQ(found, 1u) << "value " << from << " occurs " << found << " times in the tables";
  std::memcpy(tables->data() + at, b, 8);
}

TEST(CompressedPack, LoadsAsBuilt) {
  SignedMini mini;
  const auto* fp = doberman::fb::GetPack(mini.payload.data());
  ASSERT_TRUE(fp->databases() && fp->databases()->size() > 0);
  for (const auto* d : *fp->databases()) {
    EXPECT_EQ(d->encoding(), doberman::fb::BlobEncoding::Lz4Block);
    EXPECT_LT(d->blob_size(), d->raw_size());
  }
  std::string error;
  EXPECT_EQ(mini.Load(mini.payload, &error), DOBERMAN_OK) << error;
}

TEST(CompressedPack, UncompressedBuildStoresRawDatabasesThatLoad) {
  SignedMini mini(/*compress=*/false);
  const auto* fp = doberman::fb::GetPack(mini.payload.data());
  ASSERT_TRUE(fp->databases() && fp->databases()->size() > 0);
  for (const auto* d : *fp->databases()) {
    EXPECT_EQ(d->encoding(), doberman::fb::BlobEncoding::Raw);
    EXPECT_EQ(d->raw_size(), 0u);
  }
  std::string error;
  EXPECT_EQ(mini.Load(mini.payload, &error), DOBERMAN_OK) << error;
}

TEST(CompressedPack, WrongDecodedSizeIsRefusedBeforeHyperscan) {
  SignedMini mini;
  const auto* d = doberman::fb::GetPack(mini.payload.data())->databases()->Get(0);
  const uint64_t raw = d->raw_size(), stored = d->blob_size();
  for (uint64_t lie : {raw - 1, raw + 1, raw * 2}) {
    Bytes tables = mini.payload;
    Patch(&tables, raw, lie);
    std::string error;
    EXPECT_EQ(mini.Load(tables, &error), DOBERMAN_E_STRUCTURE) << lie;
    EXPECT_NE(error.find("do not decode"), std::string::npos) << error;
  }
  // A size the stored bytes could never expand to is refused before any memory is reserved.
  Bytes tables = mini.payload;
  Patch(&tables, raw, doberman::internal::MaxLz4DecodedSize(stored) + 1);
  std::string error;
  EXPECT_EQ(mini.Load(tables, &error), DOBERMAN_E_STRUCTURE);
  EXPECT_NE(error.find("unknown encoding or size"), std::string::npos) << error;
}

}  // namespace
