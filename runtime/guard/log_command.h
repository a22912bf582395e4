// `doberman-guard log`: prints or verifies the decision log of a state directory. Rows are shown
// as the store keeps them (redacted: rule ids, reason codes, keyed fingerprints); a table by
// default, JSON lines with --json for log pipelines.
#ifndef DOBERMAN_GUARD_LOG_COMMAND_H_
#define DOBERMAN_GUARD_LOG_COMMAND_H_

#include <cstdint>
#include <functional>
#include <string>

namespace doberman::guard {

struct LogOptions {
  bool json = false;
  bool verify = false;
  std::string session;   // a host session id: rows of that session only
  int64_t since_ms = 0;  // rows at or after this time (unix ms)
  int verdict = -1;      // -1: all
  std::string error;     // set when an option's value is bad
};

// Consumes `arg` (and its value, read with `value`) when it is a `log` option; false when it is
// not one. A bad value sets `options->error`.
bool ParseLogOption(const std::string& arg, const std::function<bool(std::string*)>& value,
                    LogOptions* options);

// Runs `log` on `state_dir`: 0 when printed (or verified), 1 when the chain does not verify, 3
// when the store cannot be opened or read.
int RunLog(const std::string& state_dir, const LogOptions& options);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_LOG_COMMAND_H_
