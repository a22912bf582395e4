// Hook payloads (Claude Code, Codex, Cursor) -> the runtime's doberman_call. Owns the strings the call
// points at. Unknown events and tools are not dropped: their strings are scanned as arguments
// (raise-only), and the host-facing layer decides what an unknown event means.
#ifndef DOBERMAN_GUARD_HOOK_PAYLOAD_H_
#define DOBERMAN_GUARD_HOOK_PAYLOAD_H_

#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "json.h"

namespace doberman::guard {

enum class HookEvent { kPreToolUse, kUserPromptSubmit, kPostToolUse, kUnknown };

// One call's owned fields. A payload may yield several (one per file of a Codex apply_patch).
struct CallInput {
  std::string tool, command, path, cwd, content, url;
  std::vector<std::string> args;
  struct Segment {
    std::string text;
    doberman_origin origin;
  };
  std::vector<Segment> prompt;

  // Views into this object; valid while it lives and is not modified.
  doberman_call View(std::vector<doberman_string>* args_view,
                     std::vector<doberman_prompt_segment>* prompt_view) const;
};

struct ParsedPayload {
  HookEvent event = HookEvent::kUnknown;
  std::string event_name;
  std::string id;        // echoed back by `check`
  bool has_id = false;
  std::vector<CallInput> calls;
};

// Converts a parsed JSON payload. Returns false with `error` when it is not a hook payload at all.
bool ConvertPayload(const internal::JsonValue& payload, ParsedPayload* out, std::string* error);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_HOOK_PAYLOAD_H_
