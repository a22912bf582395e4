// dobermanc: the command line. Subcommands keygen, build, test, inspect, verify (and fmt, convert
// for the DSL). Exit codes: 0 ok, 1 diagnostics with errors, 2 usage, 3 I/O.
#include <sodium.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli_program.h"
#include "commands.h"
#include "doberman/doberman.h"
#include "import_rules.h"

int main(int argc, char** argv) {
  using namespace doberman::compiler;
  if (sodium_init() < 0) {
    std::fprintf(stderr, "dobermanc: libsodium failed to initialise\n");
    return kExitIo;
  }
  CLI::App app{"dobermanc: compiles Doberman guardrail packs (YAML or DSL) into signed packs"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version,-V", std::string("dobermanc ") + doberman_runtime_version() +
                                           "; runtime ABI " + std::to_string(DOBERMAN_ABI_VERSION));
  CommonOptions common;
  app.add_option("--diagnostics", common.format, "Diagnostic output: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--color", common.color, "Colour diagnostics");
  app.add_option("--max-errors", common.max_errors, "Stop reporting after this many errors");

  KeygenOptions keygen;
  CLI::App* k = app.add_subcommand(
      "keygen", "Create an Ed25519 key pair: KEYBASE.key (0600) and KEYBASE.pub");
  k->add_option("--out", keygen.base, "Key base path")->required()->type_name("FILE");
  k->add_flag("--force", keygen.force, "Replace existing key files");

  BuildOptions build;
  CLI::App* b = app.add_subcommand(
      "build", "Compile every pack manifest under PATHS into OUTDIR/<name>.dpack");
  b->add_option("paths", build.paths, "Manifest files or folders of manifests")
      ->required()
      ->type_name("FILE");
  b->add_option("--key", build.key, "Secret key file (mode 0600)")->required()->type_name("FILE");
  b->add_option("--out", build.out_dir, "Output folder")->required()->type_name("DIR");
  b->add_flag(
      "--no-compress", build.no_compress,
      "Store Hyperscan databases uncompressed (a larger pack, slower to load; for comparison "
      "and debugging)");
  b->add_option(
       "--layout", build.layout,
       "How patterns are split into Hyperscan databases: per-scope (one scan per unit; the "
       "default) or by-rule-scopes (each pattern stored once; for comparison)")
      ->check(CLI::IsMember({"per-scope", "by-rule-scopes"}))
      ->type_name("LAYOUT");

  TestOptions test;
  CLI::App* t =
      app.add_subcommand("test", "Run every rule's inline examples through the compiled pack");
  t->add_option("paths", test.paths,
                "Manifests, folders of manifests, or rule files (default: packs/)")
      ->type_name("FILE");

  InspectOptions inspect;
  CLI::App* i = app.add_subcommand("inspect", "Show a pack's header and rules");
  i->add_option("pack", inspect.pack, "Pack file")->required()->type_name("FILE");
  i->add_flag("--json", inspect.json, "JSON output");
  i->add_option("--pubkey", inspect.pubkey, "Verify the signature with this public key first")
      ->type_name("FILE");

  VerifyOptions verify;
  CLI::App* v = app.add_subcommand("verify", "Check a pack's signature, structure and databases");
  v->add_option("pack", verify.pack, "Pack file")->required()->type_name("FILE");
  v->add_option("--pubkey", verify.pubkey, "Public key file")->required()->type_name("FILE");

  FmtOptions fmt;
  CLI::App* f = app.add_subcommand("fmt", "Print a rule file as canonical DSL");
  f->add_option("file", fmt.file, "Rule file (.dbr or .yaml)")->required()->type_name("FILE");

  ConvertOptions convert;
  CLI::App* c =
      app.add_subcommand("convert", "Convert a rule file or manifest between YAML and the DSL");
  c->add_option("file", convert.file, "Source file")->required()->type_name("FILE");
  c->add_option("--to", convert.to, "Target language: dsl or yaml")
      ->required()
      ->check(CLI::IsMember({"dsl", "yaml"}));

  ImportOptions import;
  CLI::App* im = app.add_subcommand(
      "import", "Convert a Nosey Parker or gitleaks rule set into Doberman rule files");
  im->add_option("format", import.format, "Source format")
      ->required()
      ->check(CLI::IsMember({"noseyparker", "gitleaks"}));
  im->add_option("source", import.source, "Nosey Parker rules folder or file; gitleaks .toml file")
      ->required()
      ->type_name("FILE");
  im->add_option("--out", import.out_dir, "Output folder for the rule files")
      ->required()
      ->type_name("DIR");
  im->add_flag("--with-examples", import.with_examples,
               "Carry the source's examples as match:/pass: examples");
  im->add_option("--verdict", import.verdict, "Verdict of the imported rules")
      ->check(CLI::IsMember({"AUTH", "BLOCK"}));

  std::string shell;
  CLI::App* completion =
      app.add_subcommand("completion", "Print the bash or zsh completion script");
  completion->add_option("shell", shell, "Shell")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* man = app.add_subcommand("man", "Print the man page (roff)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (*completion || *man) {
    return doberman::cli::PrintGenerated(ProgramFromCli11(app, doberman_runtime_version()),
                                         *man ? "man" : "completion", shell);
  }
  if (*im) return RunImport(import);
  if (*k) return RunKeygen(keygen);
  if (*b) return RunBuild(build, common);
  if (*t) return RunTest(test, common);
  if (*i) return RunInspect(inspect);
  if (*v) return RunVerify(verify);
  if (*f) return RunFmt(fmt, common);
  if (*c) return RunConvert(convert, common);
  return kExitUsage;
}
