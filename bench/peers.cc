// Peer engines: see peers.h. Each engine gets exactly the per-scope pattern lists the pack's
// Hyperscan databases were compiled from, with the same flags (caseless, dotall, multiline,
// utf8/ucp).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "peers.h"

#include <pcre2.h>
#include <re2/re2.h>
#include <re2/set.h>
#include <yara.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

namespace doberman::bench {
namespace {

// Hyperscan flag bits (hs_compile.h; the runtime headers do not carry them).
constexpr unsigned kHsCaseless = 1, kHsDotall = 2, kHsMultiline = 4, kHsUtf8 = 32, kHsUcp = 64;

double MsSince(uint64_t start_ns) { return static_cast<double>(NowNs() - start_ns) / 1e6; }

std::string Failure(int scope, const std::string& regex, const std::string& why) {
  return std::string(kScopeNames[scope]) + ": " + regex + ": " + why;
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// ---- RE2::Set -------------------------------------------------------------------------------
// One set per scope and encoding: Hyperscan patterns without the utf8 flag match bytes (RE2
// Latin-1), with it they match UTF-8 (RE2's default). Per-pattern flags become inline (?ism).
class Re2Engine : public Engine {
 public:
  explicit Re2Engine(const PatternSets& sets) {
    const uint64_t start = NowNs();
    for (int scope = 0; scope < kScopeCount; ++scope) {
      for (int utf8 = 0; utf8 < 2; ++utf8) {
        RE2::Options options;
        options.set_log_errors(false);
        options.set_max_mem(int64_t{1} << 30);  // a Set has no NFA fallback: give its DFA room
        options.set_encoding(utf8 ? RE2::Options::EncodingUTF8 : RE2::Options::EncodingLatin1);
        auto set = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
        int added = 0;
        for (const PatternSpec& p : sets.scopes[scope]) {
          const bool wants_utf8 = (p.flags & (kHsUtf8 | kHsUcp)) != 0;
          if (wants_utf8 != (utf8 == 1)) continue;
          ++stats_.patterns_total;
          std::string inline_flags;
          if (p.flags & kHsCaseless) inline_flags += 'i';
          if (p.flags & kHsDotall) inline_flags += 's';
          if (p.flags & kHsMultiline) inline_flags += 'm';
          std::string re = inline_flags.empty() ? p.regex : "(?" + inline_flags + ")" + p.regex;
          std::string error;
          if (set->Add(re, &error) < 0) {
            stats_.failures.push_back(Failure(scope, p.regex, error));
            continue;
          }
          ++added;
          ++stats_.patterns_compiled;
        }
        if (added == 0) continue;
        if (!set->Compile()) {
          stats_.failures.push_back(
              Failure(scope, "(whole set)", "RE2::Set::Compile failed (memory)"));
          stats_.patterns_compiled -= added;
          continue;
        }
        sets_[scope].push_back(std::move(set));
      }
    }
    stats_.build_ms = MsSince(start);
  }
  std::string name() const override { return "re2"; }
  int Scan(int scope, std::string_view text) override {
    int n = 0;
    for (const auto& set : sets_[scope]) {
      matches_.clear();
      RE2::Set::ErrorInfo info{};
      if (!set->Match(re2::StringPiece(text.data(), text.size()), &matches_, &info)) {
        if (info.kind != RE2::Set::kNoError) return -1;
      }
      n += static_cast<int>(matches_.size());
    }
    return n;
  }

 private:
  std::vector<std::unique_ptr<RE2::Set>> sets_[kScopeCount];
  std::vector<int> matches_;
};

// ---- PCRE2 with JIT, one pattern at a time ------------------------------------------------------
class Pcre2Engine : public Engine {
 public:
  explicit Pcre2Engine(const PatternSets& sets) {
    const uint64_t start = NowNs();
    match_data_ = pcre2_match_data_create(4, nullptr);
    jit_stack_ = pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr);
    match_context_ = pcre2_match_context_create(nullptr);
    pcre2_jit_stack_assign(match_context_, nullptr, jit_stack_);
    for (int scope = 0; scope < kScopeCount; ++scope) {
      for (const PatternSpec& p : sets.scopes[scope]) {
        ++stats_.patterns_total;
        uint32_t options = 0;
        if (p.flags & kHsCaseless) options |= PCRE2_CASELESS;
        if (p.flags & kHsDotall) options |= PCRE2_DOTALL;
        if (p.flags & kHsMultiline) options |= PCRE2_MULTILINE;
        if (p.flags & (kHsUtf8 | kHsUcp)) options |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
        if (p.flags & kHsUcp) options |= PCRE2_UCP;
        int error = 0;
        PCRE2_SIZE offset = 0;
        pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.regex.data()),
                                         p.regex.size(), options, &error, &offset, nullptr);
        if (code == nullptr) {
          PCRE2_UCHAR msg[256];
          pcre2_get_error_message(error, msg, sizeof msg);
          stats_.failures.push_back(Failure(scope, p.regex, reinterpret_cast<char*>(msg)));
          continue;
        }
        Compiled c{code, pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0};
        if (!c.jit) ++no_jit_;
        codes_[scope].push_back(c);
        ++stats_.patterns_compiled;
      }
    }
    stats_.build_ms = MsSince(start);
    if (no_jit_ > 0) std::fprintf(stderr, "pcre2: %zu patterns run without JIT\n", no_jit_);
  }
  ~Pcre2Engine() override {
    for (auto& v : codes_) {
      for (Compiled& c : v) pcre2_code_free(c.code);
    }
    pcre2_match_data_free(match_data_);
    pcre2_match_context_free(match_context_);
    pcre2_jit_stack_free(jit_stack_);
  }
  std::string name() const override { return "pcre2"; }
  int Scan(int scope, std::string_view text) override {
    int n = 0;
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    for (const Compiled& c : codes_[scope]) {
      int rc =
          c.jit ? pcre2_jit_match(c.code, subject, text.size(), 0, 0, match_data_, match_context_)
                : pcre2_match(c.code, subject, text.size(), 0, 0, match_data_, match_context_);
      if (rc >= 0) {
        ++n;
      } else if (rc != PCRE2_ERROR_NOMATCH) {
        return -1;
      }
    }
    return n;
  }

 private:
  struct Compiled {
    pcre2_code* code;
    bool jit;
  };
  std::vector<Compiled> codes_[kScopeCount];
  pcre2_match_data* match_data_ = nullptr;
  pcre2_match_context* match_context_ = nullptr;
  pcre2_jit_stack* jit_stack_ = nullptr;
  size_t no_jit_ = 0;
};

// ---- YARA --------------------------------------------------------------------------------------
struct YaraInit {
  YaraInit() { ok = yr_initialize() == ERROR_SUCCESS; }
  bool ok = false;
};
bool EnsureYara() {
  static YaraInit init;
  return init.ok;
}

void YaraCompilerCallback(int error_level, const char* /*file*/, int /*line*/,
                          const YR_RULE* /*rule*/, const char* message, void* user_data) {
  if (error_level == YARA_ERROR_LEVEL_ERROR) *static_cast<std::string*>(user_data) = message;
}

std::string YaraRuleText(size_t index, const std::string& string_def) {
  return "rule p" + std::to_string(index) + " { strings: $a = " + string_def + " condition: $a }\n";
}

// Compiles the translatable patterns of each scope into one YARA ruleset per scope. Every pattern
// is first compiled alone so that a failure is attributed to it (a YARA compiler is unusable after
// an error).
bool BuildYara(const PatternSets& sets, YR_RULES* out[kScopeCount], EngineStats* stats) {
  if (!EnsureYara()) return false;
  for (int scope = 0; scope < kScopeCount; ++scope) {
    out[scope] = nullptr;
    std::string source;
    size_t count = 0;
    for (const PatternSpec& p : sets.scopes[scope]) {
      ++stats->patterns_total;
      std::string def, why;
      if (!TranslateToYara(p, &def, &why)) {
        stats->failures.push_back(Failure(scope, p.regex, "not translatable: " + why));
        continue;
      }
      std::string rule = YaraRuleText(count, def);
      YR_COMPILER* c = nullptr;
      if (yr_compiler_create(&c) != ERROR_SUCCESS) return false;
      std::string error;
      yr_compiler_set_callback(c, YaraCompilerCallback, &error);
      const int errors = yr_compiler_add_string(c, rule.c_str(), nullptr);
      yr_compiler_destroy(c);
      if (errors > 0) {
        stats->failures.push_back(Failure(scope, p.regex, "YARA: " + error + " (as " + def + ")"));
        continue;
      }
      source += rule;
      ++count;
      ++stats->patterns_compiled;
    }
    if (count == 0) continue;
    YR_COMPILER* c = nullptr;
    if (yr_compiler_create(&c) != ERROR_SUCCESS) return false;
    std::string error;
    yr_compiler_set_callback(c, YaraCompilerCallback, &error);
    if (yr_compiler_add_string(c, source.c_str(), nullptr) > 0 ||
        yr_compiler_get_rules(c, &out[scope]) != ERROR_SUCCESS) {
      std::fprintf(stderr, "yara: the %s ruleset does not compile: %s\n", kScopeNames[scope],
                   error.c_str());
      yr_compiler_destroy(c);
      return false;
    }
    yr_compiler_destroy(c);
  }
  return true;
}

int YaraScanCallback(YR_SCAN_CONTEXT* /*context*/, int message, void* /*message_data*/,
                     void* user_data) {
  if (message == CALLBACK_MSG_RULE_MATCHING) ++*static_cast<int*>(user_data);
  return CALLBACK_CONTINUE;
}

class YaraEngine : public Engine {
 public:
  YaraEngine() = default;
  ~YaraEngine() override {
    for (int s = 0; s < kScopeCount; ++s) {
      if (scanners_[s] != nullptr) yr_scanner_destroy(scanners_[s]);
      if (rules_[s] != nullptr) yr_rules_destroy(rules_[s]);
    }
  }
  bool Init(const PatternSets& sets) {
    const uint64_t start = NowNs();
    if (!BuildYara(sets, rules_, &stats_)) return false;
    stats_.build_ms = MsSince(start);
    return MakeScanners();
  }
  bool Load(const std::string& dir) {
    if (!EnsureYara()) return false;
    const uint64_t start = NowNs();
    for (int s = 0; s < kScopeCount; ++s) {
      std::string path = dir + "/yara-" + kScopeNames[s] + ".yarc";
      if (!std::filesystem::exists(path)) continue;
      if (yr_rules_load(path.c_str(), &rules_[s]) != ERROR_SUCCESS) return false;
    }
    stats_.build_ms = MsSince(start);
    return MakeScanners();
  }
  std::string name() const override { return "yara"; }
  int Scan(int scope, std::string_view text) override {
    YR_SCANNER* scanner = scanners_[scope];
    if (scanner == nullptr) return 0;
    count_ = 0;
    int rc =
        yr_scanner_scan_mem(scanner, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    return rc == ERROR_SUCCESS ? count_ : -1;
  }
  YR_RULES* rules(int s) const { return rules_[s]; }

 private:
  bool MakeScanners() {
    for (int s = 0; s < kScopeCount; ++s) {
      if (rules_[s] == nullptr) continue;
      if (yr_scanner_create(rules_[s], &scanners_[s]) != ERROR_SUCCESS) return false;
      yr_scanner_set_callback(scanners_[s], YaraScanCallback, &count_);
      yr_scanner_set_flags(scanners_[s], SCAN_FLAGS_FAST_MODE);  // one match per string is enough
    }
    return true;
  }
  YR_RULES* rules_[kScopeCount] = {};
  YR_SCANNER* scanners_[kScopeCount] = {};
  int count_ = 0;
};

// ---- Hyperscan floor ---------------------------------------------------------------------------
int NoOp(unsigned int, unsigned long long, unsigned long long, unsigned int, void*) { return 0; }
struct CountContext {
  int n = 0;
  const std::vector<uint8_t>* in_scope = nullptr;  // per Hyperscan id; empty: count every match
};
int Flag(unsigned int id, unsigned long long, unsigned long long, unsigned int, void* ctx) {
  auto* c = static_cast<CountContext*>(ctx);
  if (c->in_scope == nullptr || c->in_scope->empty() ||
      (id < c->in_scope->size() && (*c->in_scope)[id]))
    ++c->n;
  return 0;
}

class HsFloorEngine : public Engine {
 public:
  using ScopeDbs = std::array<std::vector<hs_database_t*>, kScopeCount>;
  // Borrows `dbs` (a scope is scanned with each of its databases; several scopes may share one);
  // Own() hands over the ones this engine must free.
  explicit HsFloorEngine(const ScopeDbs& dbs) {
    for (int s = 0; s < kScopeCount; ++s) {
      for (hs_database_t* db : dbs[s]) {
        scopes_[s].push_back({db, {}});
        if (hs_alloc_scratch(db, &scratch_) != HS_SUCCESS) ok_ = false;
      }
    }
  }
  ~HsFloorEngine() override {
    if (scratch_ != nullptr) hs_free_scratch(scratch_);
    for (hs_database_t* db : owned_) hs_free_database(db);
  }
  bool ok() const { return ok_; }
  std::string name() const override { return "hyperscan"; }
  int Scan(int scope, std::string_view text) override {
    int n = 0;
    for (const FloorDb& d : scopes_[scope]) {
      // Timed runs scan the trigger databases only (the least the runtime does); the agreement
      // count also scans the conditional ones, so that it covers every pattern the peers get.
      if (d.conditional && !counting_) continue;
      CountContext c;
      c.in_scope = &d.in_scope;
      hs_error_t rc = hs_scan(d.db, text.data(), static_cast<unsigned>(text.size()), 0, scratch_,
                              counting_ ? Flag : NoOp, &c);
      if (rc != HS_SUCCESS) return -1;
      n += c.n;
    }
    return n;
  }
  void SetCounting(bool c) override { counting_ = c; }
  void Own(hs_database_t* db) { owned_.push_back(db); }
  // A database serving several scopes holds other scopes' patterns too; the runtime drops their
  // matches in its callback, and so does the agreement count (the timed no-op callback does not
  // look).
  void SetScopeFilter(int scope, size_t index, std::vector<uint8_t> in_scope, bool conditional) {
    scopes_[scope][index].in_scope = std::move(in_scope);
    scopes_[scope][index].conditional = conditional;
  }
  EngineStats& mutable_stats() { return stats_; }

 private:
  struct FloorDb {
    hs_database_t* db;
    std::vector<uint8_t> in_scope;  // per Hyperscan id; empty: count every match
    bool conditional = false;
  };
  std::array<std::vector<FloorDb>, kScopeCount> scopes_;
  std::vector<hs_database_t*> owned_;
  hs_scratch_t* scratch_ = nullptr;
  bool ok_ = true;
  bool counting_ = false;
};

}  // namespace

std::unique_ptr<Engine> MakeRe2Engine(const PatternSets& sets) {
  return std::make_unique<Re2Engine>(sets);
}
std::unique_ptr<Engine> MakePcre2Engine(const PatternSets& sets) {
  return std::make_unique<Pcre2Engine>(sets);
}

std::unique_ptr<Engine> MakeYaraEngine(const PatternSets& sets) {
  auto e = std::make_unique<YaraEngine>();
  if (!e->Init(sets)) {
    std::fprintf(stderr, "yara: cannot build the rules\n");
    return nullptr;
  }
  return e;
}

std::unique_ptr<Engine> LoadYaraEngine(const std::string& dir) {
  auto e = std::make_unique<YaraEngine>();
  if (!e->Load(dir)) {
    std::fprintf(stderr, "yara: cannot load compiled rules from %s\n", dir.c_str());
    return nullptr;
  }
  return e;
}

bool SaveYaraRules(const PatternSets& sets, const std::string& dir, EngineStats* stats) {
  YR_RULES* rules[kScopeCount] = {};
  if (!BuildYara(sets, rules, stats)) return false;
  bool ok = true;
  for (int s = 0; s < kScopeCount; ++s) {
    if (rules[s] == nullptr) continue;
    std::string path = dir + "/yara-" + kScopeNames[s] + ".yarc";
    if (yr_rules_save(rules[s], path.c_str()) != ERROR_SUCCESS) ok = false;
    yr_rules_destroy(rules[s]);
  }
  return ok;
}

std::unique_ptr<Engine> MakeHsFloorEngine(const internal::Pack& pack) {
  HsFloorEngine::ScopeDbs dbs;
  size_t patterns = 0;
  for (const auto& d : pack.databases) patterns += d->pattern_ids.size();
  // Per scope: its trigger databases, then its conditional ones (scanned only when counting).
  std::array<std::vector<const internal::PackDatabase*>, kScopeCount> lists;
  for (int s = 0; s < kScopeCount; ++s) {
    lists[s] = pack.scopes[s].dbs;
    lists[s].insert(lists[s].end(), pack.scopes[s].condition_dbs.begin(),
                    pack.scopes[s].condition_dbs.end());
    for (const internal::PackDatabase* d : lists[s]) dbs[s].push_back(d->db);
  }
  auto e = std::make_unique<HsFloorEngine>(dbs);
  if (!e->ok()) return nullptr;
  for (int s = 0; s < kScopeCount; ++s) {
    for (size_t i = 0; i < lists[s].size(); ++i) {
      std::vector<uint8_t> in_scope;
      for (uint32_t p : lists[s][i]->pattern_ids) {
        in_scope.push_back((pack.rules[pack.patterns[p].rule].scopes & (1u << s)) != 0);
      }
      e->SetScopeFilter(s, i, std::move(in_scope), lists[s][i]->conditional);
    }
  }
  e->mutable_stats().patterns_total = e->mutable_stats().patterns_compiled = patterns;
  return e;
}

// Layout: hs-<n>.db per pack database; hs-scopes.txt has one "<scope> <file>" line per database a
// scope is scanned with, in scan order.
bool SaveHsDatabases(const internal::Pack& pack, const std::string& dir) {
  std::ofstream map(dir + "/hs-scopes.txt");
  for (size_t i = 0; i < pack.databases.size(); ++i) {
    const std::string file = "hs-" + std::to_string(i) + ".db";
    char* bytes = nullptr;
    size_t size = 0;
    if (hs_serialize_database(pack.databases[i]->db, &bytes, &size) != HS_SUCCESS) return false;
    std::ofstream out(dir + "/" + file, std::ios::binary);
    out.write(bytes, static_cast<std::streamsize>(size));
    std::free(bytes);
    if (!out) return false;
  }
  for (int s = 0; s < kScopeCount; ++s) {
    for (const internal::PackDatabase* d : pack.scopes[s].dbs) {
      for (size_t i = 0; i < pack.databases.size(); ++i) {
        if (pack.databases[i].get() == d) map << kScopeNames[s] << " hs-" << i << ".db\n";
      }
    }
  }
  return static_cast<bool>(map);
}

std::unique_ptr<Engine> LoadHsFloorEngine(const std::string& dir) {
  HsFloorEngine::ScopeDbs dbs;
  std::map<std::string, hs_database_t*> by_file;
  const uint64_t start = NowNs();
  std::ifstream map(dir + "/hs-scopes.txt");
  std::string scope, file;
  while (map >> scope >> file) {
    const int s = ScopeIndexOf(scope);
    if (s < 0) continue;
    auto it = by_file.find(file);
    if (it == by_file.end()) {
      std::string bytes;
      hs_database_t* db = nullptr;
      if (!ReadFile(dir + "/" + file, &bytes) ||
          hs_deserialize_database(bytes.data(), bytes.size(), &db) != HS_SUCCESS) {
        return nullptr;
      }
      it = by_file.emplace(file, db).first;
    }
    dbs[s].push_back(it->second);
  }
  auto e = std::make_unique<HsFloorEngine>(dbs);
  for (auto& [f, db] : by_file) e->Own(db);
  if (!e->ok()) return nullptr;
  e->mutable_stats().build_ms = MsSince(start);
  return e;
}

// ---- Hyperscan syntax -> YARA regex
// ---------------------------------------------------------------
namespace {

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

std::string HexByte(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", v);
  return buf;
}

// A literal character written so that YARA reads it literally.
std::string Literal(char c, bool in_class) {
  const std::string meta = in_class ? "\\]^-[" : "\\.^$|?*+()[]{}";
  if (c == '/') return "\\/";
  if (meta.find(c) != std::string::npos) return std::string("\\") + c;
  unsigned char u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) return HexByte(u);
  return std::string(1, c);
}

// Translates the escape at regex[i] (a backslash); appends to `out` and advances `i` past it.
bool Escape(const std::string& re, size_t* i, bool in_class, std::string* out, std::string* why) {
  size_t k = *i + 1;
  if (k >= re.size()) {
    *why = "trailing backslash";
    return false;
  }
  char c = re[k];
  *i = k + 1;
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 's':
    case 'S':
      *out += '\\';
      *out += c;
      return true;
    case 'b':
    case 'B':
      if (in_class) {
        *why = "\\b inside a class";
        return false;
      }
      *out += '\\';
      *out += c;
      return true;
    case 'n':
    case 't':
    case 'r':
    case 'f':
    case 'a':
      *out += '\\';
      *out += c;
      return true;
    case 'e':
      *out += "\\x1b";
      return true;
    case 'v':
      *out += "\\x0b";
      return true;
    case 'A':
      if (in_class || k != 1) {
        *why = "\\A not at the start";
        return false;
      }
      *out += '^';
      return true;
    case 'z':
    case 'Z':
      if (in_class) {
        *why = "\\z in a class";
        return false;
      }
      *out += '$';
      return true;
    case 'x': {
      unsigned v = 0;
      if (k + 1 < re.size() && re[k + 1] == '{') {
        size_t close = re.find('}', k + 2);
        if (close == std::string::npos) {
          *why = "bad \\x{...}";
          return false;
        }
        v = static_cast<unsigned>(std::stoul(re.substr(k + 2, close - k - 2), nullptr, 16));
        *i = close + 1;
      } else if (k + 2 < re.size() && IsHex(re[k + 1]) && IsHex(re[k + 2])) {
        v = static_cast<unsigned>(std::stoul(re.substr(k + 1, 2), nullptr, 16));
        *i = k + 3;
      } else {
        *why = "bad \\x";
        return false;
      }
      if (v > 0xff) {
        *why = "code point above \\xff";
        return false;
      }
      *out += HexByte(v);
      return true;
    }
    case 'Q': {
      size_t end = re.find("\\E", k + 1);
      std::string lit =
          re.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1);
      for (char l : lit) *out += Literal(l, in_class);
      *i = end == std::string::npos ? re.size() : end + 2;
      return true;
    }
    default:
      break;
  }
  if (std::isalnum(static_cast<unsigned char>(c))) {
    *why = std::string("escape \\") + c + " has no YARA equivalent";
    return false;
  }
  *out += Literal(c, in_class);  // an escaped punctuation character: a literal
  return true;
}

bool PosixClass(const std::string& name, std::string* out) {
  static const std::pair<const char*, const char*> kClasses[] = {{"alpha", "a-zA-Z"},
                                                                 {"digit", "0-9"},
                                                                 {"alnum", "a-zA-Z0-9"},
                                                                 {"upper", "A-Z"},
                                                                 {"lower", "a-z"},
                                                                 {"space", "\\s"},
                                                                 {"xdigit", "0-9A-Fa-f"},
                                                                 {"word", "\\w"},
                                                                 {"blank", " \\t"},
                                                                 {"punct", "!-\\/:-@\\[-`{-~"},
                                                                 {"cntrl", "\\x00-\\x1f\\x7f"},
                                                                 {"print", " -~"},
                                                                 {"graph", "!-~"}};
  for (const auto& [n, v] : kClasses) {
    if (name == n) {
      *out += v;
      return true;
    }
  }
  return false;
}

}  // namespace

bool TranslateToYara(const PatternSpec& p, std::string* yara_string, std::string* why) {
  const std::string& re = p.regex;
  bool nocase = (p.flags & kHsCaseless) != 0;
  bool dotall = (p.flags & kHsDotall) != 0;
  bool multiline = (p.flags & kHsMultiline) != 0;
  if ((p.flags & (kHsUtf8 | kHsUcp)) != 0 && !IsAscii(re)) {
    *why = "UTF-8 mode with non-ASCII pattern";
    return false;
  }
  std::string out;
  size_t i = 0;
  // Leading inline flags, e.g. (?i) or (?is).
  while (i + 2 < re.size() && re[i] == '(' && re[i + 1] == '?') {
    size_t close = i + 2;
    while (close < re.size() && std::strchr("imsx", re[close]) != nullptr) ++close;
    if (close == i + 2 || close >= re.size() || re[close] != ')') break;
    for (size_t k = i + 2; k < close; ++k) {
      if (re[k] == 'i') nocase = true;
      if (re[k] == 's') dotall = true;
      if (re[k] == 'm') multiline = true;
      if (re[k] == 'x') {
        *why = "verbose mode (?x)";
        return false;
      }
    }
    i = close + 1;
  }
  const size_t body_start = i;
  bool in_class = false;
  size_t class_start = 0;
  while (i < re.size()) {
    const char c = re[i];
    if (in_class) {
      if (c == '\\') {
        if (!Escape(re, &i, true, &out, why)) return false;
        continue;
      }
      if (c == '[' && i + 1 < re.size() && re[i + 1] == ':') {
        size_t close = re.find(":]", i + 2);
        if (close == std::string::npos || !PosixClass(re.substr(i + 2, close - i - 2), &out)) {
          *why = "unknown POSIX class";
          return false;
        }
        i = close + 2;
        continue;
      }
      if (c == ']' && i > class_start) {
        in_class = false;
        out += ']';
        ++i;
        continue;
      }
      if (c == '/') {
        out += "\\/";
      } else if (c == '[') {
        out += "\\[";
      } else {
        unsigned char u = static_cast<unsigned char>(c);
        out += (u < 0x20 || u >= 0x7f) ? HexByte(u) : std::string(1, c);
      }
      ++i;
      continue;
    }
    switch (c) {
      case '\\':
        if (re.compare(i, 2, "\\A") == 0 && i != body_start) {
          *why = "\\A not at the start";
          return false;
        }
        if (re.compare(i, 2, "\\A") == 0) {
          out += '^';
          i += 2;
          continue;
        }
        if (!Escape(re, &i, false, &out, why)) return false;
        continue;
      case '[':
        in_class = true;
        out += '[';
        ++i;
        if (i < re.size() && re[i] == '^') {
          out += '^';
          ++i;
        }
        class_start = i;  // a ']' right here is a literal
        if (i < re.size() && re[i] == ']') {
          out += "\\]";
          ++i;
        }
        continue;
      case '(':
        if (i + 1 < re.size() && re[i + 1] == '?') {
          if (i + 2 < re.size() && re[i + 2] == ':') {
            out += '(';
            i += 3;
            continue;
          }
          if (re.compare(i, 4, "(?P<") == 0 || (re.compare(i, 3, "(?<") == 0 && i + 3 < re.size() &&
                                                re[i + 3] != '=' && re[i + 3] != '!')) {
            size_t close = re.find('>', i);
            if (close == std::string::npos) {
              *why = "bad named group";
              return false;
            }
            out += '(';
            i = close + 1;
            continue;
          }
          *why = "group (" + re.substr(i, std::min<size_t>(4, re.size() - i)) +
                 "...) (lookaround, inline flags or atomic group)";
          return false;
        }
        out += '(';
        ++i;
        continue;
      case '*':
      case '+':
      case '?':
      case '}':
        out += c;
        ++i;
        if (i < re.size() && re[i] == '+') {
          *why = "possessive quantifier";
          return false;
        }
        continue;
      case '^':
      case '$':
        // Multiline anchors also match next to a newline. YARA has no multiline mode and no
        // lookaround; consuming the newline instead changes the match span but not whether the
        // pattern matches, which is all a peer is asked.
        if (multiline)
          out += c == '^' ? "(^|\\n)" : "(\\n|$)";
        else
          out += c;
        ++i;
        continue;
      case '/':
        out += "\\/";
        ++i;
        continue;
      default: {
        unsigned char u = static_cast<unsigned char>(c);
        out += (u < 0x20 || u >= 0x7f) ? HexByte(u) : std::string(1, c);
        ++i;
        continue;
      }
    }
  }
  if (in_class) {
    *why = "unterminated class";
    return false;
  }
  *yara_string = "/" + out + "/";
  if (nocase) *yara_string += 'i';
  if (dotall) *yara_string += 's';
  return true;
}

}  // namespace doberman::bench
