// Host hook settings as data, and merging them into a user's settings file without losing anything.
#include "host_settings.h"

#include <cstdlib>
#include <utility>

#include "shell_quote.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

JsonValue String(const std::string& s) {
  JsonValue v;
  v.type = JsonType::kString;
  v.text = s;
  return v;
}
JsonValue Number(int n) {
  JsonValue v;
  v.type = JsonType::kNumber;
  v.text = std::to_string(n);
  return v;
}
JsonValue Bool(bool b) {
  JsonValue v;
  v.type = JsonType::kBool;
  v.boolean = b;
  return v;
}
JsonValue Object() {
  JsonValue v;
  v.type = JsonType::kObject;
  return v;
}
JsonValue Array() {
  JsonValue v;
  v.type = JsonType::kArray;
  return v;
}

// The member `key` of `object`, added (as `fresh`) when missing.
JsonValue* Member(JsonValue* object, const std::string& key, JsonValue fresh) {
  for (auto& [k, v] : object->members) {
    if (k == key) return &v;
  }
  object->members.emplace_back(key, std::move(fresh));
  return &object->members.back().second;
}

void Set(JsonValue* object, const std::string& key, JsonValue value) {
  *Member(object, key, JsonValue{}) = std::move(value);
}

// Claude Code and Codex nest handlers in groups ({matcher, hooks: [...]}); Cursor lists them.
bool Grouped(Host host) { return host != Host::kCursor; }

// A group whose every handler is ours (replaceable as a whole).
bool OnlyOurs(const JsonValue& group) {
  const JsonValue* hooks = group.Find("hooks");
  if (hooks == nullptr || hooks->type != JsonType::kArray || hooks->items.empty()) return false;
  for (const JsonValue& h : hooks->items) {
    if (!IsOurHandler(h)) return false;
  }
  return true;
}

// Takes our handlers out of one entry of an event's list; false when nothing of it is left.
bool StripEntry(Host host, JsonValue* entry, int* removed) {
  if (!Grouped(host)) {
    if (!IsOurHandler(*entry)) return true;
    ++*removed;
    return false;
  }
  if (entry->type != JsonType::kObject) return true;
  JsonValue* hooks = nullptr;
  for (auto& [k, v] : entry->members) {
    if (k == "hooks") hooks = &v;
  }
  if (hooks == nullptr || hooks->type != JsonType::kArray) return true;
  std::vector<JsonValue> handlers;
  for (JsonValue& h : hooks->items) {
    if (IsOurHandler(h)) {
      ++*removed;
    } else {
      handlers.push_back(std::move(h));
    }
  }
  hooks->items = std::move(handlers);
  return !hooks->items.empty();
}

// Removes our handlers from one event's list; returns how many. Groups left empty go too.
int StripOurs(Host host, JsonValue* list) {
  int removed = 0;
  std::vector<JsonValue> kept;
  for (JsonValue& entry : list->items) {
    if (StripEntry(host, &entry, &removed)) kept.push_back(std::move(entry));
  }
  list->items = std::move(kept);
  return removed;
}

// Checks the shape we are about to edit: settings an object, `hooks` an object, each event a list.
bool CheckShape(const JsonValue& settings, std::string* error) {
  if (settings.type != JsonType::kObject) {
    *error = "the settings file is not a JSON object";
    return false;
  }
  const JsonValue* hooks = settings.Find("hooks");
  if (hooks == nullptr) return true;
  if (hooks->type != JsonType::kObject) {
    *error = "\"hooks\" is not an object";
    return false;
  }
  for (const auto& [event, list] : hooks->members) {
    if (list.type != JsonType::kArray) {
      *error = "\"hooks\".\"" + event + "\" is not a list";
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<HookEventSpec> RequiredEvents(Host host) {
  switch (host) {
    case Host::kClaudeCode:
      return {{"UserPromptSubmit", false},
              {"PreToolUse", true},
              {"PreSkillShellCommand", true},
              {"PostToolUse", true}};
    case Host::kCodex:
      return {{"PreToolUse", true}, {"UserPromptSubmit", false}, {"PostToolUse", true}};
    case Host::kCursor:
      return {{"beforeSubmitPrompt", false}, {"beforeShellExecution", false},
              {"beforeMCPExecution", false}, {"beforeReadFile", false},
              {"preToolUse", false},         {"postToolUse", false},
              {"subagentStart", false}};
    case Host::kAny:
      break;
  }
  return {};
}

std::string SettingsPath(Host host, const std::string& project_dir) {
  const char* home_env = std::getenv("HOME");
  const std::string home = home_env != nullptr ? home_env : "";
  if (host == Host::kClaudeCode)
    return (project_dir.empty() ? home : project_dir) + "/.claude/settings.json";
  if (host == Host::kCursor)
    return (project_dir.empty() ? home : project_dir) + "/.cursor/hooks.json";
  if (!project_dir.empty()) return project_dir + "/.codex/hooks.json";
  const char* codex_home = std::getenv("CODEX_HOME");
  return (codex_home != nullptr && *codex_home != '\0' ? std::string(codex_home)
                                                       : home + "/.codex") +
         "/hooks.json";
}

std::string HookCommand(Host host, const GuardCommand& g) {
  std::string line;
  AppendShellWord(g.guard, &line);
  line += std::string(" hook ") + HostName(host) + " --pack";
  AppendShellWord(g.pack, &line);
  for (const std::string& k : g.pubkeys) {
    line += " --pubkey";
    AppendShellWord(k, &line);
  }
  if (!g.state_dir.empty()) {
    line += " --state-dir";
    AppendShellWord(g.state_dir, &line);
  }
  if (host != Host::kCodex) return line;
  return "timeout -k 2 10 " + line +
         " || { echo 'Doberman BLOCK: the guard is missing, failed or timed out (failing closed)' "
         ">&2; exit 2; }";
}

JsonValue OurHandler(Host host, const std::string& command) {
  JsonValue h = Object();
  if (host == Host::kCursor) {
    Set(&h, "command", String(command));
    Set(&h, "timeout", Number(10));
    Set(&h, "failClosed", Bool(true));
    return h;
  }
  Set(&h, "type", String("command"));
  Set(&h, "command", String(command));
  if (host == Host::kCodex) {
    Set(&h, "timeout", Number(15));  // above the wrapper's own `timeout -k 2 10`
  } else {
    Set(&h, "timeout", Number(10));  // above the guard's own 5 s deadline
    Set(&h, "onFailure", String("block"));
  }
  return h;
}

bool IsOurHandler(const JsonValue& handler) {
  const std::string* command = handler.FindString("command");
  return command != nullptr && (command->find("doberman-guard") != std::string::npos ||
                                command->find("doberman-hook") != std::string::npos);
}

bool MergeOurHooks(Host host, const std::string& command, JsonValue* settings, std::string* error) {
  if (settings->type == JsonType::kNull) *settings = Object();
  if (!CheckShape(*settings, error)) return false;
  JsonValue copy = *settings;
  if (host == Host::kCursor) {
    JsonValue* version = Member(&copy, "version", Number(1));
    if (version->type != JsonType::kNumber) {
      *error = "\"version\" is not a number";
      return false;
    }
  }
  JsonValue* hooks = Member(&copy, "hooks", Object());
  for (const HookEventSpec& event : RequiredEvents(host)) {
    JsonValue* list = Member(hooks, event.name, Array());
    JsonValue entry = OurHandler(host, command);
    if (Grouped(host)) {
      JsonValue group = Object();
      if (event.matcher) Set(&group, "matcher", String("*"));
      JsonValue handlers = Array();
      handlers.items.push_back(std::move(entry));
      Set(&group, "hooks", std::move(handlers));
      entry = std::move(group);
    }
    // In place of the first entry that is wholly ours (so that reinstalling changes nothing and
    // the user's order stays); ours elsewhere is taken out.
    size_t slot = list->items.size();
    for (size_t i = 0; i < list->items.size(); ++i) {
      const JsonValue& e = list->items[i];
      if (Grouped(host) ? OnlyOurs(e) : IsOurHandler(e)) {
        slot = i;
        break;
      }
    }
    std::vector<JsonValue> items;
    int removed = 0;
    for (size_t i = 0; i < list->items.size(); ++i) {
      if (i == slot) {
        items.push_back(entry);
      } else if (StripEntry(host, &list->items[i], &removed)) {
        items.push_back(std::move(list->items[i]));
      }
    }
    if (slot == list->items.size()) items.push_back(std::move(entry));
    list->items = std::move(items);
  }
  *settings = std::move(copy);
  return true;
}

bool RemoveOurHooks(Host host, JsonValue* settings, int* removed, std::string* error) {
  *removed = 0;
  if (!CheckShape(*settings, error)) return false;
  JsonValue* hooks = nullptr;
  for (auto& [k, v] : settings->members) {
    if (k == "hooks") hooks = &v;
  }
  if (hooks == nullptr) return true;
  std::vector<std::pair<std::string, JsonValue>> kept;
  for (auto& [event, list] : hooks->members) {
    const int n = StripOurs(host, &list);
    *removed += n;
    if (n > 0 && list.items.empty())
      continue;  // an event we emptied goes; the user's empty ones stay
    kept.emplace_back(event, std::move(list));
  }
  hooks->members = std::move(kept);
  return true;
}

std::vector<std::string> SplitCommandWords(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == '\'') {
      in_word = true;
      const size_t close = command.find('\'', i + 1);
      if (close == std::string::npos) return {};  // unbalanced: not a command we wrote
      word.append(command, i + 1, close - i - 1);
      i = close;
    } else if (c == '\\' && i + 1 < command.size()) {
      in_word = true;
      word.push_back(command[++i]);
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      in_word = true;
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace doberman::guard
