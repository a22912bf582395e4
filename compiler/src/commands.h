// The subcommands of dobermanc, one function each, so that main.cc only parses arguments.
#ifndef DOBERMAN_COMPILER_COMMANDS_H_
#define DOBERMAN_COMPILER_COMMANDS_H_

#include <string>
#include <vector>

namespace doberman::compiler {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDiagnostics = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIo = 3;

struct CommonOptions {
  std::string format = "text";
  bool color = false;
  size_t max_errors = 50;
};
struct KeygenOptions {
  std::string base;
  bool force = false;
};
struct BuildOptions {
  std::vector<std::string> paths;
  std::string key, out_dir;
  bool no_compress =
      false;  // store databases as Hyperscan serialized them (comparisons, debugging)
  std::string layout = "per-scope";  // or "by-rule-scopes" (comparisons, the differential test)
};
struct TestOptions {
  std::vector<std::string> paths;
};
struct InspectOptions {
  std::string pack, pubkey;
  bool json = false;
};
struct VerifyOptions {
  std::string pack, pubkey;
};
struct FmtOptions {
  std::string file;
};
struct ConvertOptions {
  std::string file, to;
};

int RunKeygen(const KeygenOptions& o);
int RunBuild(const BuildOptions& o, const CommonOptions& common);
int RunTest(const TestOptions& o, const CommonOptions& common);
int RunInspect(const InspectOptions& o);
int RunVerify(const VerifyOptions& o);
int RunFmt(const FmtOptions& o, const CommonOptions& common);
int RunConvert(const ConvertOptions& o, const CommonOptions& common);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_COMMANDS_H_
