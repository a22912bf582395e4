// The guard's payload readers, white-box: apply_patch sections, notebook shell extraction, and tool
// inputs per host (field spellings, types, the calls each tool becomes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apply_patch.h"
#include "hook_payload.h"
#include "json.h"
#include "notebook_shell.h"
#include "tool_input.h"

namespace doberman::guard {
namespace {

std::vector<std::string> Shell(std::string_view source) {
  std::vector<std::string> out;
  ExtractNotebookShell(source, &out);
  return out;
}

TEST(ApplyPatch, EverySectionAndMoveIsAFileWithItsAddedLines) {
  std::vector<PatchFileOp> ops;
  ASSERT_TRUE(
      SplitApplyPatch("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n context\n"
                      "*** Move to: b.py\n*** Add File: c.txt\n+one\n+two\n"
                      "*** Delete File: d\n*** End Patch\n",
                      &ops));
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].path, "a.py");
  EXPECT_EQ(ops[0].added, "y\n");
  EXPECT_EQ(ops[1].path, "b.py");
  EXPECT_EQ(ops[2].path, "c.txt");
  EXPECT_EQ(ops[2].added, "one\ntwo\n");
  EXPECT_EQ(ops[3].path, "d");
}

TEST(ApplyPatch, IndentedHeadersCrLfAndNoFile) {
  std::vector<PatchFileOp> ops;
  ASSERT_TRUE(SplitApplyPatch("  *** Add File: /home/u/.ssh/authorized_keys \r\n+key\r\n", &ops));
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].path, "/home/u/.ssh/authorized_keys");
  EXPECT_EQ(ops[0].added, "key\n");
  ops.clear();
  EXPECT_FALSE(SplitApplyPatch("+just lines\n-no header\n", &ops));
  EXPECT_TRUE(ops.empty());
}

TEST(NotebookShell, CellMagicsLineEscapesAndCalls) {
  EXPECT_EQ(Shell("%%bash\nrm -rf ~\necho hi"), std::vector<std::string>{"rm -rf ~\necho hi"});
  EXPECT_EQ(Shell("\n%%script bash --no-raise-error\nls"), std::vector<std::string>{"ls"});
  EXPECT_EQ(Shell("print(1)\n  !pip install x\nfiles = !ls -la\ny = %sx whoami"),
            (std::vector<std::string>{"pip install x", "ls -la", "whoami"}));
  EXPECT_EQ(Shell("import os\nos.system('rm -rf \"$HOME\"')"),
            std::vector<std::string>{"rm -rf \"$HOME\""});
  EXPECT_EQ(Shell("subprocess.run(['rm', '-rf', \"/\"], check=True)"),
            std::vector<std::string>{"'rm' '-rf' '/'"});
  EXPECT_EQ(Shell("subprocess.check_output(\n    r'''curl x | sh''',\n shell=True)"),
            std::vector<std::string>{"curl x | sh"});
  // Not a literal: the expression's text is still judged, never skipped.
  EXPECT_EQ(Shell("os.popen(cmd + ' -rf /')"), std::vector<std::string>{"cmd + ' -rf /'"});
  EXPECT_TRUE(Shell("x = 1\nprint('!not a shell escape')").empty());
}

struct Converted {
  bool ok;
  std::string error;
  std::vector<CallInput> calls;
};

Converted Convert(const std::string& tool, const std::string& input_json) {
  internal::JsonValue input;
  internal::JsonError jerr;
  EXPECT_TRUE(internal::ParseJson(input_json, {}, &input, &jerr)) << jerr.message;
  Converted c;
  CallInput base;
  base.cwd = "/w";
  c.ok = ConvertToolCall(tool, input, base, &c.calls, &c.error);
  return c;
}

TEST(ToolInput, ShellSpellingsOfEveryHost) {
  for (const char* tool : {"Bash", "Shell", "shell", "exec_command"}) {
    Converted c = Convert(tool, R"({"command":"ls -la"})");
    ASSERT_TRUE(c.ok) << tool;
    ASSERT_EQ(c.calls.size(), 1u);
    EXPECT_EQ(c.calls[0].command, "ls -la");
  }
  Converted c = Convert("exec_command", R"({"cmd":"make","workdir":"/src"})");
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.calls[0].command, "make");
  EXPECT_EQ(c.calls[0].cwd, "/src");
  c = Convert("shell", R"({"command":["bash","-lc","echo 'a b'"]})");
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.calls[0].command, R"('bash' '-lc' 'echo '\''a b'\''')");
}

TEST(ToolInput, PatchesInHeredocsAreWrites) {
  Converted c = Convert(
      "Bash",
      R"({"command":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.sh\n+echo\n*** End Patch\nEOF"})");
  ASSERT_TRUE(c.ok);
  ASSERT_EQ(c.calls.size(), 2u);
  EXPECT_EQ(c.calls[1].tool, "apply_patch");
  EXPECT_EQ(c.calls[1].path, "x.sh");
  EXPECT_EQ(c.calls[1].content, "echo\n");
  EXPECT_TRUE(c.calls[1].command.empty());
}

TEST(ToolInput, ReadsBecomeReadCallsWithFolderContents) {
  Converted c = Convert("Grep", R"({"pattern":"tok","path":"/h/.aws","glob":"*.ini"})");
  ASSERT_TRUE(c.ok);
  ASSERT_EQ(c.calls.size(), 4u);
  EXPECT_EQ(c.calls[0].tool, kReadTool);
  EXPECT_EQ(c.calls[0].path, "/h/.aws");
  EXPECT_EQ(c.calls[1].path, "/h/.aws/*");
  EXPECT_EQ(c.calls[2].path, "/h/.aws/*.ini");
  EXPECT_EQ(c.calls[3].args, std::vector<std::string>{"tok"});
  c = Convert("Glob", R"({"pattern":"**/*.pem"})");
  ASSERT_TRUE(c.ok);
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].path, "**/*.pem");
}

TEST(ToolInput, McpDeleteToolsAreAlsoReadAsRecursiveDeletes) {
  // Each path a deleting tool is given becomes a write of that path and `rm -r -f -- 'PATH'`, so
  // the shell's delete rules judge it; other tools' paths do not.
  Converted c = Convert("mcp__fs__delete_directory", R"({"paths":["/home/u","it's here"]})");
  ASSERT_TRUE(c.ok) << c.error;
  std::vector<std::string> commands;
  for (const CallInput& call : c.calls) {
    if (call.tool == "Bash") commands.push_back(call.command);
  }
  EXPECT_EQ(commands,
            (std::vector<std::string>{"rm -r -f -- '/home/u'", "rm -r -f -- 'it'\\''s here'"}));
  for (const char* tool : {"mcp__fs__write_file", "mcp__fs__read_file"}) {
    c = Convert(tool, R"({"path":"/home/u","content":"x"})");
    ASSERT_TRUE(c.ok) << tool;
    for (const CallInput& call : c.calls) EXPECT_NE(call.tool, "Bash") << tool;
  }
  c = Convert("mcp__gh__remove_label",
              R"({"repo":"o/r","label":"bug"})");  // no path: nothing to rm
  ASSERT_TRUE(c.ok);
  for (const CallInput& call : c.calls) EXPECT_NE(call.tool, "Bash");
}

TEST(ToolInput, McpFileListsAreWritesOfEachFilesOwnContent) {
  // GitHub's push_files: `files` is a list of {path, content}; each is a write of its own content.
  Converted c = Convert("mcp__github__push_files",
                        R"({"owner":"o","repo":"r","branch":"main","files":[)"
                        R"({"path":".github/workflows/x.yml","content":"run: curl x"},)"
                        R"({"path":"README.md","content":"# r"}]})");
  ASSERT_TRUE(c.ok) << c.error;
  std::vector<std::pair<std::string, std::string>> writes;
  for (const CallInput& call : c.calls) {
    if (call.tool == "Write") writes.emplace_back(call.path, call.content);
  }
  EXPECT_EQ(writes, (std::vector<std::pair<std::string, std::string>>{
                        {".github/workflows/x.yml", "run: curl x"}, {"README.md", "# r"}}));
  // GitLab's create_commit: the list is `actions` and the path `file_path`.
  c = Convert("mcp__gitlab__create_commit",
              R"({"actions":[{"action":"create","file_path":"a.sh","content":"rm -rf ~"}]})");
  ASSERT_TRUE(c.ok) << c.error;
  writes.clear();
  for (const CallInput& call : c.calls) {
    if (call.tool == "Write") writes.emplace_back(call.path, call.content);
  }
  EXPECT_EQ(writes, (std::vector<std::pair<std::string, std::string>>{{"a.sh", "rm -rf ~"}}));
  // A list of objects without paths adds no call; a reading tool's listed paths are reads.
  c = Convert("mcp__x__create_labels", R"({"labels":[{"name":"bug","color":"red"}]})");
  ASSERT_TRUE(c.ok);
  for (const CallInput& call : c.calls) EXPECT_NE(call.tool, "Write");
  c = Convert("mcp__x__read_files", R"({"files":[{"path":"/h/.ssh/id_rsa"}]})");
  ASSERT_TRUE(c.ok);
  bool read = false;
  for (const CallInput& call : c.calls)
    read = read || (call.tool == kReadTool && call.path == "/h/.ssh/id_rsa");
  EXPECT_TRUE(read);
}

TEST(ToolInput, McpFileUrlsAreReadsOfTheirPath) {
  // A browser or fetch tool pointed at a file: URL reads that file: the call is a Read of the
  // path, percent-escapes decoded, so the path rules judge it as they judge the Read tool.
  auto read_paths = [](const Converted& c) {
    std::vector<std::string> paths;
    for (const CallInput& call : c.calls) {
      if (call.tool == kReadTool) paths.push_back(call.path);
    }
    return paths;
  };
  Converted c = Convert("mcp__puppeteer__navigate", R"({"url":"file:///etc/shadow"})");
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(read_paths(c), std::vector<std::string>{"/etc/shadow"});
  c = Convert("mcp__browser__open", R"({"href":"file://localhost/home/u/.ssh/id%5Frsa?x#y"})");
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(read_paths(c), std::vector<std::string>{"/home/u/.ssh/id_rsa"});
  c = Convert("mcp__browser__open", R"({"url":"file:/home/u/50%25%zz.txt"})");
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(read_paths(c), std::vector<std::string>{"/home/u/50%%zz.txt"});
  // No absolute path, or an http URL: no read.
  for (const char* input : {R"({"url":"file://host-only"})", R"({"url":"file:relative/x"})",
                            R"({"url":"https://example.com/etc/shadow"})"}) {
    c = Convert("mcp__browser__open", input);
    ASSERT_TRUE(c.ok) << input;
    EXPECT_TRUE(read_paths(c).empty()) << input;
  }
}

TEST(ToolInput, WrongTypesAreErrorsNamingTheField) {
  for (auto [tool, input, field] : std::vector<std::tuple<const char*, const char*, const char*>>{
           {"Bash", "{}", "command"},
           {"Bash", R"({"command":7})", "command"},
           {"Write", R"({"file_path":"a","content":{"x":1}})", "content"},
           {"MultiEdit", R"({"file_path":"a","edits":[{"new_string":1}]})", "edits[].new_string"},
           {"WebFetch", R"({"url":null})", "url"},
           {"NotebookEdit", R"({"new_source":"x"})", "notebook_path"}}) {
    Converted c = Convert(tool, input);
    EXPECT_FALSE(c.ok) << tool << " " << input;
    EXPECT_NE(c.error.find(field), std::string::npos) << c.error;
  }
  Converted c = Convert("mcp__x__y", "[1]");
  EXPECT_FALSE(c.ok);
}

TEST(HookPayload, EventsAreHostSpecificAndUnknownNamesAreNotEchoed) {
  internal::JsonValue v;
  internal::JsonError jerr;
  ASSERT_TRUE(internal::ParseJson(R"({"hook_event_name":"beforeShellExecution","command":"ls"})",
                                  {}, &v, &jerr));
  ParsedPayload p;
  std::string error;
  EXPECT_TRUE(ConvertPayload(v, Host::kCursor, &p, &error)) << error;
  p = {};
  EXPECT_FALSE(ConvertPayload(v, Host::kClaudeCode, &p, &error));
  ASSERT_TRUE(internal::ParseJson(R"({"hook_event_name":"sk_live_secret_value"})", {}, &v, &jerr));
  EXPECT_FALSE(ConvertPayload(v, Host::kAny, &p, &error));
  EXPECT_EQ(error.find("sk_live"), std::string::npos) << error;
}

}  // namespace
}  // namespace doberman::guard
