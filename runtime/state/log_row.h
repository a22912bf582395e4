// One decision log row as text: the redacted fields, in one fixed order, as a JSON object. The
// guard and the C ABI write rows through this, so `doberman-guard log` reads one format.
#ifndef DOBERMAN_STATE_LOG_ROW_H_
#define DOBERMAN_STATE_LOG_ROW_H_

#include <cstdint>
#include <string>
#include <vector>

namespace doberman::state {

struct LogFields {
  std::string host, event, tool;
  std::string session;  // hex of the session's keyed fingerprint
  std::string verdict;  // PASS, AUTH, BLOCK
  std::string status = "DOBERMAN_OK";
  std::vector<std::string> reasons, rules;
  std::vector<std::string> values;  // hex keyed fingerprints of the secret values involved
  std::string pack;
  std::vector<std::string> decided_by;  // with several packs: those whose own verdict is the row's
  int64_t latency_us = 0;
};

std::string LogRowJson(const LogFields& f);

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_LOG_ROW_H_
