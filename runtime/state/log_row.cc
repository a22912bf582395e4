// Decision log rows as JSON (API in log_row.h).
#include "log_row.h"

#include "json.h"

namespace doberman::state {

std::string LogRowJson(const LogFields& f) {
  using internal::AppendJsonString;
  std::string out = "{";
  auto text = [&](const char* name, const std::string& v, bool first = false) {
    if (!first) out += ",";
    out += "\"";
    out += name;
    out += "\":";
    AppendJsonString(v, &out);
  };
  auto list = [&](const char* name, const std::vector<std::string>& items) {
    out += ",\"";
    out += name;
    out += "\":[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ",";
      AppendJsonString(items[i], &out);
    }
    out += "]";
  };
  text("host", f.host, true);
  text("event", f.event);
  text("tool", f.tool);
  text("session", f.session);
  text("verdict", f.verdict);
  text("status", f.status);
  list("reasons", f.reasons);
  list("rules", f.rules);
  list("values", f.values);
  text("pack", f.pack);
  if (!f.decided_by.empty()) list("decided_by", f.decided_by);
  out += ",\"latency_us\":" + std::to_string(f.latency_us) + "}";
  return out;
}

}  // namespace doberman::state
