// `doberman-guard log` (contract in log_command.h).
#include "log_command.h"

#include <cstdio>
#include <ctime>
#include <string>

#include "json.h"
#include "state_dir.h"
#include "state_store.h"

namespace doberman::guard {
namespace {

// "10m", "2h", "3d", "45s" -> milliseconds; false when it is not one of those.
bool ParseAge(const std::string& v, int64_t* ms) {
  if (v.size() < 2) return false;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9' || n > 100000000) return false;
    n = n * 10 + (v[i] - '0');
  }
  const char unit = v.back();
  const int64_t scale = unit == 's'   ? 1
                        : unit == 'm' ? 60
                        : unit == 'h' ? 3600
                        : unit == 'd' ? 86400
                                      : 0;
  if (scale == 0) return false;
  *ms = n * scale * 1000;
  return true;
}

std::string IsoTime(int64_t at_ms) {
  const std::time_t t = static_cast<std::time_t>(at_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(at_ms % 1000));
  return buf;
}

std::string Field(const internal::JsonValue& row, const char* name) {
  const internal::JsonValue* v = row.Find(name);
  return v != nullptr && v->type == internal::JsonType::kString ? v->text : "";
}

std::string Joined(const internal::JsonValue& row, const char* name) {
  const internal::JsonValue* v = row.Find(name);
  std::string out;
  if (v == nullptr || v->type != internal::JsonType::kArray) return out;
  for (const internal::JsonValue& item : v->items) {
    if (!out.empty()) out += ",";
    out += item.text;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

bool ParseLogOption(const std::string& arg, const std::function<bool(std::string*)>& value,
                    LogOptions* options) {
  std::string v;
  if (arg == "--json") {
    options->json = true;
  } else if (arg == "--verify") {
    options->verify = true;
  } else if (arg == "--session") {
    if (!value(&options->session)) options->error = "--session needs a value";
  } else if (arg == "--since") {
    int64_t age = 0;
    if (!value(&v) || !ParseAge(v, &age)) {
      options->error = "--since takes an age such as 30s, 10m, 2h or 3d";
    } else {
      options->since_ms = static_cast<int64_t>(std::time(nullptr)) * 1000 - age;
    }
  } else if (arg == "--verdict") {
    if (!value(&v) || (v != "PASS" && v != "AUTH" && v != "BLOCK")) {
      options->error = "--verdict takes PASS, AUTH or BLOCK";
    } else {
      options->verdict = v == "PASS" ? 0 : v == "AUTH" ? 1 : 2;
    }
  } else {
    return false;
  }
  return true;
}

int RunLog(const std::string& state_dir, const LogOptions& options) {
  if (state_dir.empty()) {
    std::fprintf(stderr,
                 "doberman-guard log: no state directory (--state-dir or DOBERMAN_STATE_DIR)\n");
    return 3;
  }
  state::StateDir dir;
  std::string error;
  bool rebuilt = false;
  std::unique_ptr<state::StateStore> store;
  if (state::OpenStateDir(state_dir, &dir, &error))
    store = state::StateStore::Open(dir, state::StoreLimits{}, &rebuilt, &error);
  if (store == nullptr) {
    std::fprintf(stderr, "doberman-guard log: %s\n", error.c_str());
    return 3;
  }
  if (rebuilt) {
    std::fprintf(stderr,
                 "doberman-guard log: the store was corrupt and has been rebuilt (the old "
                 "one is kept beside it as state.db.corrupt-*)\n");
  }
  if (options.verify) {
    int64_t rows = 0;
    std::string head, problem;
    if (!store->VerifyLog(&rows, &head, &problem)) {
      std::printf("log does NOT verify: %s (%lld rows checked before it)\n", problem.c_str(),
                  static_cast<long long>(rows));
      return 1;
    }
    std::printf("log verified: %lld rows, head %s\n", static_cast<long long>(rows), head.c_str());
    return 0;
  }
  state::LogFilter filter;
  filter.since_ms = options.since_ms;
  filter.only_verdict = options.verdict;
  if (!options.session.empty()) {
    filter.by_session = true;
    filter.session = state::KeyedFingerprint(dir.key, "session", "id:" + options.session);
  }
  if (!options.json) {
    std::printf("%-6s %-24s %-12s %-18s %-22s %-6s %s\n", "seq", "time (UTC)", "host", "event",
                "tool", "verdict", "reasons [rules]");
  }
  const bool ok = store->ReadLog(
      filter,
      [&](const state::LogRow& row) {
        if (options.json) {
          std::string line =
              "{\"seq\":" + std::to_string(row.seq) + ",\"time\":\"" + IsoTime(row.at_ms) + "\"";
          if (row.json.size() > 2)
            line += "," + row.json.substr(1);
          else
            line += "}";
          std::printf("%s\n", line.c_str());
          return true;
        }
        internal::JsonValue parsed;
        internal::JsonError jerr;
        if (!internal::ParseJson(row.json, internal::JsonLimits{}, &parsed, &jerr)) {
          std::printf("%-6lld %-24s (unreadable row)\n", static_cast<long long>(row.seq),
                      IsoTime(row.at_ms).c_str());
          return true;
        }
        // With several packs, which of them gave the verdict.
        const std::string by = Joined(parsed, "decided_by");
        std::printf("%-6lld %-24s %-12s %-18s %-22s %-6s %s [%s]%s%s\n",
                    static_cast<long long>(row.seq), IsoTime(row.at_ms).c_str(),
                    Field(parsed, "host").c_str(), Field(parsed, "event").c_str(),
                    Field(parsed, "tool").c_str(), Field(parsed, "verdict").c_str(),
                    Joined(parsed, "reasons").c_str(), Joined(parsed, "rules").c_str(),
                    by.empty() ? "" : " by ", by.c_str());
        return true;
      },
      &error);
  if (!ok) {
    std::fprintf(stderr, "doberman-guard log: %s\n", error.c_str());
    return 3;
  }
  return 0;
}

}  // namespace doberman::guard
