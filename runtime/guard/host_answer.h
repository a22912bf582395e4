// From a decision to what each host expects on stdout, stderr and the exit code, per event. The one
// rule everywhere: no answer lets an AUTH run unasked. Where a host cannot ask (Codex; Cursor's
// preToolUse and beforeReadFile), AUTH is a deny whose reason says how a person approves it.
// Tables per host and event: docs/hosts/*.md.
#ifndef DOBERMAN_GUARD_HOST_ANSWER_H_
#define DOBERMAN_GUARD_HOST_ANSWER_H_

#include <string>

#include "guard_output.h"
#include "hook_payload.h"

namespace doberman::guard {

struct HookAnswer {
  std::string out;  // stdout
  std::string err;  // stderr
  int exit_code = 0;
};

struct AnswerOptions {
  bool turn_auth_blocks = false;  // AUTH on a prompt turn blocks it (else: a warning to both sides)
};

// The answer to a payload that was understood. `d.verdict` is already final (errors raised).
HookAnswer AnswerHook(Host host, const ParsedPayload& payload, const Decision& d,
                      const AnswerOptions& options);

// The answer when the payload could not be understood, or the guard ran out of time: a refusal that
// works for every event of the host (exit 2 with the reason on stderr; Cursor also reads a deny on
// stdout). `reason` must not quote payload text.
HookAnswer RefuseUnreadable(Host host, const std::string& reason);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_HOST_ANSWER_H_
