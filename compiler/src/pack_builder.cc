// Pipeline glue. Each stage stops the build only after reporting everything it found.
#include "pack_builder.h"

#include <xxhash.h>

#include "checker.h"
#include "hs_builder.h"
#include "payload_writer.h"

namespace doberman::compiler {
namespace {

std::string SourcesDigest(const SourceMap& sources, const ManifestAst* manifest,
                          const std::vector<RuleFileAst>& files) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  auto add = [&](uint32_t file) {
    const std::string& text = sources.Text(file);
    XXH3_128bits_update(state, text.data(), text.size());
    XXH3_128bits_update(state, "\0", 1);
  };
  if (manifest != nullptr) add(manifest->file);
  for (const RuleFileAst& f : files) add(f.file);
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  char hex[33];
  snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
           static_cast<unsigned long long>(h.low64));
  return hex;
}

}  // namespace

bool BuildPack(const SourceMap& sources, const ManifestAst* manifest,
               const std::vector<RuleFileAst>& files, const SigningKey& key, int64_t created_unix,
               Diagnostics& diags, BuiltPack* out, bool compress_databases,
               const BuildProgress& progress, DatabaseLayout layout) {
  IrPack& ir = out->ir;
  auto stage = [&](const char* name) {
    if (progress) progress(name, ir);
  };
  stage("checking");
  // The checker runs even after front-end errors, so one run reports everything it can.
  bool ok = manifest != nullptr ? CheckPack(sources, *manifest, files, diags, &ir)
                                : CheckRules(sources, files, diags, &ir);
  if (!ok || diags.has_errors()) return false;
  ir.sources_digest = SourcesDigest(sources, manifest, files);
  std::vector<CompiledDatabase> databases;
  stage("compiling databases");
  if (!CompileDatabases(ir, diags, &databases, layout)) return false;
  const std::string hs_version = HyperscanVersion();
  std::vector<uint8_t> blobs;
  std::vector<uint8_t> payload =
      WritePayload(ir, databases, hs_version, &blobs, compress_databases);
  stage("sealing");
  internal::EnvelopeHeader header;
  header.revision = ir.revision;
  header.created_unix = created_unix;
  header.expires_unix = ir.expires_unix;
  header.hs_version = hs_version;
  header.platform = ir.platforms.size() > 1 ? "multi" : "generic";
  out->bytes = SealPack(header, payload, blobs, key);
  stage("running examples");
  out->examples = RunExamples(ir, out->bytes, key.public_key.data(), diags);
  return !diags.has_errors();
}

}  // namespace doberman::compiler
