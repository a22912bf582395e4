// Benchmark helpers: see bench_support.h.
#include "bench_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "decider.h"
#include "encoded_runs.h"
#include "json.h"
#include "key_file.h"
#include "unicode_fold.h"
#include "units.h"

namespace doberman::bench {

const char* const kScopeNames[kScopeCount] = {
    "tool", "command", "command_text", "path", "content", "url", "args", "prompt", "prompt_text"};

int ScopeIndexOf(std::string_view name) {
  for (int i = 0; i < kScopeCount; ++i) {
    if (name == kScopeNames[i]) return i;
  }
  return -1;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool WriteFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out);
}

LoadedPack::~LoadedPack() {
  doberman_scratch_free(scratch);
  doberman_pack_free(pack);
}

bool LoadPack(const std::string& pack_path, const std::string& pubkey_path, LoadedPack* out) {
  doberman_public_key key;
  std::string error;
  if (!internal::ReadPublicKeyFile(pubkey_path, &key, &error)) {
    std::fprintf(stderr, "cannot read public key %s: %s\n", pubkey_path.c_str(), error.c_str());
    return false;
  }
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &key;
  options.trusted_key_count = 1;
  char buf[512] = {0};
  doberman_status s =
      doberman_pack_load_file(pack_path.c_str(), &options, &out->pack, buf, sizeof buf);
  if (s != DOBERMAN_OK) {
    std::fprintf(stderr, "pack %s refused: %s (%s)\n", pack_path.c_str(), buf,
                 doberman_status_name(s));
    return false;
  }
  if (doberman_scratch_create(out->pack, &out->scratch) != DOBERMAN_OK) {
    std::fprintf(stderr, "cannot create scratch\n");
    return false;
  }
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

LoadedPack* BenchPackFromEnv() {
  // Kept for the process's lifetime: benchmarks run until exit.
  static LoadedPack* lp = [] {
    auto* p = new LoadedPack;
    if (Env("DOBERMAN_BENCH_PACK").empty() ||
        !LoadPack(Env("DOBERMAN_BENCH_PACK"), Env("DOBERMAN_BENCH_PUBKEY"), p)) {
      delete p;
      return static_cast<LoadedPack*>(nullptr);
    }
    return p;
  }();
  return lp;
}

void Payload::BuildViews() {
  arg_views.assign(calls.size(), {});
  prompt_views.assign(calls.size(), {});
  views.clear();
  input_bytes = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    views.push_back(calls[i].View(&arg_views[i], &prompt_views[i]));
    const guard::CallInput& c = calls[i];
    input_bytes +=
        c.tool.size() + c.command.size() + c.path.size() + c.content.size() + c.url.size();
    for (const std::string& a : c.args) input_bytes += a.size();
    for (const auto& p : c.prompt) input_bytes += p.text.size();
  }
}

bool ReadCorpus(const std::string& path, std::vector<Payload>* out, size_t* skipped,
                std::string* error) {
  std::string text;
  if (!ReadFile(path, &text)) {
    *error = "cannot read " + path;
    return false;
  }
  *skipped = 0;
  internal::JsonLimits limits;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    internal::JsonValue json;
    internal::JsonError jerr;
    if (!internal::ParseJson(line, limits, &json, &jerr)) {
      ++*skipped;
      continue;
    }
    const internal::JsonValue* payload = &json;
    Payload p;
    if (const internal::JsonValue* input = json.Find("input");
        input != nullptr && input->type == internal::JsonType::kObject &&
        json.Find("hook_event_name") == nullptr) {
      payload = input;
      if (const std::string* id = json.FindString("id")) p.id = *id;
    }
    if (p.id.empty()) p.id = path + ":" + std::to_string(line_no);
    guard::ParsedPayload parsed;
    std::string conv_error;
    if (!guard::ConvertPayload(*payload, guard::Host::kAny, &parsed, &conv_error) ||
        parsed.calls.empty()) {
      ++*skipped;
      continue;
    }
    p.payload_bytes = line.size();
    p.calls = std::move(parsed.calls);
    out->push_back(std::move(p));
  }
  for (Payload& p : *out) p.BuildViews();
  return true;
}

namespace {

using internal::StringOf;

// WalkCallUnits' visitor that keeps the units (the decider's own walk: nothing to keep in step).
class UnitLister {
 public:
  explicit UnitLister(std::vector<bench::Unit>* out) : out_(out) {}
  void Unit(int scope, doberman_field, uint32_t, std::string_view text, bool decoded,
            uint32_t origin_bit) {
    out_->push_back({scope, std::string(text), decoded, origin_bit});
  }
  void ScriptUnit(int scope, doberman_field field, uint32_t unit, std::string_view text,
                  uint32_t /*pipeline*/) {
    Unit(scope, field, unit, text, false, internal::kAllOrigins);
  }
  void Status(doberman_status) {}

 private:
  std::vector<bench::Unit>* out_;
};

}  // namespace

void BuildUnits(const internal::Pack& pack, const doberman_call& call, std::vector<Unit>* out) {
  internal::UnitBuffers buffers;
  UnitLister lister(out);
  internal::WalkCallUnits(pack, call, buffers, lister);
}

void BuildRawUnits(const doberman_call& call, std::vector<Unit>* out) {
  using namespace internal;
  auto add = [&](int scope, std::string_view text) {
    if (!text.empty()) out->push_back({scope, std::string(text), false});
  };
  add(kScopeTool, StringOf(call.tool));
  add(kScopeCommandText, StringOf(call.command));
  add(kScopeCommand, StringOf(call.command));
  if (!StringOf(call.path).empty()) {
    std::string canonical;
    CanonicalPath(StringOf(call.path), StringOf(call.cwd), &canonical);
    add(kScopePath, canonical);
  }
  add(kScopeContent, StringOf(call.content));
  add(kScopeUrl, StringOf(call.url));
  for (size_t i = 0; i < call.arg_count; ++i) add(kScopeArgs, StringOf(call.args[i]));
  for (size_t i = 0; i < call.prompt_count; ++i) {
    add(kScopePromptText, StringOf(call.prompt[i].text));
    std::string folded;
    FoldText(StringOf(call.prompt[i].text), &folded);
    add(kScopePrompt, folded);
  }
}

bool ReadPatternSets(const std::string& path, PatternSets* out, std::string* error) {
  std::string text;
  if (!ReadFile(path, &text)) {
    *error = "cannot read " + path;
    return false;
  }
  internal::JsonValue json;
  internal::JsonError jerr;
  internal::JsonLimits limits;
  limits.max_elements = 1u << 24;
  if (!internal::ParseJson(text, limits, &json, &jerr)) {
    *error = path + ": " + jerr.message;
    return false;
  }
  if (const internal::JsonValue* v = json.Find("rule_count")) out->rule_count = std::stoul(v->text);
  if (const internal::JsonValue* v = json.Find("pattern_count"))
    out->pattern_count = std::stoul(v->text);
  const internal::JsonValue* scopes = json.Find("scopes");
  if (scopes == nullptr || scopes->type != internal::JsonType::kObject) {
    *error = path + ": no \"scopes\" object";
    return false;
  }
  for (const auto& [name, list] : scopes->members) {
    int scope = ScopeIndexOf(name);
    if (scope < 0) continue;
    for (const internal::JsonValue& p : list.items) {
      PatternSpec spec;
      if (const std::string* s = p.FindString("regex")) spec.regex = *s;
      if (const internal::JsonValue* f = p.Find("flags"))
        spec.flags = static_cast<unsigned>(std::stoul(f->text));
      if (const std::string* s = p.FindString("role")) spec.role = *s;
      if (const std::string* s = p.FindString("rule")) spec.rule = *s;
      if (const internal::JsonValue* s = p.Find("som")) spec.som = s->boolean;
      out->scopes[scope].push_back(std::move(spec));
    }
  }
  return true;
}

Summary Summarize(std::vector<double> v) {
  Summary s;
  s.samples = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  for (double x : v) s.total_ns += x;
  auto pct = [&](double q) {
    // Nearest rank.
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    if (rank == 0) rank = 1;
    return v[std::min(rank, v.size()) - 1];
  };
  s.mean_ns = s.total_ns / static_cast<double>(v.size());
  s.calls_per_s = s.total_ns > 0 ? 1e9 * static_cast<double>(v.size()) / s.total_ns : 0;
  s.p50_ns = pct(0.50);
  s.p90_ns = pct(0.90);
  s.p99_ns = pct(0.99);
  s.p999_ns = pct(0.999);
  s.min_ns = v.front();
  s.max_ns = v.back();
  return s;
}

size_t CurrentRssBytes() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  size_t kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) {
      kb = std::strtoul(line + 6, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kb * 1024;
}

std::string JsonString(std::string_view s) {
  std::string out;
  internal::AppendJsonString(s, &out);
  return out;
}

std::string JsonBytes(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\u00";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace doberman::bench
