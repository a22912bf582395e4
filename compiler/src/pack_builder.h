// The whole pipeline for one pack: sources -> checked IR -> Hyperscan databases -> payload ->
// signed envelope -> examples run against the signed bytes. Nothing touches the disk here.
#ifndef DOBERMAN_COMPILER_PACK_BUILDER_H_
#define DOBERMAN_COMPILER_PACK_BUILDER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "diagnostics.h"
#include "example_runner.h"
#include "hs_builder.h"
#include "ir.h"
#include "signing.h"
#include "source_loader.h"

namespace doberman::compiler {

struct BuiltPack {
  IrPack ir;
  std::vector<uint8_t> bytes;  // the signed pack
  ExampleStats examples;
};

// `manifest` may be null (loose rule files: `dobermanc test rules/x.yaml`). `created_unix` goes
// into the header (SOURCE_DATE_EPOCH makes builds reproducible). Returns false when any error was
// reported (including failing examples).
// Told when each stage starts (`stage`: "checking", "compiling databases", "sealing", "running
// examples"), with the rule and pattern counts known so far.
using BuildProgress = std::function<void(const char* stage, const IrPack& ir)>;

bool BuildPack(const SourceMap& sources, const ManifestAst* manifest,
               const std::vector<RuleFileAst>& files, const SigningKey& key, int64_t created_unix,
               Diagnostics& diags, BuiltPack* out, bool compress_databases = true,
               const BuildProgress& progress = nullptr,
               DatabaseLayout layout = DatabaseLayout::kPerScope);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_PACK_BUILDER_H_
