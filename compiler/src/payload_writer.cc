// FlatBuffers serialization of the checked IR. Field by field; no reflection.
#include "payload_writer.h"

#include <array>
#include <span>

#include <sodium.h>

#include "envelope.h"
#include "lz4_block_encoder.h"
#include "pack_generated.h"

namespace doberman::compiler {
namespace {

fb::Verdict ToFb(doberman_verdict v) {
  return v == DOBERMAN_PASS   ? fb::Verdict::Pass
         : v == DOBERMAN_AUTH ? fb::Verdict::Auth
                              : fb::Verdict::Block;
}

}  // namespace

std::vector<uint8_t> WritePayload(const IrPack& pack,
                                  const std::vector<CompiledDatabase>& databases,
                                  const std::string& hs_version, std::vector<uint8_t>* blobs,
                                  bool compress_blobs) {
  flatbuffers::FlatBufferBuilder b(1 << 16);
  auto strings = [&](const std::vector<std::string>& v) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> o;
    for (const auto& s : v) o.push_back(b.CreateString(s));
    return b.CreateVector(o);
  };

  std::vector<flatbuffers::Offset<fb::Rule>> rules;
  for (const IrRule& r : pack.rules) {
    std::vector<fb::WhenInstr> when;
    for (const WhenInstr& w : r.when) when.emplace_back(internal::ToSchema(w.op), w.arg);
    auto validators = fb::CreateValidators(b, r.validators.min_entropy, r.validators.min_length,
                                           r.validators.placeholder, r.validators.exempt_hashes,
                                           r.validators.exempt_identifiers);
    rules.push_back(fb::CreateRule(
        b, b.CreateString(r.id), b.CreateString(r.family), r.scopes, ToFb(r.verdict), r.tier,
        b.CreateString(r.reason), b.CreateString(r.message), b.CreateVector(r.tags),
        b.CreateVectorOfStructs(when), validators, r.decode, r.origins, ToFb(r.mention_cap),
        internal::LegacyMentionMarker(r.mention_marker),
        !r.patterns.empty() && std::any_of(r.patterns.begin(), r.patterns.end(),
                                           [&](uint32_t p) {
                                             return pack.patterns[p].role == Role::kAny ||
                                                    pack.patterns[p].role == Role::kAll;
                                           }),
        b.CreateString(r.source), internal::ToSchema(r.mention_marker)));
  }
  std::vector<flatbuffers::Offset<fb::Pattern>> patterns;
  for (const IrPattern& p : pack.patterns) {
    unsigned int flags = p.hs_flags;
    // The expression goes to the pattern-text blob, not into the signed tables.
    patterns.push_back(fb::CreatePattern(b, p.rule, static_cast<fb::PatternRole>(p.role),
                                         /*expression=*/0, flags, p.som));
  }
  blobs->clear();
  // Appends `bytes` to the blob area, compressed when that is smaller (always, for real databases:
  // about 7x; the loader hashes the stored bytes, and hashing was most of a hook's load time).
  struct StoredBlob {
    uint64_t offset, size, raw_size;
    fb::BlobEncoding encoding;
    std::array<uint8_t, internal::kBlobDigestSize> digest;
  };
  auto store = [&](std::span<const uint8_t> bytes) {
    std::vector<uint8_t> packed = compress_blobs ? EncodeLz4Block(bytes) : std::vector<uint8_t>{};
    const bool compress = compress_blobs && packed.size() < bytes.size();
    const std::span<const uint8_t> stored = compress ? std::span<const uint8_t>(packed) : bytes;
    StoredBlob s{blobs->size(),
                 stored.size(),
                 compress ? bytes.size() : 0,
                 compress ? fb::BlobEncoding::Lz4Block : fb::BlobEncoding::Raw,
                 {}};
    crypto_generichash(s.digest.data(), s.digest.size(), stored.data(), stored.size(), nullptr, 0);
    blobs->insert(blobs->end(), stored.begin(), stored.end());
    return s;
  };
  // The pattern text first: the databases, which a loader hashes as it needs them, follow it.
  flatbuffers::FlatBufferBuilder text_builder(1 << 16);
  {
    std::vector<flatbuffers::Offset<flatbuffers::String>> texts;
    texts.reserve(pack.patterns.size());
    for (const IrPattern& p : pack.patterns)
      texts.push_back(text_builder.CreateString(p.expression));
    text_builder.Finish(fb::CreatePatternTexts(text_builder, text_builder.CreateVector(texts)));
  }
  const StoredBlob text = store({text_builder.GetBufferPointer(), text_builder.GetSize()});
  std::vector<flatbuffers::Offset<fb::Database>> dbs;
  for (const CompiledDatabase& d : databases) {
    const StoredBlob s = store(d.bytes);
    dbs.push_back(fb::CreateDatabase(b, static_cast<fb::Scope>(d.scope), b.CreateString(d.platform),
                                     b.CreateVector(d.pattern_ids), /*bytes=*/0, d.scopes, s.offset,
                                     s.size, b.CreateVector(s.digest.data(), s.digest.size()),
                                     d.conditional, d.group, s.encoding, s.raw_size));
  }
  std::vector<flatbuffers::Offset<fb::Wrapper>> wrappers;
  for (const auto& w : pack.shell.wrappers) {
    wrappers.push_back(
        fb::CreateWrapper(b, b.CreateString(w.name), strings(w.value_options), w.positional_args));
  }
  std::vector<flatbuffers::Offset<fb::FlagAlias>> aliases;
  for (const auto& a : pack.shell.aliases) {
    aliases.push_back(fb::CreateFlagAlias(b, b.CreateString(a.command), b.CreateString(a.from),
                                          b.CreateString(a.to)));
  }
  auto shell =
      fb::CreateShellTables(b, b.CreateVector(wrappers), strings(pack.shell.shells),
                            strings(pack.shell.split_flag_commands), b.CreateVector(aliases),
                            strings(pack.shell.stdin_programs), strings(pack.shell.runners));
  const IrLimits& L = pack.limits;
  // CreateLimits takes the fields in schema order, which is the order of DOBERMAN_PACK_LIMITS
  // (limits_table_test fails otherwise).
#define DOBERMAN_LIMIT_ARG(name, type, default_value) , L.name
  auto limits = fb::CreateLimits(b DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_ARG));
#undef DOBERMAN_LIMIT_ARG
  auto root = fb::CreatePack(
      b, b.CreateString(pack.name), b.CreateString(pack.version), b.CreateString(pack.description),
      b.CreateString(hs_version), b.CreateVector(rules), b.CreateVector(patterns),
      b.CreateVector(dbs), strings(pack.tags), shell, limits, b.CreateString(pack.sources_digest),
      text.offset, text.size, b.CreateVector(text.digest.data(), text.digest.size()), text.encoding,
      text.raw_size);
  fb::FinishPackBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace doberman::compiler
