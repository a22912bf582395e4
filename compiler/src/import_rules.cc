// Reading Nosey Parker (YAML) and gitleaks (TOML) rule sets, translating their regexes, checking
// each rule through the real pipeline, and writing Doberman rule files.
#include "import_rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <toml.hpp>

#include "checker.h"
#include "commands.h"
#include "hs_builder.h"
#include "signing.h"
#include "source_loader.h"
#include "yaml_printer.h"

namespace fs = std::filesystem;

namespace doberman::compiler {
namespace {

// "np.slack.2" -> "np.slack.2"; anything outside [a-z0-9._-] becomes '_'.
std::string IdPart(const std::string& s) {
  std::string out;
  for (char c : s) {
    const char l = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const bool ok =
        (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '_' || l == '-' || l == '.';
    out.push_back(ok ? l : '_');
  }
  while (out.find("..") != std::string::npos) out.replace(out.find(".."), 2, ".");
  while (!out.empty() && (out.back() == '.' || out.front() == '.'))
    out.erase(out.back() == '.' ? out.size() - 1 : 0, 1);
  return out;
}

std::vector<std::string> Strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence()) {
    for (const auto& item : n)
      if (item.IsScalar()) out.push_back(item.Scalar());
  }
  return out;
}

// Checks one rule as `dobermanc build` would (its own temporary file, the checker, Hyperscan).
// Returns "" when it builds, else the first diagnostic.
std::string BuildsAlone(const ImportedRule& r, const ImportOptions& o, const fs::path& tmp) {
  const fs::path file = tmp / "rule.yaml";
  {
    std::ofstream out(file);
    out << "rules:\n" << RuleYaml(r, o);
  }
  SourceMap sources;
  Diagnostics diags(sources, 5);
  std::vector<RuleFileAst> files;
  IrPack ir;
  std::vector<CompiledDatabase> dbs;
  if (LoadRuleFiles({file.string()}, sources, diags, &files) &&
      CheckRules(sources, files, diags, &ir) && !diags.has_errors() &&
      CompileDatabases(ir, diags, &dbs) && !diags.has_errors())
    return "";
  for (const Diagnostic& d : diags.all()) {
    if (d.severity == Severity::kError) return d.code + ": " + d.message;
  }
  return "refused";
}

}  // namespace

bool TranslateRegex(const std::string& in, std::string* out, std::string* why) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\\' && i + 1 < in.size()) {
      const char n = in[i + 1];
      if (n >= '1' && n <= '9') {
        *why = "a backreference";
        return false;
      }
      out->push_back(c);
      out->push_back(n);
      ++i;
      continue;
    }
    if (c == '(' && (in.compare(i, 3, "(?=") == 0 || in.compare(i, 3, "(?!") == 0)) {
      *why = "a lookahead (Hyperscan has none)";
      return false;
    }
    if (c == '(' && (in.compare(i, 4, "(?<=") == 0 || in.compare(i, 4, "(?<!") == 0)) {
      *why = "a lookbehind (Hyperscan has none)";
      return false;
    }
    // Named groups: (?P<name>...) and (?<name>...) -> (...): Hyperscan reports no groups.
    if (c == '(' && (in.compare(i, 4, "(?P<") == 0 || in.compare(i, 3, "(?<") == 0)) {
      const size_t close = in.find('>', i);
      if (close == std::string::npos) {
        *why = "an unterminated group name";
        return false;
      }
      out->push_back('(');
      i = close;
      continue;
    }
    out->push_back(c);
  }
  return true;
}

std::string RuleYaml(const ImportedRule& r, const ImportOptions& o) {
  std::string y = "  - id: " + YamlQuote(r.id) + "\n";
  y += "    family: secret\n";
  y += "    description: " +
       YamlQuote(r.name + " (imported from " + o.format + " " + r.source_id + ", " +
                 fs::path(r.source_file).filename().string() + ")") +
       "\n";
  y += "    scopes: [command_text, content, url, args, prompt_text]\n";
  y += "    origins: [typed, pasted]\n";
  y += "    patterns:\n";
  for (const std::string& p : r.patterns) {
    y += "      - {regex: " + YamlQuote(p) + (r.caseless ? ", flags: [caseless]" : "") + "}\n";
  }
  y += "    verdict: " + o.verdict + "\n    tier: 0\n";
  y += "    reason: secret_imported\n";
  y += "    message: " + YamlQuote(r.name.empty() ? r.source_id : r.name) + "\n";
  y += "    tags: [secret, imported]\n";
  if (!r.min_entropy.empty())
    y += "    validators: {min_entropy: " + YamlQuote(r.min_entropy) + "}\n";
  if (o.with_examples && (!r.examples.empty() || !r.negative_examples.empty())) {
    y += "    examples:\n";
    if (!r.examples.empty()) {
      y += "      match:\n";
      for (const auto& e : r.examples) y += "        - " + YamlQuote(e) + "\n";
    }
    if (!r.negative_examples.empty()) {
      y += "      pass:\n";
      for (const auto& e : r.negative_examples) y += "        - " + YamlQuote(e) + "\n";
    }
  }
  return y;
}

bool ReadNoseyParker(const std::string& source, std::vector<ImportedRule>* out,
                     std::vector<std::string>* skipped, std::string* error) {
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    for (const auto& e : fs::recursive_directory_iterator(source, ec)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".yml" || ext == ".yaml")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(source);
  }
  if (files.empty()) {
    *error = source + ": no .yml rule files";
    return false;
  }
  for (const std::string& file : files) {
    YAML::Node doc;
    try {
      doc = YAML::LoadFile(file);
    } catch (const YAML::Exception& e) {
      *error = file + ":" + std::to_string(e.mark.line + 1) + ":" +
               std::to_string(e.mark.column + 1) + ": " + e.msg;
      return false;
    }
    const YAML::Node rules = doc["rules"];
    if (!rules || !rules.IsSequence()) continue;  // rulesets and other documents
    for (const YAML::Node& n : rules) {
      ImportedRule r;
      r.source_file = file;
      r.source_id = n["id"] && n["id"].IsScalar() ? n["id"].Scalar() : "";
      r.name = n["name"] && n["name"].IsScalar() ? n["name"].Scalar() : "";
      const std::string pattern =
          n["pattern"] && n["pattern"].IsScalar() ? n["pattern"].Scalar() : "";
      if (r.source_id.empty() || pattern.empty()) {
        skipped->push_back(file + ": a rule without id or pattern");
        continue;
      }
      std::string translated, why;
      if (!TranslateRegex(pattern, &translated, &why)) {
        skipped->push_back(r.source_id + ": " + why);
        continue;
      }
      r.id = "imported.noseyparker." + IdPart(r.source_id);
      r.patterns.push_back(translated);
      r.examples = Strings(n["examples"]);
      r.negative_examples = Strings(n["negative_examples"]);
      out->push_back(std::move(r));
    }
  }
  return true;
}

bool ReadGitleaks(const std::string& path, std::vector<ImportedRule>* out,
                  std::vector<std::string>* skipped, std::string* error) {
  toml::value data;
  try {
    data = toml::parse(path);
  } catch (const std::exception& e) {
    *error = e.what();  // toml11 names the file, line and column
    return false;
  }
  if (!data.is_table() || data.as_table().count("rules") == 0 || !data.at("rules").is_array()) {
    *error = path + ": no [[rules]]";
    return false;
  }
  for (const toml::value& rule : data.at("rules").as_array()) {
    if (!rule.is_table()) continue;
    const auto& t = rule.as_table();
    auto str = [&](const char* key) {
      return t.count(key) != 0 && t.at(key).is_string() ? std::string(t.at(key).as_string()) : "";
    };
    ImportedRule r;
    r.source_file = path;
    r.source_id = str("id");
    r.name = str("description");
    const std::string regex = str("regex");
    if (r.source_id.empty()) continue;
    if (regex.empty()) {
      skipped->push_back(r.source_id + ": no regex (a path-only rule)");
      continue;
    }
    std::string translated, why;
    if (!TranslateRegex(regex, &translated, &why)) {
      skipped->push_back(r.source_id + ": " + why);
      continue;
    }
    r.id = "imported.gitleaks." + IdPart(r.source_id);
    r.patterns.push_back(translated);
    if (t.count("entropy") != 0 &&
        (t.at("entropy").is_floating() || t.at("entropy").is_integer())) {
      const double e = t.at("entropy").is_floating()
                           ? t.at("entropy").as_floating()
                           : static_cast<double>(t.at("entropy").as_integer());
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", std::min(e, 8.0));
      r.min_entropy = buf;
    }
    out->push_back(std::move(r));
  }
  return true;
}

int RunImport(const ImportOptions& o) {
  std::vector<ImportedRule> rules;
  std::vector<std::string> skipped;
  std::string error;
  const bool ok = o.format == "noseyparker" ? ReadNoseyParker(o.source, &rules, &skipped, &error)
                                            : ReadGitleaks(o.source, &rules, &skipped, &error);
  if (!ok) {
    std::fprintf(stderr, "dobermanc import: %s\n", error.c_str());
    return kExitIo;
  }
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  const fs::path tmp = fs::path(o.out_dir) / ".import-check";
  fs::create_directories(tmp, ec);
  if (ec) {
    std::fprintf(stderr, "dobermanc import: cannot create %s\n", tmp.c_str());
    return kExitIo;
  }
  // Ids must be unique in a pack: a repeated source id gets a suffix.
  std::map<std::string, int> seen;
  std::map<std::string, std::vector<const ImportedRule*>> by_file;
  size_t kept = 0;
  for (ImportedRule& r : rules) {
    if (int n = seen[r.id]++; n > 0) r.id += "-" + std::to_string(n + 1);
    const std::string why = BuildsAlone(r, o, tmp);
    if (!why.empty()) {
      skipped.push_back(r.source_id + ": " + why);
      continue;
    }
    by_file[r.source_file].push_back(&r);
    ++kept;
  }
  fs::remove_all(tmp, ec);
  for (const auto& [source, list] : by_file) {
    const std::string stem = o.format == "gitleaks" ? "gitleaks" : fs::path(source).stem().string();
    const fs::path out = fs::path(o.out_dir) / (o.format + "_" + IdPart(stem) + ".yaml");
    std::string text = "# Imported by `dobermanc import " + o.format + "` from " + source +
                       "\n# (the source's licence applies to these rules)\nrules:\n";
    for (const ImportedRule* r : list) text += RuleYaml(*r, o);
    std::vector<uint8_t> bytes(text.begin(), text.end());
    if (!WriteFileAtomic(out.string(), bytes, 0644, &error)) {
      std::fprintf(stderr, "dobermanc import: %s\n", error.c_str());
      return kExitIo;
    }
  }
  for (const std::string& s : skipped) std::fprintf(stderr, "warning: skipped %s\n", s.c_str());
  std::fprintf(stderr, "imported %zu of %zu rules into %s (%zu skipped)\n", kept,
               kept + skipped.size(), o.out_dir.c_str(), skipped.size());
  return kept > 0 ? kExitOk : kExitDiagnostics;
}

}  // namespace doberman::compiler
