// Payload shapes per host, from the hosts' own sources (docs/hosts/*-protocol-notes.md): Claude
// Code's agent SDK types, Codex's codex-rs/hooks, Cursor's hooks documentation.
#include "hook_payload.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

struct EventName {
  std::string_view name;
  HookEvent event;
  bool claude, codex, cursor;  // which hosts send it
};

// Claude Code's HOOK_EVENTS (sdk.d.ts), Codex's hook events, Cursor's events. Events not listed are
// unknown: denied, since we cannot tell what the host would do with an empty answer.
constexpr std::array<EventName, 49> kEvents = {{
    {"PreToolUse", HookEvent::kPreToolUse, true, true, false},
    {"PreSkillShellCommand", HookEvent::kPreToolUse, true, false, false},
    {"PermissionRequest", HookEvent::kPermissionRequest, true, true, false},
    {"UserPromptSubmit", HookEvent::kUserPromptSubmit, true, true, false},
    {"UserPromptExpansion", HookEvent::kUserPromptSubmit, true, false, false},
    {"PostToolUse", HookEvent::kPostToolUse, true, true, false},
    {"PostToolUseFailure", HookEvent::kPostToolUseFailure, true, false, false},
    {"PostToolBatch", HookEvent::kNothingToJudge, true, false, false},
    {"Notification", HookEvent::kNothingToJudge, true, false, false},
    {"SessionStart", HookEvent::kNothingToJudge, true, true, false},
    {"SessionEnd", HookEvent::kNothingToJudge, true, false, false},
    {"Stop", HookEvent::kNothingToJudge, true, true, false},
    {"StopFailure", HookEvent::kNothingToJudge, true, false, false},
    {"SubagentStart", HookEvent::kNothingToJudge, true, false, false},
    {"SubagentStop", HookEvent::kNothingToJudge, true, false, false},
    {"PreCompact", HookEvent::kNothingToJudge, true, true, false},
    {"PostCompact", HookEvent::kNothingToJudge, true, true, false},
    {"PreModelSwitch", HookEvent::kNothingToJudge, true, false, false},
    {"PostModelSwitch", HookEvent::kNothingToJudge, true, false, false},
    {"PermissionDenied", HookEvent::kNothingToJudge, true, false, false},
    {"Setup", HookEvent::kNothingToJudge, true, false, false},
    {"TeammateIdle", HookEvent::kNothingToJudge, true, false, false},
    {"TaskCreated", HookEvent::kNothingToJudge, true, false, false},
    {"TaskCompleted", HookEvent::kNothingToJudge, true, false, false},
    {"Elicitation", HookEvent::kNothingToJudge, true, false, false},
    {"ElicitationResult", HookEvent::kNothingToJudge, true, false, false},
    {"ConfigChange", HookEvent::kNothingToJudge, true, false, false},
    {"WorktreeCreate", HookEvent::kNothingToJudge, true, false, false},
    {"WorktreeRemove", HookEvent::kNothingToJudge, true, false, false},
    {"InstructionsLoaded", HookEvent::kNothingToJudge, true, false, false},
    {"CwdChanged", HookEvent::kNothingToJudge, true, false, false},
    {"FileChanged", HookEvent::kNothingToJudge, true, false, false},
    {"DirectoryAdded", HookEvent::kNothingToJudge, true, false, false},
    {"MessageDisplay", HookEvent::kNothingToJudge, true, false, false},
    {"beforeShellExecution", HookEvent::kPreToolUse, false, false, true},
    {"beforeMCPExecution", HookEvent::kPreToolUse, false, false, true},
    {"preToolUse", HookEvent::kPreToolUse, false, false, true},
    {"subagentStart", HookEvent::kPreToolUse, false, false, true},
    {"beforeReadFile", HookEvent::kReadFile, false, false, true},
    {"beforeTabFileRead", HookEvent::kReadFile, false, false, true},
    {"beforeSubmitPrompt", HookEvent::kUserPromptSubmit, false, false, true},
    {"postToolUse", HookEvent::kPostToolUse, false, false, true},
    {"postToolUseFailure", HookEvent::kNothingToJudge, false, false, true},
    {"afterShellExecution", HookEvent::kNothingToJudge, false, false, true},
    {"afterMCPExecution", HookEvent::kNothingToJudge, false, false, true},
    {"afterFileEdit", HookEvent::kNothingToJudge, false, false, true},
    {"afterAgentResponse", HookEvent::kNothingToJudge, false, false, true},
    {"stop", HookEvent::kNothingToJudge, false, false, true},
    {"sessionStart", HookEvent::kNothingToJudge, false, false, true},
}};

const EventName* FindEvent(std::string_view name, Host host) {
  for (const EventName& e : kEvents) {
    if (e.name != name) continue;
    const bool sent = host == Host::kAny || (host == Host::kClaudeCode && e.claude) ||
                      (host == Host::kCodex && e.codex) || (host == Host::kCursor && e.cursor);
    return sent ? &e : nullptr;
  }
  return nullptr;
}

// Payload-level fields (tool inputs have their own messages in tool_input.cc); null counts as
// absent.
bool OptionalString(const JsonValue& v, std::string_view key, std::string* out,
                    std::string* error) {
  std::string_view field;
  if (ReadStringField(v, {key}, out, &field) != FieldRead::kWrongType) return true;
  *error = std::string(key) + " must be a string";
  return false;
}

bool RequiredString(const JsonValue& v, std::string_view key, std::string* out,
                    std::string* error) {
  std::string_view field;
  switch (ReadStringField(v, {key}, out, &field)) {
    case FieldRead::kString:
      return true;
    case FieldRead::kWrongType:
      *error = std::string(key) + " must be a string";
      return false;
    case FieldRead::kMissing:
      break;
  }
  *error = std::string(key) + " is missing";
  return false;
}

// Tool output on its way to the model is untrusted text: each string a segment of origin
// tool_fetched. Cursor sends outputs as JSON text; it is read as JSON when it is JSON.
void AddFetched(const JsonValue& v, CallInput* call) {
  std::vector<std::string> strings;
  if (v.type == JsonType::kString) {
    JsonValue inner;
    internal::JsonError ignored;
    internal::JsonLimits limits;
    limits.reject_duplicate_keys = false;  // only scanned, never acted on
    if (!v.text.empty() && (v.text[0] == '{' || v.text[0] == '[') &&
        internal::ParseJson(v.text, limits, &inner, &ignored)) {
      CollectStrings(inner, &strings);
    }
    strings.push_back(v.text);
  } else {
    CollectStrings(v, &strings);
  }
  for (std::string& s : strings)
    call->prompt.push_back({std::move(s), DOBERMAN_ORIGIN_TOOL_FETCHED});
}

// Cursor's `attachments: [{type, file_path}]`: every attached file is a read.
bool AddAttachments(const JsonValue& payload, const CallInput& base, std::vector<CallInput>* out,
                    std::string* error) {
  const JsonValue* list = payload.Find("attachments");
  if (list == nullptr || list->type == JsonType::kNull) return true;
  if (list->type != JsonType::kArray) {
    *error = "attachments must be an array";
    return false;
  }
  for (const JsonValue& a : list->items) {
    std::string path;
    if (a.type != JsonType::kObject || !RequiredString(a, "file_path", &path, error)) {
      if (error->empty() || a.type != JsonType::kObject)
        *error = "attachments[] must be objects with a file_path";
      return false;
    }
    CallInput c = base;
    c.tool = kReadTool;
    c.path = path;
    out->push_back(std::move(c));
  }
  return true;
}

// The tool input: an object, or (Cursor's beforeMCPExecution) an object encoded as a JSON string.
bool ToolInput(const JsonValue& payload, bool json_text_allowed, JsonValue* storage,
               const JsonValue** input, std::string* error) {
  const JsonValue* v = payload.Find("tool_input");
  if (v == nullptr) {
    *error = "tool_input is missing";
    return false;
  }
  if (v->type == JsonType::kString && json_text_allowed) {
    internal::JsonError jerr;
    if (!internal::ParseJson(v->text, internal::JsonLimits{}, storage, &jerr)) {
      *error = "tool_input is a string that is not a JSON object (" + jerr.message + ")";
      return false;
    }
    *input = storage;
    return true;
  }
  *input = v;
  return true;
}

// Cursor names MCP tools "MCP:<tool>" in preToolUse and gives the server apart in
// beforeMCPExecution; rules see every MCP tool as mcp__<server>__<tool>.
std::string McpToolName(std::string_view server, std::string_view tool) {
  return "mcp__" + std::string(server.empty() ? "unknown" : server) + "__" + std::string(tool);
}

bool ConvertToolEvent(const JsonValue& payload, ParsedPayload* out, const CallInput& base,
                      std::string* error) {
  if (!RequiredString(payload, "tool_name", &out->tool, error)) return false;
  std::string tool = out->tool;
  if (tool.rfind("MCP:", 0) == 0) tool = McpToolName("", tool.substr(4));
  out->mcp_tool = tool.rfind("mcp__", 0) == 0;
  JsonValue storage;
  const JsonValue* input = nullptr;
  if (!ToolInput(payload, false, &storage, &input, error)) return false;
  return ConvertToolCall(tool, *input, base, &out->calls, error);
}

bool ConvertCursorEvent(std::string_view event, const JsonValue& payload, ParsedPayload* out,
                        CallInput base, std::string* error) {
  if (event == "beforeShellExecution") {
    base.tool = "Bash";
    if (!RequiredString(payload, "command", &base.command, error)) return false;
    out->tool = "Shell";
    out->calls.push_back(std::move(base));
    return true;
  }
  if (event == "beforeMCPExecution") {
    std::string server, tool, url, command;
    if (!OptionalString(payload, "mcp_server_name", &server, error) ||
        !RequiredString(payload, "tool_name", &tool, error) ||
        !OptionalString(payload, "url", &url, error) ||
        !OptionalString(payload, "command", &command, error)) {
      return false;
    }
    out->tool = McpToolName(server, tool);
    out->mcp_tool = true;
    JsonValue storage;
    const JsonValue* input = nullptr;
    if (!ToolInput(payload, true, &storage, &input, error)) return false;
    CallInput c = base;
    // Where the server lives (its URL or launch command) is scanned as an argument too.
    if (!url.empty()) c.args.push_back(url);
    if (!command.empty()) c.args.push_back(command);
    return ConvertToolCall(out->tool, *input, c, &out->calls, error);
  }
  if (event == "beforeReadFile" || event == "beforeTabFileRead") {
    // The file's text is about to reach the model: its path is a read, its content fetched text.
    CallInput read = base;
    read.tool = kReadTool;
    if (!RequiredString(payload, "file_path", &read.path, error)) return false;
    out->calls.push_back(std::move(read));
    if (const JsonValue* content = payload.Find("content");
        content && content->type != JsonType::kNull) {
      if (content->type != JsonType::kString) {
        *error = "content must be a string";
        return false;
      }
      CallInput c = base;
      c.tool = kReadTool;
      AddFetched(*content, &c);
      out->calls.push_back(std::move(c));
    }
    return AddAttachments(payload, base, &out->calls, error);
  }
  if (event == "beforeSubmitPrompt") {
    CallInput c = base;
    std::string prompt;
    if (!RequiredString(payload, "prompt", &prompt, error)) return false;
    c.prompt.push_back({prompt, DOBERMAN_ORIGIN_TYPED});
    out->calls.push_back(std::move(c));
    return AddAttachments(payload, base, &out->calls, error);
  }
  if (event == "subagentStart") {
    // A task handed to a subagent: judged as arguments of a tool call (secrets, egress, paths).
    CallInput c = base;
    c.tool = "Task";
    std::string task;
    if (!OptionalString(payload, "task", &task, error)) return false;
    if (!task.empty()) c.args.push_back(task);
    out->calls.push_back(std::move(c));
    return true;
  }
  if (event == "postToolUse") {
    CallInput c = base;
    if (!RequiredString(payload, "tool_name", &out->tool, error)) return false;
    out->mcp_tool = out->tool.rfind("MCP:", 0) == 0;
    c.tool = out->tool;
    if (const JsonValue* output = payload.Find("tool_output")) AddFetched(*output, &c);
    out->calls.push_back(std::move(c));
    return true;
  }
  return ConvertToolEvent(payload, out, base, error);  // preToolUse
}

}  // namespace

bool HostFromName(std::string_view name, Host* host) {
  for (Host h : {Host::kClaudeCode, Host::kCodex, Host::kCursor}) {
    if (name == HostName(h)) {
      *host = h;
      return true;
    }
  }
  return false;
}

const char* HostName(Host host) {
  switch (host) {
    case Host::kClaudeCode:
      return "claude-code";
    case Host::kCodex:
      return "codex";
    case Host::kCursor:
      return "cursor";
    case Host::kAny:
      break;
  }
  return "any";
}

bool ConvertPayload(const JsonValue& payload, Host host, ParsedPayload* out, std::string* error) {
  if (payload.type != JsonType::kObject) {
    *error = "payload is not a JSON object";
    return false;
  }
  if (const JsonValue* id = payload.Find("id")) {
    out->has_id = true;
    out->id = id->type == JsonType::kString || id->type == JsonType::kNumber ? id->text : "";
  }
  const JsonValue* name = payload.Find("hook_event_name");
  if (name == nullptr || name->type != JsonType::kString) {
    *error =
        name == nullptr ? "payload has no hook_event_name" : "hook_event_name must be a string";
    return false;
  }
  out->event_name = name->text;
  const EventName* event = FindEvent(name->text, host);
  if (event == nullptr) {
    // Never echo the name: it is payload text, and could be anything.
    *error = "unknown hook event (" + std::to_string(name->text.size()) + " bytes) for this host";
    out->event_name.clear();
    return false;
  }
  out->event = event->event;
  std::string_view session_field;
  if (ReadStringField(payload, {"session_id", "conversation_id"}, &out->session, &session_field) ==
      FieldRead::kWrongType) {
    *error = std::string(session_field) + " must be a string";
    return false;
  }
  CallInput base;
  if (!OptionalString(payload, "cwd", &base.cwd, error)) return false;
  if (base.cwd.empty()) {
    if (const JsonValue* roots = payload.Find("workspace_roots");
        roots && roots->type == JsonType::kArray && !roots->items.empty() &&
        roots->items[0].type == JsonType::kString) {
      base.cwd = roots->items[0].text;
    }
  }
  const std::string_view ev = event->name;
  if (event->event == HookEvent::kNothingToJudge) return true;
  if (!event->claude && !event->codex)
    return ConvertCursorEvent(ev, payload, out, std::move(base), error);
  switch (event->event) {
    case HookEvent::kPreToolUse:
    case HookEvent::kPermissionRequest:
      return ConvertToolEvent(payload, out, base, error);
    case HookEvent::kUserPromptSubmit: {
      std::string prompt;
      if (!RequiredString(payload, "prompt", &prompt, error)) return false;
      base.prompt.push_back({prompt, DOBERMAN_ORIGIN_TYPED});
      // Extension for hosts that know where text came from: [{"text": ..., "origin": "pasted"}].
      if (const JsonValue* segs = payload.Find("prompt_segments");
          segs && segs->type == JsonType::kArray) {
        for (const JsonValue& seg : segs->items) {
          std::string text, origin;
          if (seg.type != JsonType::kObject || !RequiredString(seg, "text", &text, error) ||
              !OptionalString(seg, "origin", &origin, error)) {
            *error = "prompt_segments[] must be objects with a string text";
            return false;
          }
          const doberman_origin o = origin == "pasted"         ? DOBERMAN_ORIGIN_PASTED
                                    : origin == "tool_fetched" ? DOBERMAN_ORIGIN_TOOL_FETCHED
                                                               : DOBERMAN_ORIGIN_TYPED;
          base.prompt.push_back({std::move(text), o});
        }
      }
      out->calls.push_back(std::move(base));
      return true;
    }
    case HookEvent::kPostToolUse:
    case HookEvent::kPostToolUseFailure: {
      if (!RequiredString(payload, "tool_name", &out->tool, error)) return false;
      out->mcp_tool = out->tool.rfind("mcp__", 0) == 0;
      base.tool = out->tool;
      const char* field = event->event == HookEvent::kPostToolUse ? "tool_response" : "error";
      if (const JsonValue* v = payload.Find(field)) {
        AddFetched(*v, &base);
        out->tool_response = *v;
        out->has_tool_response = true;
      }
      out->calls.push_back(std::move(base));
      return true;
    }
    default:
      break;
  }
  *error = "event cannot be mapped";
  return false;
}

internal::JsonValue MakeToolPayload(const std::string& event, const std::string& session,
                                    const std::string& cwd, const std::string& tool,
                                    const internal::JsonValue& input,
                                    const internal::JsonValue* output) {
  using internal::JsonType;
  using internal::JsonValue;
  auto str = [](const std::string& s) {
    JsonValue v;
    v.type = JsonType::kString;
    v.text = s;
    return v;
  };
  JsonValue payload;
  payload.type = JsonType::kObject;
  payload.members.emplace_back("hook_event_name", str(event));
  payload.members.emplace_back("session_id", str(session));
  payload.members.emplace_back("cwd", str(cwd));
  payload.members.emplace_back("tool_name", str(tool));
  JsonValue args = input;
  if (args.type != JsonType::kObject) {
    args = JsonValue();
    args.type = JsonType::kObject;
  }
  payload.members.emplace_back("tool_input", std::move(args));
  if (output != nullptr) payload.members.emplace_back("tool_response", *output);
  return payload;
}

}  // namespace doberman::guard
