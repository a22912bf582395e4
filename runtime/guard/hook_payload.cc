// Payload shapes per host (doberman-reference.md, "Host protocols"). Tool inputs map onto fields:
// Bash -> command; Write/Edit/MultiEdit/NotebookEdit -> path + content; WebFetch -> url; everything
// else (MCP tools, WebSearch, unknown tools) -> every string key and value as arguments.
#include "hook_payload.h"

#include <string_view>

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

std::string StringOr(const JsonValue& v, std::string_view key) {
  const std::string* s = v.FindString(key);
  return s ? *s : std::string();
}

// Every string key and value, depth-first; numbers and booleans are scanned as text too (an IP or a
// port number can matter to egress rules).
void CollectStrings(const JsonValue& v, std::vector<std::string>* out, int depth = 0) {
  if (depth > 64) return;
  switch (v.type) {
    case JsonType::kString:
    case JsonType::kNumber: out->push_back(v.text); break;
    case JsonType::kArray:
      for (const JsonValue& item : v.items) CollectStrings(item, out, depth + 1);
      break;
    case JsonType::kObject:
      for (const auto& [k, item] : v.members) {
        out->push_back(k);
        CollectStrings(item, out, depth + 1);
      }
      break;
    default: break;
  }
}

// Codex `apply_patch`: one call per `*** Add|Update File: path` section, its added lines as content.
void ConvertApplyPatch(const std::string& patch, const CallInput& base, std::vector<CallInput>* out) {
  CallInput* current = nullptr;
  size_t pos = 0;
  while (pos <= patch.size()) {
    size_t nl = patch.find('\n', pos);
    if (nl == std::string::npos) nl = patch.size();
    std::string_view line(patch.data() + pos, nl - pos);
    for (std::string_view prefix : {"*** Add File: ", "*** Update File: ", "*** Delete File: ",
                                    "*** Move to: "}) {
      if (line.rfind(prefix, 0) == 0) {
        out->push_back(base);
        current = &out->back();
        current->path = std::string(line.substr(prefix.size()));
        break;
      }
    }
    if (current != nullptr && !line.empty() && line[0] == '+' ) {
      current->content.append(line.substr(1));
      current->content.push_back('\n');
    }
    pos = nl + 1;
  }
  if (out->empty()) {
    CallInput c = base;
    c.args.push_back(patch);
    out->push_back(std::move(c));
  }
}

void ConvertTool(const std::string& tool, const JsonValue& input, CallInput call,
                 std::vector<CallInput>* out) {
  call.tool = tool;
  if (tool == "Bash" || tool == "shell" || tool == "local_shell" || tool == "exec_command") {
    if (const JsonValue* cmd = input.Find("command")) {
      if (cmd->type == JsonType::kString) {
        call.command = cmd->text;
      } else if (cmd->type == JsonType::kArray) {
        // Codex sends argv arrays; `bash -lc SCRIPT` is common. Re-quote each word for the parser.
        if (cmd->items.size() >= 2 && cmd->items[0].text == "apply_patch") {
          ConvertApplyPatch(cmd->items[1].text, call, out);
          return;
        }
        for (const JsonValue& w : cmd->items) {
          if (!call.command.empty()) call.command.push_back(' ');
          call.command.push_back('\'');
          for (char c : w.text) {
            if (c == '\'') call.command.append("'\\''");
            else call.command.push_back(c);
          }
          call.command.push_back('\'');
        }
      }
    }
  } else if (tool == "apply_patch") {
    std::string patch = StringOr(input, "input");
    if (patch.empty()) patch = StringOr(input, "patch");
    ConvertApplyPatch(patch, call, out);
    return;
  } else if (tool == "Write") {
    call.path = StringOr(input, "file_path");
    call.content = StringOr(input, "content");
  } else if (tool == "Edit") {
    call.path = StringOr(input, "file_path");
    call.content = StringOr(input, "new_string");
  } else if (tool == "MultiEdit") {
    call.path = StringOr(input, "file_path");
    if (const JsonValue* edits = input.Find("edits")) {
      for (const JsonValue& e : edits->items) {
        call.content += StringOr(e, "new_string");
        call.content.push_back('\n');
      }
    }
  } else if (tool == "NotebookEdit") {
    call.path = StringOr(input, "notebook_path");
    call.content = StringOr(input, "new_source");
  } else if (tool == "WebFetch") {
    call.url = StringOr(input, "url");
    if (const std::string* p = input.FindString("prompt")) call.args.push_back(*p);
  } else if (tool == "Read" || tool == "Glob" || tool == "Grep" || tool == "LS") {
    // Local reads: nothing leaves and nothing is written. Arguments still scanned.
    CollectStrings(input, &call.args);
  } else {
    CollectStrings(input, &call.args);
  }
  out->push_back(std::move(call));
}

}  // namespace

doberman_call CallInput::View(std::vector<doberman_string>* args_view,
                              std::vector<doberman_prompt_segment>* prompt_view) const {
  auto s = [](const std::string& x) { return doberman_string{x.data(), x.size()}; };
  args_view->clear();
  for (const std::string& a : args) args_view->push_back(s(a));
  prompt_view->clear();
  for (const Segment& seg : prompt) prompt_view->push_back({s(seg.text), seg.origin});
  doberman_call call{};
  call.struct_size = sizeof call;
  call.tool = s(tool);
  call.command = s(command);
  call.path = s(path);
  call.cwd = s(cwd);
  call.content = s(content);
  call.url = s(url);
  call.args = args_view->data();
  call.arg_count = args_view->size();
  call.prompt = prompt_view->data();
  call.prompt_count = prompt_view->size();
  return call;
}

bool ConvertPayload(const JsonValue& payload, ParsedPayload* out, std::string* error) {
  if (payload.type != JsonType::kObject) {
    *error = "payload is not a JSON object";
    return false;
  }
  if (const JsonValue* id = payload.Find("id")) {
    out->has_id = true;
    out->id = id->type == JsonType::kString || id->type == JsonType::kNumber ? id->text : "";
  }
  std::string event = StringOr(payload, "hook_event_name");
  CallInput base;
  base.cwd = StringOr(payload, "cwd");
  if (base.cwd.empty()) {
    if (const JsonValue* roots = payload.Find("workspace_roots"); roots && !roots->items.empty()) {
      base.cwd = roots->items[0].text;
    }
  }
  out->event_name = event;
  // Cursor's events name the action directly.
  if (event == "beforeShellExecution") {
    out->event = HookEvent::kPreToolUse;
    base.tool = "Bash";
    base.command = StringOr(payload, "command");
    out->calls.push_back(std::move(base));
    return true;
  }
  if (event == "beforeMCPExecution") {
    out->event = HookEvent::kPreToolUse;
    const JsonValue* input = payload.Find("tool_input");
    std::string tool = "mcp__" + StringOr(payload, "server") + "__" + StringOr(payload, "tool_name");
    ConvertTool(tool, input ? *input : JsonValue{}, std::move(base), &out->calls);
    return true;
  }
  if (event == "beforeReadFile") {
    out->event = HookEvent::kPreToolUse;
    base.tool = "Read";
    base.args.push_back(StringOr(payload, "file_path"));
    out->calls.push_back(std::move(base));
    return true;
  }
  if (event == "beforeSubmitPrompt") {
    out->event = HookEvent::kUserPromptSubmit;
    base.prompt.push_back({StringOr(payload, "prompt"), DOBERMAN_ORIGIN_TYPED});
    out->calls.push_back(std::move(base));
    return true;
  }
  if (event == "PreToolUse" || event == "preToolUse") {
    out->event = HookEvent::kPreToolUse;
    const std::string* tool = payload.FindString("tool_name");
    if (tool == nullptr) {
      *error = "PreToolUse payload has no tool_name";
      return false;
    }
    const JsonValue* input = payload.Find("tool_input");
    JsonValue empty;
    empty.type = JsonType::kObject;
    ConvertTool(*tool, input ? *input : empty, std::move(base), &out->calls);
    return true;
  }
  if (event == "UserPromptSubmit") {
    out->event = HookEvent::kUserPromptSubmit;
    const std::string* prompt = payload.FindString("prompt");
    if (prompt == nullptr) {
      *error = "UserPromptSubmit payload has no prompt";
      return false;
    }
    base.prompt.push_back({*prompt, DOBERMAN_ORIGIN_TYPED});
    // Extension for hosts that know where text came from: [{"text": ..., "origin": "pasted"}].
    if (const JsonValue* segs = payload.Find("prompt_segments")) {
      for (const JsonValue& seg : segs->items) {
        std::string origin = StringOr(seg, "origin");
        doberman_origin o = origin == "pasted"         ? DOBERMAN_ORIGIN_PASTED
                            : origin == "tool_fetched" ? DOBERMAN_ORIGIN_TOOL_FETCHED
                                                       : DOBERMAN_ORIGIN_TYPED;
        base.prompt.push_back({StringOr(seg, "text"), o});
      }
    }
    out->calls.push_back(std::move(base));
    return true;
  }
  if (event == "PostToolUse") {
    // Tool output is untrusted text on its way into the model: scan it as fetched prompt material.
    out->event = HookEvent::kPostToolUse;
    std::vector<std::string> strings;
    if (const JsonValue* resp = payload.Find("tool_response")) CollectStrings(*resp, &strings);
    for (std::string& s : strings) base.prompt.push_back({std::move(s), DOBERMAN_ORIGIN_TOOL_FETCHED});
    base.tool = StringOr(payload, "tool_name");
    out->calls.push_back(std::move(base));
    return true;
  }
  *error = event.empty() ? "payload has no hook_event_name" : "unknown hook event '" + event + "'";
  return false;
}

}  // namespace doberman::guard
