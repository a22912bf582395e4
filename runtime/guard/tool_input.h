// A tool call's input (the host's tool name and its JSON arguments) -> the runtime's call fields.
// One table for every host's tool names (Claude Code, Codex, Cursor). Known tools have their
// argument types checked: a payload the host would run but we cannot read the same way is an error,
// never a quiet PASS. Unknown tools are judged on every string they carry (raise-only).
#ifndef DOBERMAN_GUARD_TOOL_INPUT_H_
#define DOBERMAN_GUARD_TOOL_INPUT_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "doberman/doberman.h"
#include "json.h"

namespace doberman::guard {

// One call's owned fields. A payload may yield several (one per file of a patch, one per shell
// command found in a notebook cell, one per attachment).
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

// The tool name the runtime sees for reads: rules tag it (`tool.file_read`) so that a read of a key
// is judged as a read (AUTH), not as a write (BLOCK).
inline constexpr const char* kReadTool = "Read";

// Appends the calls for one tool invocation. `base` carries the payload's cwd. Returns false with
// `error` when a known tool's input does not have the shape its host documents.
bool ConvertToolCall(const std::string& tool, const internal::JsonValue& input,
                     const CallInput& base, std::vector<CallInput>* out, std::string* error);

// Reads the first of `names` in `object` that is present and not null (hosts send null for an
// absent optional field). kString sets `out`; kWrongType names the field in `field`.
enum class FieldRead { kMissing, kString, kWrongType };
FieldRead ReadStringField(const internal::JsonValue& object,
                          std::initializer_list<std::string_view> names, std::string* out,
                          std::string_view* field);

// Every string key and value of `v`, depth-first; numbers too (an IP or a port can matter).
void CollectStrings(const internal::JsonValue& v, std::vector<std::string>* out);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_TOOL_INPUT_H_
