// File discovery and front-end dispatch. Paths in includes are relative to the manifest's folder.
#include "source_loader.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "dsl_frontend.h"
#include "regular_file.h"

namespace fs = std::filesystem;

namespace doberman::compiler {
namespace {

// Rule sources are small text files; the bound keeps a mistaken include of a huge file cheap.
constexpr size_t kMaxSourceBytes = 64u << 20;

// Never waits on a FIFO or device, and reads regular files only.
bool ReadFile(const std::string& path, std::string* out) {
  std::string error;
  return internal::ReadRegularFile(path, kMaxSourceBytes, "rule source", out, &error);
}

// A symbolic link inside a rules tree could point anywhere (a key, /etc/passwd), and a diagnostic
// quotes the line it fails on: sources are read from regular files only, links are reported.
bool IsSymlink(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

bool HasExtension(const fs::path& p, std::initializer_list<const char*> exts) {
  std::string e = p.extension().string();
  return std::any_of(exts.begin(), exts.end(), [&](const char* x) { return e == x; });
}

// `*` matches any run of characters within one name.
bool GlobMatch(std::string_view pattern, std::string_view name) {
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == name;
  std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  if (name.size() < head.size() || name.substr(0, head.size()) != head) return false;
  for (size_t i = head.size(); i <= name.size(); ++i) {
    if (GlobMatch(tail, name.substr(i))) return true;
  }
  return false;
}

std::vector<std::string> RuleFilesIn(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    // Links, FIFOs and devices named like rule files are kept so that LoadSourceFile reports them
    // (nothing is skipped silently); the iterator does not descend into linked folders.
    if (e.is_symlink() || (!e.is_directory() && IsRuleSourcePath(e.path().string()))) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool IsRuleSourcePath(const std::string& path) {
  return HasExtension(fs::path(path), {".yaml", ".yml", ".dbr"});
}

ParsedFile LoadSourceFile(const std::string& path, SourceMap& sources, Diagnostics& diags) {
  std::string text;
  if (IsSymlink(path)) {
    diags.Error(DiagCode::E1011, Loc{},
                path + " is a symbolic link; rule sources are read from regular files only", "",
                "copy the file into the rules tree, or include its real location");
    return {};
  }
  if (!IsRuleSourcePath(path)) {
    diags.Error(DiagCode::E1004, Loc{},
                path + " is not a rule file (expected .yaml, .yml or .dbr)");
    return {};
  }
  if (!ReadFile(path, &text)) {
    diags.Error(DiagCode::E1001, Loc{}, "cannot read " + path);
    return {};
  }
  uint32_t id = sources.Add(path, std::move(text));
  if (HasExtension(fs::path(path), {".dbr"})) return ParseDslFile(sources, id, diags);
  return ParseYamlFile(sources, id, diags);
}

std::vector<std::string> FindManifests(const std::string& path, SourceMap& sources,
                                       Diagnostics& diags) {
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  if (!fs::is_directory(path, ec)) {
    diags.Error(DiagCode::E1001, Loc{}, "no such file or folder: " + path);
    return {};
  }
  std::vector<std::string> candidates;
  for (const auto& e : fs::directory_iterator(path)) {
    if (e.is_regular_file() && IsRuleSourcePath(e.path().string()))
      candidates.push_back(e.path().string());
  }
  std::sort(candidates.begin(), candidates.end());
  for (const std::string& c : candidates) {
    // Cheap sniff: a manifest has `pack:` (YAML) or `pack ` (DSL) at the start of a line.
    std::string text;
    if (!ReadFile(c, &text)) continue;
    if (text.rfind("pack:", 0) == 0 || text.find("\npack:") != std::string::npos ||
        text.rfind("pack ", 0) == 0 || text.find("\npack ") != std::string::npos) {
      out.push_back(c);
    }
  }
  (void)sources;
  if (out.empty()) diags.Error(DiagCode::E1001, Loc{}, "no pack manifest in " + path);
  return out;
}

bool LoadPackSources(const std::string& manifest_path, SourceMap& sources, Diagnostics& diags,
                     PackSources* out) {
  ParsedFile parsed = LoadSourceFile(manifest_path, sources, diags);
  if (!std::holds_alternative<ManifestAst>(parsed)) {
    if (!diags.has_errors()) {
      diags.Error(DiagCode::E1004, Loc{}, manifest_path + " is a rule file, not a pack manifest");
    }
    return false;
  }
  out->manifest = std::get<ManifestAst>(std::move(parsed));
  const fs::path base = fs::path(manifest_path).parent_path();
  std::set<std::string> seen;
  std::vector<std::string> files;
  for (const Text& inc : out->manifest.includes) {
    fs::path p = base / inc.value;
    std::error_code ec;
    std::vector<std::string> matched;
    if (p.filename().string().find('*') != std::string::npos) {
      if (fs::is_directory(p.parent_path(), ec)) {
        for (const auto& e : fs::directory_iterator(p.parent_path())) {
          if ((e.is_symlink() || (e.is_regular_file() && IsRuleSourcePath(e.path().string()))) &&
              GlobMatch(p.filename().string(), e.path().filename().string())) {
            matched.push_back(e.path().string());
          }
        }
        std::sort(matched.begin(), matched.end());
      }
    } else if (fs::is_directory(p, ec)) {
      matched = RuleFilesIn(p);
    } else if (IsSymlink(p) || fs::is_regular_file(p, ec)) {
      matched.push_back(p.string());
    }
    if (matched.empty()) {
      diags.Error(DiagCode::E1005, inc.loc, "include '" + inc.value + "' matches no rule file",
                  "not found relative to " + (base.empty() ? std::string(".") : base.string()),
                  "includes are files, folders or name globs relative to the manifest");
      continue;
    }
    for (const std::string& m : matched) {
      std::string key = fs::weakly_canonical(m, ec).string();
      if (seen.insert(key).second) files.push_back(m);
    }
  }
  for (const std::string& f : files) {
    ParsedFile pf = LoadSourceFile(f, sources, diags);
    if (std::holds_alternative<RuleFileAst>(pf)) {
      out->files.push_back(std::get<RuleFileAst>(std::move(pf)));
    } else if (std::holds_alternative<ManifestAst>(pf)) {
      diags.Error(DiagCode::E1004, std::get<ManifestAst>(pf).loc,
                  "a manifest cannot be included as rules", "this file is a pack manifest");
    }
  }
  return true;
}

bool LoadRuleFiles(const std::vector<std::string>& paths, SourceMap& sources, Diagnostics& diags,
                   std::vector<RuleFileAst>* out) {
  for (const std::string& path : paths) {
    std::error_code ec;
    std::vector<std::string> files =
        fs::is_directory(path, ec) ? RuleFilesIn(path) : std::vector<std::string>{path};
    for (const std::string& f : files) {
      ParsedFile pf = LoadSourceFile(f, sources, diags);
      if (std::holds_alternative<RuleFileAst>(pf))
        out->push_back(std::get<RuleFileAst>(std::move(pf)));
    }
  }
  return !out->empty();
}

}  // namespace doberman::compiler
