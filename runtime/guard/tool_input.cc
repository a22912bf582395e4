// Tool name + JSON input -> calls (API in tool_input.h). Field names per host come from the hosts'
// own schemas (docs/hosts/*-protocol-notes.md); where hosts differ, every spelling is read.
#include "tool_input.h"

#include <array>
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

#include "apply_patch.h"
#include "notebook_shell.h"
#include "percent_decode.h"
#include "shell_quote.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

enum class ToolKind {
  kShell,
  kPatch,
  kWrite,
  kEdit,
  kMultiEdit,
  kNotebookEdit,
  kDelete,
  kRead,
  kGlob,
  kGrep,
  kList,
  kWebFetch,
  kWebSearch,
  kOther
};

struct ToolName {
  std::string_view name;
  ToolKind kind;
};

// Claude Code (Bash, Write, ...), Codex (shell, local_shell, exec_command, apply_patch, ...) and
// Cursor (Shell, StrReplace, Delete, ...). Exact, case-sensitive: hosts send these verbatim.
constexpr std::array<ToolName, 34> kTools = {{
    {"Bash", ToolKind::kShell},
    {"Shell", ToolKind::kShell},
    {"shell", ToolKind::kShell},
    {"local_shell", ToolKind::kShell},
    {"exec_command", ToolKind::kShell},
    {"shell_command", ToolKind::kShell},
    {"container.exec", ToolKind::kShell},
    {"unified_exec", ToolKind::kShell},
    {"run_terminal_cmd", ToolKind::kShell},
    {"apply_patch", ToolKind::kPatch},
    {"ApplyPatch", ToolKind::kPatch},
    {"Write", ToolKind::kWrite},
    {"write_file", ToolKind::kWrite},
    {"create_file", ToolKind::kWrite},
    {"Edit", ToolKind::kEdit},
    {"StrReplace", ToolKind::kEdit},
    {"str_replace", ToolKind::kEdit},
    {"edit_file", ToolKind::kEdit},
    {"search_replace", ToolKind::kEdit},
    {"MultiEdit", ToolKind::kMultiEdit},
    {"NotebookEdit", ToolKind::kNotebookEdit},
    {"Delete", ToolKind::kDelete},
    {"delete_file", ToolKind::kDelete},
    {"Read", ToolKind::kRead},
    {"read_file", ToolKind::kRead},
    {"NotebookRead", ToolKind::kRead},
    {"TabRead", ToolKind::kRead},
    {"Glob", ToolKind::kGlob},
    {"glob_file_search", ToolKind::kGlob},
    {"Grep", ToolKind::kGrep},
    {"grep_search", ToolKind::kGrep},
    {"LS", ToolKind::kList},
    {"WebFetch", ToolKind::kWebFetch},
    {"WebSearch", ToolKind::kWebSearch},
}};

ToolKind KindOf(std::string_view tool) {
  for (const ToolName& t : kTools) {
    if (t.name == tool) return t.kind;
  }
  return ToolKind::kOther;
}

// Field readers. A field present with the wrong type is an error (the host would read it some other
// way than we do); null counts as absent.
class Fields {
 public:
  Fields(const std::string& tool, const JsonValue& input, std::string* error)
      : tool_(tool), input_(input), error_(error) {}

  bool Required(std::initializer_list<std::string_view> names, std::string* out) {
    std::string_view field;
    switch (ReadStringField(input_, names, out, &field)) {
      case FieldRead::kString:
        return true;
      case FieldRead::kWrongType:
        return Fail(field, "a string");
      case FieldRead::kMissing:
        break;
    }
    return Fail(*names.begin(), "present");
  }
  bool Optional(std::initializer_list<std::string_view> names, std::string* out) {
    std::string_view field;
    if (ReadStringField(input_, names, out, &field) != FieldRead::kWrongType) return true;
    return Fail(field, "a string");
  }
  bool Fail(std::string_view field, const char* must_be) {
    *error_ = "tool " + tool_ + ": tool_input." + std::string(field) + " must be " + must_be;
    return false;
  }
  const JsonValue& input() const { return input_; }

 private:
  const std::string& tool_;
  const JsonValue& input_;
  std::string* error_;
};

// Joins a path the way a tool resolves it: relative patterns are under the search root.
std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || (!name.empty() && (name[0] == '/' || name[0] == '~'))) return name;
  if (name.empty()) return dir;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// The local path a file: URL names (file:///etc/x, file://localhost/etc/x, file:/etc/x), its
// percent-escapes decoded; empty when it names no absolute path (a malformed escape stays as
// written: it cannot hide a name the rules look for).
std::string FileUrlPath(std::string_view url) {
  std::string_view rest = url.substr(5);  // after "file:"
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return {};
    rest.remove_prefix(slash);  // the host part (localhost, or empty)
  }
  const size_t end = rest.find_first_of("?#");
  rest = rest.substr(0, end);
  if (rest.empty() || rest[0] != '/') return {};
  return PercentDecode(rest);
}

CallInput ReadCall(const CallInput& base, const std::string& path) {
  CallInput c = base;
  c.tool = kReadTool;
  c.path = path;
  return c;
}

void PushPatchWrites(std::vector<PatchFileOp>* ops, const CallInput& base,
                     std::vector<CallInput>* out) {
  for (PatchFileOp& op : *ops) {
    CallInput c = base;
    c.tool = "apply_patch";
    c.path = std::move(op.path);
    c.content = std::move(op.added);
    out->push_back(std::move(c));
  }
}

// Patches in shell text (`apply_patch <<'EOF' ... EOF` inside `bash -lc`): the shell parser sees a
// heredoc, which is data to it, but Codex applies it. Each file section becomes a write too.
void AddPatchWritesInShellText(std::string_view text, const CallInput& base,
                               std::vector<CallInput>* out) {
  std::vector<PatchFileOp> ops;
  if (text.find("*** ") != std::string_view::npos && SplitApplyPatch(text, &ops)) {
    PushPatchWrites(&ops, base, out);
  }
}

// A patch given as a tool's whole input: it must name at least one file.
bool ConvertPatch(const std::string& tool, std::string_view patch, const CallInput& base,
                  std::vector<CallInput>* out, std::string* error) {
  std::vector<PatchFileOp> ops;
  if (!SplitApplyPatch(patch, &ops)) {
    *error = "tool " + tool + ": the patch names no file";
    return false;
  }
  PushPatchWrites(&ops, base, out);
  return true;
}

bool ConvertShell(const std::string& tool, Fields& f, CallInput call, std::vector<CallInput>* out,
                  std::string* error) {
  const JsonValue* cmd = f.input().Find("command");
  if (cmd == nullptr || cmd->type == JsonType::kNull) cmd = f.input().Find("cmd");
  if (cmd == nullptr || cmd->type == JsonType::kNull) return f.Fail("command", "present");
  std::string workdir;
  if (!f.Optional({"workdir", "working_directory", "cwd"}, &workdir)) return false;
  if (!workdir.empty()) call.cwd = workdir;
  if (cmd->type == JsonType::kString) {
    call.command = cmd->text;
  } else if (cmd->type == JsonType::kArray && !cmd->items.empty()) {
    for (const JsonValue& w : cmd->items) {
      if (w.type != JsonType::kString) return f.Fail("command", "a string or an array of strings");
    }
    // `["apply_patch", PATCH]` is Codex's own file edit, not a program.
    const std::string& argv0 = cmd->items[0].text;
    if ((argv0 == "apply_patch" || argv0 == "applypatch") && cmd->items.size() == 2) {
      return ConvertPatch(tool, cmd->items[1].text, call, out, error);
    }
    for (const JsonValue& w : cmd->items) AppendShellWord(w.text, &call.command);
  } else {
    return f.Fail("command", "a string or a non-empty array of strings");
  }
  const std::string text = call.command;
  CallInput patch_base = call;
  patch_base.command.clear();
  out->push_back(std::move(call));
  AddPatchWritesInShellText(text, patch_base, out);
  return true;
}

}  // namespace

FieldRead ReadStringField(const JsonValue& object, std::initializer_list<std::string_view> names,
                          std::string* out, std::string_view* field) {
  for (std::string_view name : names) {
    const JsonValue* v = object.Find(name);
    if (v == nullptr || v->type == JsonType::kNull) continue;
    *field = name;
    if (v->type != JsonType::kString) return FieldRead::kWrongType;
    *out = v->text;
    return FieldRead::kString;
  }
  return FieldRead::kMissing;
}

void CollectStrings(const JsonValue& v, std::vector<std::string>* out) {
  switch (v.type) {
    case JsonType::kString:
    case JsonType::kNumber:
      out->push_back(v.text);
      break;
    case JsonType::kArray:
      for (const JsonValue& item : v.items) CollectStrings(item, out);
      break;
    case JsonType::kObject:
      for (const auto& [k, item] : v.members) {
        out->push_back(k);
        CollectStrings(item, out);
      }
      break;
    default:
      break;
  }
}

// An MCP tool's arguments read for what they are, besides every string as an argument: a command
// as a shell command, a path as a read (or, when the tool's name says it writes, moves or deletes,
// as a write with the content it carries, and a delete also as `rm -r -f PATH`), a URL as a fetch.
// Extra calls only add verdicts.
void AddMcpArgumentCalls(const std::string& tool, const JsonValue& input, const CallInput& base,
                         std::vector<CallInput>* out) {
  if (input.type != JsonType::kObject) return;
  std::string verb = tool.substr(tool.rfind("__") == std::string::npos ? 0 : tool.rfind("__") + 2);
  for (char& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kWriting[] = {
      "write", "edit",   "create", "save",   "append", "move",  "rename",
      "copy",  "delete", "remove", "upload", "put",    "patch", "replace",
      "mkdir", "update", "insert", "set",    "push",   "commit"};
  bool writes = false;
  for (std::string_view w : kWriting) writes = writes || verb.find(w) != std::string::npos;
  // A tool whose name says it deletes is also read as the shell's recursive delete of each path it
  // is given, so the delete rules judge it: delete_directory on / or a home directory is BLOCK as
  // rm -rf there is, a build folder stays PASS. Reading every delete as recursive and forced can
  // only raise a verdict (a single-file delete tool on a directory is the rare case it overstates).
  static constexpr std::string_view kDeleting[] = {"delete", "remove", "rmdir",   "unlink", "purge",
                                                   "trash",  "wipe",   "destroy", "erase"};
  bool deletes = false;
  for (std::string_view d : kDeleting) deletes = deletes || verb.find(d) != std::string::npos;
  auto is = [](const std::string& key, std::initializer_list<std::string_view> names) {
    std::string k = key;
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view n : names) {
      if (k == n) return true;
    }
    return false;
  };
  auto is_content = [&](const std::string& key) {
    return is(key, {"content", "contents", "text", "body", "data", "new_string", "new_text"});
  };
  auto is_path = [&](const std::string& key) {
    return is(key, {"path", "paths", "file_path", "filepath", "file", "files", "filename", "source",
                    "destination", "target", "dest", "src", "dst", "source_path", "target_path",
                    "destination_path", "directory", "dir"});
  };
  std::string content;
  for (const auto& [key, value] : input.members) {
    if (value.type == JsonType::kString && is_content(key)) content = value.text;
  }
  auto add_path = [&](const std::string& path, const std::string& file_content) {
    if (path.empty()) return;
    if (deletes) {
      CallInput rm = base;
      rm.tool = "Bash";
      rm.command = "rm -r -f --";
      AppendShellWord(path, &rm.command);
      out->push_back(std::move(rm));
    }
    if (!writes) {
      out->push_back(ReadCall(base, path));
      return;
    }
    CallInput w = base;
    w.tool = "Write";
    w.path = path;
    w.content = file_content;
    out->push_back(std::move(w));
  };
  // A list of files, each an object with its own path and content (GitHub's push_files `files`,
  // GitLab's create_commit `actions`): each is a write of its content, whatever the list's key.
  auto add_files = [&](const JsonValue& list) {
    for (const JsonValue& item : list.items) {
      if (item.type != JsonType::kObject) continue;
      std::string path, item_content;
      for (const auto& [key, value] : item.members) {
        if (value.type != JsonType::kString) continue;
        if (is_path(key) && path.empty()) path = value.text;
        if (is_content(key)) item_content = value.text;
      }
      add_path(path, item_content);
    }
  };
  for (const auto& [key, value] : input.members) {
    if (value.type == JsonType::kArray) add_files(value);
    if (is_path(key)) {
      if (value.type == JsonType::kString) add_path(value.text, content);
      if (value.type == JsonType::kArray) {
        for (const JsonValue& item : value.items) {
          if (item.type == JsonType::kString) add_path(item.text, content);
        }
      }
    } else if (value.type == JsonType::kString &&
               is(key, {"command", "cmd", "shell_command", "script", "bash", "shell"})) {
      CallInput c = base;
      c.tool = "Bash";
      c.command = value.text;
      out->push_back(std::move(c));
    } else if (value.type == JsonType::kString &&
               is(key, {"url", "uri", "endpoint", "href", "link", "webhook", "webhook_url"}) &&
               (value.text.rfind("http://", 0) == 0 || value.text.rfind("https://", 0) == 0)) {
      CallInput f = base;
      f.tool = "WebFetch";
      f.url = value.text;
      out->push_back(std::move(f));
    } else if (value.type == JsonType::kString &&
               is(key, {"url", "uri", "href", "link", "file_url"}) &&
               value.text.rfind("file:", 0) == 0) {
      // A browser or fetch tool pointed at file:///etc/shadow reads that file: judged as the
      // Read tool's read of the path.
      const std::string path = FileUrlPath(value.text);
      if (!path.empty()) out->push_back(ReadCall(base, path));
    }
  }
}

bool ConvertToolCall(const std::string& tool, const JsonValue& input, const CallInput& base,
                     std::vector<CallInput>* out, std::string* error) {
  if (tool.empty()) {
    *error = "tool_name is empty";
    return false;
  }
  if (input.type != JsonType::kObject) {
    *error = "tool " + tool + ": tool_input must be a JSON object";
    return false;
  }
  Fields f(tool, input, error);
  CallInput call = base;
  call.tool = tool;
  switch (KindOf(tool)) {
    case ToolKind::kShell:
      return ConvertShell(tool, f, std::move(call), out, error);
    case ToolKind::kPatch: {
      std::string patch;
      if (!f.Required({"command", "input", "patch"}, &patch)) return false;
      return ConvertPatch(tool, patch, call, out, error);
    }
    case ToolKind::kWrite:
      if (!f.Required({"file_path", "path", "target_file"}, &call.path) ||
          !f.Optional({"content", "contents", "file_text"}, &call.content)) {
        return false;
      }
      break;
    case ToolKind::kEdit:
      if (!f.Required({"file_path", "path", "target_file"}, &call.path) ||
          !f.Optional({"new_string", "new_str", "replacement", "code_edit"}, &call.content)) {
        return false;
      }
      break;
    case ToolKind::kMultiEdit: {
      if (!f.Required({"file_path", "path"}, &call.path)) return false;
      const JsonValue* edits = input.Find("edits");
      if (edits == nullptr || edits->type != JsonType::kArray) return f.Fail("edits", "an array");
      for (const JsonValue& e : edits->items) {
        const JsonValue* s = e.Find("new_string");
        if (e.type != JsonType::kObject || s == nullptr || s->type != JsonType::kString) {
          return f.Fail("edits[].new_string", "a string");
        }
        call.content += s->text;
        call.content.push_back('\n');
      }
      break;
    }
    case ToolKind::kNotebookEdit: {
      if (!f.Required({"notebook_path"}, &call.path) ||
          !f.Optional({"new_source"}, &call.content)) {
        return false;
      }
      std::vector<std::string> commands;
      ExtractNotebookShell(call.content, &commands);
      for (std::string& command : commands) {
        CallInput c = base;
        c.tool = "Bash";
        c.command = std::move(command);
        out->push_back(std::move(c));
      }
      break;
    }
    case ToolKind::kDelete:
      if (!f.Required({"file_path", "path", "target_file"}, &call.path)) return false;
      break;
    case ToolKind::kRead: {
      std::string path;
      if (!f.Required({"file_path", "path", "target_file", "notebook_path"}, &path)) return false;
      out->push_back(ReadCall(base, path));
      return true;
    }
    case ToolKind::kGlob: {
      std::string pattern, dir;
      if (!f.Required({"pattern", "glob_pattern"}, &pattern) ||
          !f.Optional({"path", "target_directory"}, &dir)) {
        return false;
      }
      if (!dir.empty()) out->push_back(ReadCall(base, dir + "/*"));
      out->push_back(ReadCall(base, JoinPath(dir, pattern)));
      return true;
    }
    case ToolKind::kGrep: {
      std::string pattern, dir, glob;
      if (!f.Optional({"pattern", "query"}, &pattern) || !f.Optional({"path"}, &dir) ||
          !f.Optional({"glob", "include"}, &glob)) {
        return false;
      }
      // A searched path may be a file or a folder: judged as given, and as a folder's contents
      // ("dir/*": canonical paths drop a trailing slash).
      if (!dir.empty()) {
        out->push_back(ReadCall(base, dir));
        out->push_back(ReadCall(base, dir + "/*"));
      }
      if (!glob.empty()) out->push_back(ReadCall(base, JoinPath(dir, glob)));
      CallInput c = base;
      c.tool = tool;
      if (!pattern.empty()) c.args.push_back(pattern);
      out->push_back(std::move(c));
      return true;
    }
    case ToolKind::kList: {
      std::string dir;
      if (!f.Required({"path", "target_directory"}, &dir)) return false;
      out->push_back(ReadCall(base, dir + "/*"));
      return true;
    }
    case ToolKind::kWebFetch: {
      std::string prompt;
      if (!f.Required({"url"}, &call.url) || !f.Optional({"prompt"}, &prompt)) return false;
      if (!prompt.empty()) call.args.push_back(prompt);
      break;
    }
    case ToolKind::kWebSearch:
    case ToolKind::kOther:
      CollectStrings(input, &call.args);
      if (tool.rfind("mcp__", 0) == 0) AddMcpArgumentCalls(tool, input, base, out);
      break;
  }
  out->push_back(std::move(call));
  return true;
}

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

}  // namespace doberman::guard
