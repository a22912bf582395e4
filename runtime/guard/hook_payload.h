// Hook payloads (Claude Code, Codex, Cursor) -> the runtime's calls. Owns the strings the calls
// point at. Events are classified by what the host lets a hook do with them (stop an action, stop a
// turn, withhold output, nothing); an event we do not know is an error, so the host-facing layer
// denies it.
#ifndef DOBERMAN_GUARD_HOOK_PAYLOAD_H_
#define DOBERMAN_GUARD_HOOK_PAYLOAD_H_

#include <string>
#include <string_view>
#include <vector>

#include "json.h"
#include "tool_input.h"

namespace doberman::guard {

enum class Host { kAny, kClaudeCode, kCodex, kCursor };

// The host's name on the command line, in service requests and in the log ("claude-code", "codex",
// "cursor"). HostFromName is false for any other name; HostName(kAny) is "any".
bool HostFromName(std::string_view name, Host* host);
const char* HostName(Host host);

enum class HookEvent {
  kPreToolUse,          // an action about to run (Cursor: beforeShellExecution, beforeMCPExecution,
                        // preToolUse, subagentStart)
  kPermissionRequest,   // Claude Code asks a person; a hook may deny first
  kReadFile,            // Cursor beforeReadFile: a file about to reach the model (allow or deny)
  kUserPromptSubmit,    // a prompt turn (Cursor: beforeSubmitPrompt)
  kPostToolUse,         // a tool's output on its way to the model
  kPostToolUseFailure,  // a failed tool's error text on its way to the model
  kNothingToJudge,  // carries no action and no content the hook can stop (Stop, SessionStart...)
  kUnknown,
};

struct ParsedPayload {
  HookEvent event = HookEvent::kUnknown;
  std::string event_name;
  std::string tool;       // the host's tool name, for answers that differ per tool (MCP output)
  bool mcp_tool = false;  // an MCP tool: Claude Code replaces its output with updatedMCPToolOutput
  std::string id;         // echoed back by `check`
  bool has_id = false;
  // The host's session (Claude Code and Codex `session_id`, Cursor `conversation_id`); empty when
  // the payload names none. Session memory keys its ledger by it (fingerprinted, never stored).
  std::string session;
  // A question from a proxy (squid-acl, the service's egress requests) that cannot say which
  // session sent it: session memory judges it against every session's record.
  bool any_session = false;
  std::vector<CallInput> calls;
  // PostToolUse: the output as the host sent it. A replacement must keep its shape (Claude Code
  // drops an updatedToolOutput that does not match the tool's output schema, and the original goes
  // through).
  internal::JsonValue tool_response;
  bool has_tool_response = false;
};

// A Claude Code-shaped tool payload for callers that judge something other than a host's hook (the
// MCP proxy, the Squid helper): `input` as tool_input (an object; anything else becomes {}), and
// `output`, when given, as tool_response.
internal::JsonValue MakeToolPayload(const std::string& event, const std::string& session,
                                    const std::string& cwd, const std::string& tool,
                                    const internal::JsonValue& input,
                                    const internal::JsonValue* output);

// Converts a parsed JSON payload. `host` limits the event names to that host's (kAny: every host's,
// for `check`). Returns false with `error` when it is not a payload we can judge; `error` never
// quotes payload text beyond field names.
bool ConvertPayload(const internal::JsonValue& payload, Host host, ParsedPayload* out,
                    std::string* error);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_HOOK_PAYLOAD_H_
