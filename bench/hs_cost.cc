// doberman-hs-cost: where the Hyperscan floor's time and the pack's bytes go. Links the full
// Hyperscan (compiler) and not the runtime, so it recompiles the exported pattern sets itself, with
// the flags dobermanc uses (SOM_LEFTMOST where the pack records `som`, none for `every_match`
// patterns, SINGLEMATCH otherwise;
// generic platform).
//
//   doberman-hs-cost --patterns P.json --units U.json [--corpus NAME]... [--top N] [--json OUT]
//                    [--marginal]
//   doberman-hs-cost --patterns P.json --onepass-out DIR
//
// For each database as the pack groups them (one may serve several scopes; the export lists the
// groups): size and scan time per payload for the set as packed, the same set tuned for this CPU,
// the set without any SOM and the set with every pattern single-match; then every pattern compiled
// alone, ranked by its scan time over the database's units, to name the patterns that cost the
// most. With --marginal, also what each pattern adds to its database as packed: the set compiled
// without it, bytes and scan time saved (slow: one compile per pattern). A pattern's size alone
// says little about what it adds to a set; this does.
//
// --onepass-out writes the independent floor issue 17 measures against (not the pack's layout):
// for each call field, one database holding every trigger pattern of every scope the field feeds
// (command: command and command_text; prompt: prompt and prompt_text), all single-match without
// SOM, serialized as DIR/onepass-<field>.db. doberman-corpus-bench --onepass DIR scans each raw
// field once with it, with no normalization, decoding or folding.
#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "json.h"
#include "pack.h"

namespace {

using doberman::internal::JsonType;
using doberman::internal::JsonValue;

struct Pattern {
  std::string regex, rule;
  unsigned flags = 0;
  bool som = false;
  bool every_match = false;  // validated or mention-capped: every match reported, no SINGLEMATCH
};

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

bool ReadFile(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  std::fclose(f);
  return true;
}

// The units file writes each byte >= 0x80 as \u00XX; the JSON reader returns that code point in
// UTF-8.
std::string Latin1(const std::string& utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(utf8[i]);
    if (c >= 0xc0 && c <= 0xc3 && i + 1 < utf8.size()) {
      out.push_back(
          static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[i + 1]) & 0x3f)));
      ++i;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

struct Db {
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;
  size_t bytes = 0;
  double compile_ms = 0;
  std::string error;
  ~Db() {
    if (scratch) hs_free_scratch(scratch);
    if (db) hs_free_database(db);
  }
};

// kJoined: an experiment, not a layout the runtime can use as is. A payload's units of the
// database's scopes joined with '\n' and scanned once with every pattern in multiline mode: what
// one pass over a command's segments would cost. Not equivalent (a negated class or \s can match
// across the joint, and \z means the end of the last segment only).
// kSingle: every pattern single-match, SOM kept - what reporting every match end of the
// validated and mention-capped patterns costs.
enum class Variant { kPacked, kHost, kNoSom, kJoined, kSingle };

bool Compile(const std::vector<const Pattern*>& ps, Variant v, Db* out) {
  std::vector<const char*> exprs;
  std::vector<unsigned> flags, ids;
  for (size_t i = 0; i < ps.size(); ++i) {
    exprs.push_back(ps[i]->regex.c_str());
    const bool som = ps[i]->som && v != Variant::kNoSom;
    flags.push_back(ps[i]->flags | (v == Variant::kJoined ? HS_FLAG_MULTILINE : 0u) |
                    (som                                           ? HS_FLAG_SOM_LEFTMOST
                     : ps[i]->every_match && v != Variant::kSingle ? 0u
                                                                   : HS_FLAG_SINGLEMATCH));
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_platform_info_t platform{};
  if (v == Variant::kHost) {
    hs_populate_platform(&platform);
  } else {
    platform.tune = HS_TUNE_FAMILY_GENERIC;
    platform.cpu_features = 0;
  }
  hs_compile_error_t* err = nullptr;
  const uint64_t t0 = NowNs();
  if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()),
                       HS_MODE_BLOCK, &platform, &out->db, &err) != HS_SUCCESS) {
    out->error = err ? err->message : "compile error";
    hs_free_compile_error(err);
    return false;
  }
  out->compile_ms = static_cast<double>(NowNs() - t0) / 1e6;
  hs_database_size(out->db, &out->bytes);
  return hs_alloc_scratch(out->db, &out->scratch) == HS_SUCCESS;
}

int NoOp(unsigned, unsigned long long, unsigned long long, unsigned, void*) { return 0; }
int Count(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
  ++*static_cast<size_t*>(ctx);
  return 0;
}

// Nanoseconds per payload to scan `units` (grouped per payload), median of several repetitions.
double ScanNs(const Db& db, const std::vector<std::vector<std::string>>& payload_units,
              double budget_s) {
  if (payload_units.empty()) return 0;
  std::vector<double> reps;
  const uint64_t start = NowNs();
  do {
    const uint64_t t0 = NowNs();
    for (const auto& units : payload_units) {
      for (const std::string& u : units) {
        hs_scan(db.db, u.data(), static_cast<unsigned>(u.size()), 0, db.scratch, NoOp, nullptr);
      }
    }
    reps.push_back(static_cast<double>(NowNs() - t0) / static_cast<double>(payload_units.size()));
  } while (static_cast<double>(NowNs() - start) < budget_s * 1e9 || reps.size() < 3);
  std::sort(reps.begin(), reps.end());
  return reps[reps.size() / 2];
}

size_t Matches(const Db& db, const std::vector<std::vector<std::string>>& payload_units) {
  size_t n = 0;
  for (const auto& units : payload_units) {
    for (const std::string& u : units) {
      hs_scan(db.db, u.data(), static_cast<unsigned>(u.size()), 0, db.scratch, Count, &n);
    }
  }
  return n;
}

// What each pattern adds to the set `ps` as packed: compiled without it, the bytes and scan time
// (nanoseconds per payload, summed over the corpora) saved. Reported largest bytes first, `top` of
// them; returns the JSON member ",\"marginal\":[...]" for the database's object.
std::string MarginalCosts(const std::vector<const Pattern*>& ps,
                          const std::map<std::string, std::vector<std::vector<std::string>>>& units,
                          const std::map<std::string, size_t>& payload_count, double budget,
                          size_t top);

std::string Json(const std::string& s) {
  std::string out;
  doberman::internal::AppendJsonString(s, &out);
  return out;
}

double NsPerPayload(const Db& db,
                    const std::map<std::string, std::vector<std::vector<std::string>>>& units,
                    const std::map<std::string, size_t>& payload_count, double budget) {
  double ns = 0;
  for (const auto& [cname, u] : units) {
    ns += ScanNs(db, u, budget) * static_cast<double>(u.size()) /
          static_cast<double>(payload_count.at(cname));
  }
  return ns;
}

std::string MarginalCosts(const std::vector<const Pattern*>& ps,
                          const std::map<std::string, std::vector<std::vector<std::string>>>& units,
                          const std::map<std::string, size_t>& payload_count, double budget,
                          size_t top) {
  Db whole;
  if (ps.size() < 2 || !Compile(ps, Variant::kPacked, &whole)) return "";
  const double whole_ns = NsPerPayload(whole, units, payload_count, budget);
  struct Saving {
    const Pattern* p;
    long long bytes;
    double ns;
  };
  std::vector<Saving> savings;
  for (size_t i = 0; i < ps.size(); ++i) {
    std::vector<const Pattern*> rest = ps;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    Db db;
    if (!Compile(rest, Variant::kPacked, &db)) continue;
    savings.push_back({ps[i],
                       static_cast<long long>(whole.bytes) - static_cast<long long>(db.bytes),
                       whole_ns - NsPerPayload(db, units, payload_count, budget)});
  }
  std::sort(savings.begin(), savings.end(),
            [](const Saving& a, const Saving& b) { return a.bytes > b.bytes; });
  std::fprintf(stderr,
               "  marginal cost in the set (%zu bytes, %.0f ns per payload over all corpora):\n",
               whole.bytes, whole_ns);
  std::string json = ",\"marginal\":[";
  for (size_t k = 0; k < std::min(top, savings.size()); ++k) {
    const Saving& s = savings[k];
    std::fprintf(stderr, "    %8lld B %7.0f ns  %s  %s\n", s.bytes, s.ns, s.p->rule.c_str(),
                 s.p->regex.substr(0, 70).c_str());
    json += std::string(k ? "," : "") + "{\"rule\":" + Json(s.p->rule) +
            ",\"regex\":" + Json(s.p->regex) + ",\"bytes\":" + std::to_string(s.bytes) +
            ",\"ns_per_payload\":" + std::to_string(s.ns) + "}";
  }
  return json + "]";
}

// A call's fields, by doberman_field, as the one-pass files are named (doberman-corpus-bench reads
// them by the same names).
constexpr const char* kFieldNames[] = {"tool", "command", "path",  "content",
                                       "url",  "args",    "prompt"};

// Writes DIR/onepass-<field>.db (see the file comment). Trigger patterns are the any-patterns, and
// every pattern of a rule that has none (the all/none patterns of a rule with any-patterns cannot
// matter unless one of those matched), whatever layout the pack chose. The scopes a field feeds are
// the runtime's own (ScopesForFields).
int WriteOnePass(const JsonValue& pj, const std::string& dir) {
  const JsonValue* scopes = pj.Find("scopes");
  if (scopes == nullptr) return 1;
  std::map<std::string, bool> rule_has_any;
  for (const auto& [scope, list] : scopes->members) {
    for (const JsonValue& p : list.items) {
      const std::string* role = p.FindString("role");
      bool& has = rule_has_any[*p.FindString("rule")];
      has = has || role == nullptr || *role == "any";
    }
  }
  for (uint32_t field = 0; field < std::size(kFieldNames); ++field) {
    const char* field_name = kFieldNames[field];
    const uint32_t fed = doberman::internal::ScopesForFields(1u << field);
    std::map<size_t, std::pair<std::string, unsigned>> patterns;  // id -> regex, flags
    for (int scope = 0; scope < doberman::internal::kScopeCount; ++scope) {
      if ((fed & (1u << scope)) == 0) continue;
      const JsonValue* list = scopes->Find(doberman::internal::kScopeNames[scope]);
      if (list == nullptr) continue;
      for (const JsonValue& p : list->items) {
        const size_t id = std::stoul(p.Find("id")->text);
        const std::string* role = p.FindString("role");
        const bool trigger =
            role == nullptr || *role == "any" || !rule_has_any[*p.FindString("rule")];
        if (!trigger) continue;
        patterns[id] = {*p.FindString("regex"),
                        static_cast<unsigned>(std::stoul(p.Find("flags")->text))};
      }
    }
    if (patterns.empty()) continue;
    std::vector<const char*> exprs;
    std::vector<unsigned> flags, ids;
    for (const auto& [id, p] : patterns) {
      exprs.push_back(p.first.c_str());
      flags.push_back(p.second | HS_FLAG_SINGLEMATCH);
      ids.push_back(static_cast<unsigned>(id));
    }
    hs_platform_info_t platform{};
    platform.tune = HS_TUNE_FAMILY_GENERIC;
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    if (hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                         static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, &platform, &db,
                         &err) != HS_SUCCESS) {
      std::fprintf(stderr, "one-pass %s: %s\n", field_name, err ? err->message : "compile error");
      hs_free_compile_error(err);
      return 1;
    }
    char* bytes = nullptr;
    size_t size = 0;
    const bool serialized = hs_serialize_database(db, &bytes, &size) == HS_SUCCESS;
    hs_free_database(db);
    const std::string path = dir + "/onepass-" + field_name + ".db";
    FILE* out = serialized ? std::fopen(path.c_str(), "wb") : nullptr;
    bool written = out != nullptr && std::fwrite(bytes, 1, size, out) == size;
    if (out != nullptr) written &= std::fclose(out) == 0;
    std::free(bytes);
    if (!written) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    std::fprintf(stderr, "one-pass %-8s %4zu trigger patterns, %zu bytes\n", field_name,
                 patterns.size(), size);
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::string patterns_path, units_path, json_out, onepass_out;
  std::vector<std::string> corpora;
  size_t top = 8;
  double budget = 0.15;
  bool marginal = false;
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--marginal") {
      marginal = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) break;
    if (a == "--patterns")
      patterns_path = argv[i + 1];
    else if (a == "--units")
      units_path = argv[i + 1];
    else if (a == "--corpus")
      corpora.push_back(argv[i + 1]);
    else if (a == "--top")
      top = std::stoul(argv[i + 1]);
    else if (a == "--json")
      json_out = argv[i + 1];
    else if (a == "--budget")
      budget = std::stod(argv[i + 1]);
    else if (a == "--onepass-out")
      onepass_out = argv[i + 1];
  }
  if (patterns_path.empty() || (units_path.empty() && onepass_out.empty())) {
    std::fputs(
        "usage: doberman-hs-cost --patterns P.json --units U.json [--corpus NAME]... [--top N] "
        "[--json OUT] [--marginal]\n"
        "       doberman-hs-cost --patterns P.json --onepass-out DIR\n",
        stderr);
    return 2;
  }
  std::string text;
  JsonValue pj, uj;
  doberman::internal::JsonError err;
  doberman::internal::JsonLimits limits;
  limits.max_elements = 1u << 26;
  limits.max_bytes = 1u << 30;
  if (!ReadFile(patterns_path, &text) || !doberman::internal::ParseJson(text, limits, &pj, &err)) {
    std::fprintf(stderr, "cannot read %s\n", patterns_path.c_str());
    return 1;
  }
  text.clear();
  if (!onepass_out.empty()) return WriteOnePass(pj, onepass_out);
  if (!ReadFile(units_path, &text) || !doberman::internal::ParseJson(text, limits, &uj, &err)) {
    std::fprintf(stderr, "cannot read %s: %s\n", units_path.c_str(), err.message.c_str());
    return 1;
  }
  text.clear();
  // The databases as the pack groups them (one may serve several scopes); one per scope otherwise.
  struct Group {
    std::string name;
    std::vector<std::string> scopes;
    std::vector<Pattern> patterns;
  };
  std::map<std::string, std::vector<std::pair<size_t, Pattern>>> by_scope;
  if (const JsonValue* scopes = pj.Find("scopes")) {
    for (const auto& [scope, list] : scopes->members) {
      for (const JsonValue& p : list.items) {
        Pattern x;
        size_t id = by_scope[scope].size();
        if (const JsonValue* v = p.Find("id")) id = std::stoul(v->text);
        if (const std::string* v = p.FindString("regex")) x.regex = *v;
        if (const std::string* v = p.FindString("rule")) x.rule = *v;
        if (const JsonValue* f = p.Find("flags"))
          x.flags = static_cast<unsigned>(std::stoul(f->text));
        if (const JsonValue* v = p.Find("som")) x.som = v->boolean;
        if (const JsonValue* v = p.Find("every_match")) x.every_match = v->boolean;
        by_scope[scope].emplace_back(id, std::move(x));
      }
    }
  }
  std::vector<Group> groups;
  const JsonValue* dbs = pj.Find("databases");
  if (dbs != nullptr && !dbs->items.empty()) {
    for (const JsonValue& d : dbs->items) {
      Group g;
      std::map<size_t, Pattern> seen;
      if (const JsonValue* sc = d.Find("scopes")) {
        for (const JsonValue& s : sc->items) {
          g.scopes.push_back(s.text);
          g.name += (g.name.empty() ? "" : ",") + s.text;
          for (const auto& [id, p] : by_scope[s.text]) seen.emplace(id, p);
        }
      }
      // Exactly the database's patterns when the export lists them (groups by exact scope set, and
      // conditional databases, hold a subset of their scopes' patterns).
      if (const JsonValue* ids = d.Find("ids"); ids != nullptr && !ids->items.empty()) {
        std::map<size_t, Pattern> listed;
        for (const JsonValue& v : ids->items) {
          auto it = seen.find(std::stoul(v.text));
          if (it != seen.end()) listed.emplace(it->first, it->second);
        }
        seen = std::move(listed);
      }
      if (const JsonValue* c = d.Find("conditional"); c != nullptr && c->boolean)
        g.name += " (conditional)";
      for (auto& [id, p] : seen) g.patterns.push_back(p);
      if (!g.patterns.empty()) groups.push_back(std::move(g));
    }
  } else {
    for (const std::string_view name : doberman::internal::kScopeNames) {
      const std::string scope(name);
      auto it = by_scope.find(scope);
      if (it == by_scope.end()) continue;
      Group g{scope, {scope}, {}};
      for (const auto& [id, p] : it->second) g.patterns.push_back(p);
      groups.push_back(std::move(g));
    }
  }
  // corpus -> scope -> per payload units
  std::map<std::string, std::map<std::string, std::vector<std::vector<std::string>>>> units;
  std::map<std::string, size_t> payload_count;
  if (const JsonValue* cs = uj.Find("corpora")) {
    for (const auto& [name, payloads] : cs->members) {
      if (!corpora.empty() && std::find(corpora.begin(), corpora.end(), name) == corpora.end())
        continue;
      for (const JsonValue& p : payloads.items) {
        std::map<std::string, std::vector<std::string>> per_scope;
        if (const JsonValue* us = p.Find("units")) {
          for (const JsonValue& u : us->items) {
            if (u.items.size() == 2) per_scope[u.items[0].text].push_back(Latin1(u.items[1].text));
          }
        }
        for (auto& [scope, v] : per_scope) units[name][scope].push_back(std::move(v));
        ++payload_count[name];
      }
    }
  }

  std::string json = "{\"scopes\":{";
  bool first_scope = true;
  for (const Group& group : groups) {
    const std::string& scope = group.name;
    std::vector<const Pattern*> ps;
    size_t som = 0;
    for (const Pattern& p : group.patterns) {
      ps.push_back(&p);
      som += p.som;
    }
    // This database's units: those of every scope it serves.
    std::map<std::string, std::vector<std::vector<std::string>>> group_units;
    for (auto& [cname, per_scope] : units) {
      for (const std::string& sc : group.scopes) {
        auto u = per_scope.find(sc);
        if (u == per_scope.end()) continue;
        for (const auto& v : u->second) group_units[cname].push_back(v);
      }
    }
    std::fprintf(stderr, "\ndatabase %s: %zu patterns (%zu with SOM)\n", scope.c_str(), ps.size(),
                 som);
    if (!first_scope) json += ",";
    first_scope = false;
    json += Json(scope) + ":{\"patterns\":" + std::to_string(ps.size()) +
            ",\"som\":" + std::to_string(som) + ",\"variants\":{";
    const std::pair<Variant, const char*> variants[] = {{Variant::kPacked, "packed"},
                                                        {Variant::kHost, "host"},
                                                        {Variant::kNoSom, "no_som"},
                                                        {Variant::kJoined, "joined"},
                                                        {Variant::kSingle, "single"}};
    bool first_variant = true;
    for (const auto& [v, vname] : variants) {
      Db db;
      if (!Compile(ps, v, &db)) {
        std::fprintf(stderr, "  %-7s does not compile: %s\n", vname, db.error.c_str());
        continue;
      }
      if (!first_variant) json += ",";
      first_variant = false;
      json += Json(vname) + ":{\"bytes\":" + std::to_string(db.bytes) +
              ",\"compile_ms\":" + std::to_string(db.compile_ms) + ",\"ns_per_payload\":{";
      std::fprintf(stderr, "  %-7s %9zu bytes, compiled in %7.1f ms;", vname, db.bytes,
                   db.compile_ms);
      bool first_corpus = true;
      for (auto& [cname, per_payload] : group_units) {
        std::vector<std::vector<std::string>> joined;
        if (v == Variant::kJoined) {
          for (const auto& units_of_payload : per_payload) {
            std::string all;
            for (const std::string& unit : units_of_payload)
              all += (all.empty() ? "" : "\n") + unit;
            joined.push_back({all});
          }
        }
        const auto& u = v == Variant::kJoined ? joined : per_payload;
        const double ns = ScanNs(db, u, budget) * static_cast<double>(u.size()) /
                          static_cast<double>(payload_count[cname]);
        std::fprintf(stderr, " %s %.0f ns", cname.c_str(), ns);
        if (!first_corpus) json += ",";
        first_corpus = false;
        json += Json(cname) + ":" + std::to_string(ns);
      }
      std::fputs("\n", stderr);
      json += "}}";
    }
    // A database shared by several scopes scans every unit with every scope's patterns (the
    // callback filters by scope). The alternative, one database per scope: each scope's own set
    // over its own units.
    if (group.scopes.size() > 1) {
      size_t bytes = 0;
      std::map<std::string, double> ns_sum;
      bool compiled = true;
      for (const std::string& sc : group.scopes) {
        std::vector<const Pattern*> own;
        for (const auto& [id, p] : by_scope[sc]) own.push_back(&p);
        if (own.empty()) continue;
        Db db;
        if (!Compile(own, Variant::kPacked, &db)) {
          compiled = false;
          break;
        }
        bytes += db.bytes;
        for (auto& [cname, per_scope] : units) {
          auto u = per_scope.find(sc);
          if (u == per_scope.end()) continue;
          ns_sum[cname] += ScanNs(db, u->second, budget) * static_cast<double>(u->second.size()) /
                           static_cast<double>(payload_count[cname]);
        }
      }
      if (compiled) {
        json += std::string(first_variant ? "" : ",") +
                "\"per_scope\":{\"bytes\":" + std::to_string(bytes) + ",\"ns_per_payload\":{";
        std::fprintf(stderr, "  per-scope databases instead: %zu bytes;", bytes);
        bool first = true;
        for (auto& [cname, ns] : ns_sum) {
          json += std::string(first ? "" : ",") + Json(cname) + ":" + std::to_string(ns);
          first = false;
          std::fprintf(stderr, " %s %.0f ns", cname.c_str(), ns);
        }
        std::fputs("\n", stderr);
        json += "}}";
      }
    }
    json += "},\"top\":{";
    // Every pattern alone, over each corpus's units for this scope.
    bool first_corpus = true;
    for (auto& [cname, u] : group_units) {
      const double per = static_cast<double>(u.size()) / static_cast<double>(payload_count[cname]);
      struct Cost {
        const Pattern* p;
        double ns;
        size_t bytes, matches;
      };
      std::vector<Cost> costs;
      for (const Pattern* p : ps) {
        Db db;
        if (!Compile({p}, Variant::kPacked, &db)) continue;
        costs.push_back({p, ScanNs(db, u, 0.002) * per, db.bytes, Matches(db, u)});
      }
      std::sort(costs.begin(), costs.end(),
                [](const Cost& a, const Cost& b) { return a.ns > b.ns; });
      if (!first_corpus) json += ",";
      first_corpus = false;
      json += Json(cname) + ":[";
      std::fprintf(stderr, "  costliest alone on %s:\n", cname.c_str());
      for (size_t k = 0; k < std::min(top, costs.size()); ++k) {
        const Cost& c = costs[k];
        std::fprintf(stderr, "    %9.0f ns %8zu B %6zu matches %s%s  %s\n", c.ns, c.bytes,
                     c.matches, c.p->som ? "[som] " : "", c.p->rule.c_str(),
                     c.p->regex.substr(0, 70).c_str());
        if (k) json += ",";
        json += "{\"rule\":" + Json(c.p->rule) + ",\"regex\":" + Json(c.p->regex) +
                ",\"som\":" + (c.p->som ? "true" : "false") +
                ",\"ns_per_payload\":" + std::to_string(c.ns) +
                ",\"bytes\":" + std::to_string(c.bytes) +
                ",\"matches\":" + std::to_string(c.matches) + "}";
      }
      json += "]";
    }
    json += "}";
    if (marginal) json += MarginalCosts(ps, group_units, payload_count, budget, top);
    json += "}";
  }
  json += "}}\n";
  if (!json_out.empty()) {
    FILE* f = std::fopen(json_out.c_str(), "w");
    if (f == nullptr) return 1;
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
