// keygen, build, test, inspect, verify.
#include "commands.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "doberman/doberman.h"
#include "inspect.h"
#include "key_file.h"
#include "pack_builder.h"
#include "signing.h"
#include "source_loader.h"

namespace fs = std::filesystem;

namespace doberman::compiler {
namespace {

// With --diagnostics json, stdout carries exactly one JSON document per run, however many
// manifests it built: every manifest's diagnostics gathered, printed at the end (human summary
// lines go to stderr).
class JsonOut {
 public:
  void Add(const Diagnostics& diags) {
    diags.AppendJsonItems(&items_, &first_);
    errors_ += diags.error_count();
  }
  void Flush() const {
    std::printf("{\"diagnostics\":[%s],\"errors\":%zu}\n", items_.c_str(), errors_);
  }

 private:
  std::string items_;
  bool first_ = true;
  size_t errors_ = 0;
};

void Print(const Diagnostics& diags, const CommonOptions& common, JsonOut* json) {
  if (common.format == "json") {
    json->Add(diags);
  } else if (!diags.all().empty()) {
    std::fputs(diags.RenderText(common.color).c_str(), stderr);
  }
}

// I/O problems (unreadable inputs) exit 3; everything else that was reported exits 1.
int ExitFor(const Diagnostics& diags) {
  if (!diags.has_errors()) return kExitOk;
  for (const Diagnostic& d : diags.all()) {
    if (d.severity == Severity::kError && d.id != DiagCode::E1001) return kExitDiagnostics;
  }
  return kExitIo;
}

int64_t CreatedTime() {
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde != nullptr && *sde != '\0') {
    char* end = nullptr;
    long long v = std::strtoll(sde, &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0) return v;
  }
  return static_cast<int64_t>(std::time(nullptr));
}

bool ReadBytes(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

std::string Summary(const BuiltPack& p) {
  return std::to_string(p.ir.rules.size()) + " rules, " + std::to_string(p.ir.patterns.size()) +
         " patterns, " + std::to_string(p.bytes.size()) + " bytes, revision " +
         std::to_string(p.ir.revision) + ", " + std::to_string(p.examples.run - p.examples.failed) +
         "/" + std::to_string(p.examples.run) + " examples pass";
}

// On a terminal, a line as each stage of a build starts (stage, rules, elapsed): compiling a large
// pack takes seconds. Nothing when stderr is a file or a pipe (logs and CI stay as they were).
BuildProgress ProgressLines(const std::string& manifest) {
  if (::isatty(STDERR_FILENO) == 0) return nullptr;
  const auto start = std::chrono::steady_clock::now();
  return [manifest, start](const char* stage, const IrPack& ir) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string counts;
    if (!ir.rules.empty()) {
      counts = ", " + std::to_string(ir.rules.size()) + " rules, " +
               std::to_string(ir.patterns.size()) + " patterns";
    }
    std::fprintf(stderr, "dobermanc: %s: %s%s (%.1f s)\n", manifest.c_str(), stage, counts.c_str(),
                 s);
  };
}

}  // namespace

int RunKeygen(const KeygenOptions& o) {
  std::string key_id, error;
  if (!GenerateKeyPair(o.base, o.force, &key_id, &error)) {
    std::fprintf(stderr, "dobermanc keygen: %s\n", error.c_str());
    return kExitIo;
  }
  std::printf("wrote %s.key (0600) and %s.pub, key id %s\n", o.base.c_str(), o.base.c_str(),
              key_id.c_str());
  return kExitOk;
}

int RunBuild(const BuildOptions& o, const CommonOptions& common) {
  SigningKey key;
  std::string error;
  if (!LoadSigningKey(o.key, &key, &error)) {
    std::fprintf(stderr, "dobermanc build: %s\n", error.c_str());
    return kExitIo;
  }
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (!fs::is_directory(o.out_dir, ec)) {
    std::fprintf(stderr, "dobermanc build: cannot create output folder %s\n", o.out_dir.c_str());
    return kExitIo;
  }
  int exit_code = kExitOk;
  const int64_t created = CreatedTime();
  JsonOut json;
  for (const std::string& path : o.paths) {
    SourceMap sources;
    Diagnostics finder(sources, common.max_errors);
    std::vector<std::string> manifests = FindManifests(path, sources, finder);
    Print(finder, common, &json);
    if (finder.has_errors()) exit_code = std::max(exit_code, ExitFor(finder));
    for (const std::string& manifest : manifests) {
      SourceMap msources;
      Diagnostics diags(msources, common.max_errors);
      PackSources src;
      BuiltPack built;
      bool ok = LoadPackSources(manifest, msources, diags, &src) &&
                BuildPack(msources, &src.manifest, src.files, key, created, diags, &built,
                          !o.no_compress, ProgressLines(manifest),
                          o.layout == "by-rule-scopes" ? DatabaseLayout::kByRuleScopes
                                                       : DatabaseLayout::kPerScope);
      Print(diags, common, &json);
      if (!ok) {
        std::fprintf(stderr, "dobermanc build: %s: %zu error(s); no pack written\n",
                     manifest.c_str(), diags.error_count());
        exit_code =
            std::max(exit_code, ExitFor(diags) == kExitOk ? kExitDiagnostics : ExitFor(diags));
        continue;
      }
      std::string out = (fs::path(o.out_dir) / (built.ir.name + ".dpack")).string();
      if (!WriteFileAtomic(out, built.bytes, 0644, &error)) {
        std::fprintf(stderr, "dobermanc build: %s\n", error.c_str());
        exit_code = std::max(exit_code, kExitIo);
        continue;
      }
      std::fprintf(stderr, "built %s: %s\n", out.c_str(), Summary(built).c_str());
    }
  }
  if (common.format == "json") json.Flush();
  return exit_code;
}

int RunTest(const TestOptions& o, const CommonOptions& common) {
  std::vector<std::string> paths = o.paths.empty() ? std::vector<std::string>{"packs"} : o.paths;
  SigningKey key;
  EphemeralKey(&key);
  int exit_code = kExitOk;
  size_t total_run = 0, total_failed = 0;
  std::vector<std::string> loose;
  JsonOut json;
  for (const std::string& path : paths) {
    SourceMap sources;
    Diagnostics diags(sources, common.max_errors);
    std::vector<std::string> manifests;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      std::ifstream in(path);
      std::string head((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      bool is_manifest = head.rfind("pack:", 0) == 0 || head.find("\npack:") != std::string::npos ||
                         head.rfind("pack ", 0) == 0 || head.find("\npack ") != std::string::npos;
      if (!is_manifest) {
        loose.push_back(path);
        continue;
      }
      manifests.push_back(path);
    } else {
      manifests = FindManifests(path, sources, diags);
    }
    Print(diags, common, &json);
    if (diags.has_errors()) exit_code = std::max(exit_code, ExitFor(diags));
    for (const std::string& manifest : manifests) {
      SourceMap msources;
      Diagnostics mdiags(msources, common.max_errors);
      PackSources src;
      BuiltPack built;
      bool ok = LoadPackSources(manifest, msources, mdiags, &src) &&
                BuildPack(msources, &src.manifest, src.files, key, CreatedTime(), mdiags, &built);
      Print(mdiags, common, &json);
      total_run += built.examples.run;
      total_failed += built.examples.failed;
      std::fprintf(stderr, "%s %s: %s\n", ok ? "ok  " : "FAIL", manifest.c_str(),
                   ok ? Summary(built).c_str()
                      : (std::to_string(mdiags.error_count()) + " error(s)").c_str());
      if (!ok)
        exit_code =
            std::max(exit_code, ExitFor(mdiags) == kExitOk ? kExitDiagnostics : ExitFor(mdiags));
    }
  }
  if (!loose.empty()) {
    SourceMap sources;
    Diagnostics diags(sources, common.max_errors);
    std::vector<RuleFileAst> files;
    BuiltPack built;
    bool ok = LoadRuleFiles(loose, sources, diags, &files) &&
              BuildPack(sources, nullptr, files, key, CreatedTime(), diags, &built);
    Print(diags, common, &json);
    total_run += built.examples.run;
    total_failed += built.examples.failed;
    std::fprintf(
        stderr, "%s %zu rule file(s): %s\n", ok ? "ok  " : "FAIL", loose.size(),
        ok ? Summary(built).c_str() : (std::to_string(diags.error_count()) + " error(s)").c_str());
    if (!ok)
      exit_code =
          std::max(exit_code, ExitFor(diags) == kExitOk ? kExitDiagnostics : ExitFor(diags));
  }
  // With --diagnostics json, stdout carries only JSON: the summary line goes with the other human
  // lines to stderr.
  std::fprintf(common.format == "json" ? stderr : stdout, "%zu passed, %zu failed\n",
               total_run - total_failed, total_failed);
  if (common.format == "json") json.Flush();
  return exit_code;
}

int RunInspect(const InspectOptions& o) {
  std::vector<uint8_t> bytes;
  if (!ReadBytes(o.pack, &bytes)) {
    std::fprintf(stderr, "dobermanc inspect: cannot read %s\n", o.pack.c_str());
    return kExitIo;
  }
  bool verified = false;
  if (!o.pubkey.empty()) {
    VerifyOptions v{o.pack, o.pubkey};
    if (int rc = RunVerify(v); rc != kExitOk) return rc;
    verified = true;
  }
  std::string out, error;
  if (!RenderPack(bytes, o.json, verified, &out, &error)) {
    std::fprintf(stderr, "dobermanc inspect: %s: %s\n", o.pack.c_str(), error.c_str());
    return kExitDiagnostics;
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

int RunVerify(const VerifyOptions& o) {
  doberman_public_key key;
  std::string error;
  if (!internal::ReadPublicKeyFile(o.pubkey, &key, &error)) {
    std::fprintf(stderr, "dobermanc verify: %s\n", error.c_str());
    return kExitIo;
  }
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &key;
  options.trusted_key_count = 1;
  doberman_pack* pack = nullptr;
  char buf[512] = {0};
  doberman_status s = doberman_pack_load_file(o.pack.c_str(), &options, &pack, buf, sizeof buf);
  if (s != DOBERMAN_OK) {
    std::fprintf(stderr, "dobermanc verify: %s: %s (%s)\n", o.pack.c_str(), buf,
                 doberman_status_name(s));
    return s == DOBERMAN_E_IO ? kExitIo : kExitDiagnostics;
  }
  doberman_pack_info info{};
  info.struct_size = sizeof info;
  doberman_pack_get_info(pack, &info);
  std::fprintf(
      stderr,
      "%s: signature ok, key %s, pack %s %s revision %llu, %u rules, loads on this CPU (%s)\n",
      o.pack.c_str(), internal::KeyIdHex(key.bytes).c_str(), info.name, info.version,
      static_cast<unsigned long long>(info.revision), info.rule_count, info.platform);
  doberman_pack_free(pack);
  return kExitOk;
}

}  // namespace doberman::compiler
