// Fuzz target for the guard's payload readers: hook payloads for every host (JSON -> calls), the
// apply_patch splitter and the notebook shell extractor. Whatever the input, no crash; a payload
// that is refused says why; a payload that is accepted for a host whose event carries an action
// yields at least one call (an accepted action with nothing to judge would be a silent PASS).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "apply_patch.h"
#include "hook_payload.h"
#include "json.h"
#include "notebook_shell.h"

namespace {

using doberman::guard::HookEvent;
using doberman::guard::Host;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<doberman::guard::PatchFileOp> ops;
  Check(doberman::guard::SplitApplyPatch(input, &ops) == !ops.empty());
  std::vector<std::string> commands;
  doberman::guard::ExtractNotebookShell(input, &commands);

  doberman::internal::JsonLimits limits;
  limits.max_depth = 24;
  limits.max_bytes = 64 << 10;
  doberman::internal::JsonValue doc;
  doberman::internal::JsonError jerr;
  if (!doberman::internal::ParseJson(input, limits, &doc, &jerr)) return 0;
  for (Host host : {Host::kAny, Host::kClaudeCode, Host::kCodex, Host::kCursor}) {
    doberman::guard::ParsedPayload payload;
    std::string error;
    if (!doberman::guard::ConvertPayload(doc, host, &payload, &error)) {
      Check(!error.empty());
      continue;
    }
    const HookEvent e = payload.event;
    if (e == HookEvent::kPreToolUse || e == HookEvent::kPermissionRequest ||
        e == HookEvent::kReadFile || e == HookEvent::kUserPromptSubmit) {
      Check(!payload.calls.empty());
    }
    std::vector<doberman_string> args;
    std::vector<doberman_prompt_segment> prompt;
    for (const auto& call : payload.calls) {
      const doberman_call view = call.View(&args, &prompt);
      Check(view.arg_count == call.args.size() && view.prompt_count == call.prompt.size());
    }
  }
  return 0;
}
