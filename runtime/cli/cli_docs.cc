// Renders a ProgramDoc as --help text, bash and zsh completion scripts and a man page.
#include "cli_docs.h"

#include <cstdio>

namespace doberman::cli {
namespace {

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The shell function name: "doberman-guard" -> "_doberman_guard".
std::string FunctionName(const std::string& program) {
  std::string f = "_" + program;
  for (char& c : f)
    if (c == '-') c = '_';
  return f;
}

std::vector<const OptionDoc*> OptionsOf(const ProgramDoc& doc, const CommandDoc& c) {
  std::vector<const OptionDoc*> out;
  for (const auto& o : c.options) out.push_back(&o);
  for (const auto& o : doc.global_options) out.push_back(&o);
  return out;
}

std::string Synopsis(const ProgramDoc& doc, const CommandDoc& c) {
  std::string s = doc.name + " " + c.name;
  if (!c.operands.empty() && c.operands.rfind("--", 0) != 0) s += " " + c.operands;
  for (const OptionDoc* o : OptionsOf(doc, c)) {
    s += " [" + o->flag + (o->value.empty() ? "" : " " + o->value) + "]";
    if (o->repeatable) s += "...";
  }
  if (c.operands.rfind("--", 0) == 0) s += " " + c.operands;
  return s;
}

// Wraps `text` at `width`, each line indented by `indent`.
std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string OptionLabel(const OptionDoc& o) {
  std::string label = o.short_flag.empty() ? o.flag : o.short_flag + ", " + o.flag;
  if (!o.value.empty()) label += " " + o.value;
  if (o.repeatable) label += "...";
  return label;
}

std::string OptionHelp(const OptionDoc& o) {
  std::string help = o.help;
  if (!o.choices.empty()) help += " (" + Join(o.choices, ", ") + ")";
  return help;
}

// "    --pack P              help, wrapped with a hanging indent"
std::string OptionLine(const OptionDoc& o) {
  constexpr size_t kColumn = 30;
  const std::string label = "    " + OptionLabel(o);
  std::string text = Wrap(OptionHelp(o), kColumn, 100);
  if (text.empty()) return label + "\n";
  if (label.size() + 2 > kColumn) return label + "\n" + text;
  return label + std::string(kColumn - label.size(), ' ') + text.substr(kColumn);
}

std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out.push_back(c);
    }
    line_start = c == '\n';
  }
  return out;
}

// Text inside a zsh _arguments description: no brackets, colons or single quotes.
std::string ZshText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == '(') {
      out.push_back('(');
    } else if (c == ']' || c == ')') {
      out.push_back(')');
    } else if (c == ':') {
      out.push_back(' ');
    } else if (c == '\'') {
      out += "'\\''";
    } else if (c == '\n') {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string ZshAction(ValueKind kind, const std::vector<std::string>& choices) {
  if (!choices.empty()) return "(" + Join(choices, " ") + ")";
  switch (kind) {
    case ValueKind::kFile:
      return "_files";
    case ValueKind::kDirectory:
      return "_files -/";
    case ValueKind::kCommand:
      return "_command_names -e";
    default:
      return " ";
  }
}

std::string ZshSpec(const OptionDoc& o) {
  std::string names = o.short_flag.empty() ? o.flag : "{" + o.short_flag + "," + o.flag + "}";
  std::string spec = (o.repeatable ? "'*'" : "") + names + "'[" + ZshText(OptionHelp(o)) + "]";
  if (!o.value.empty()) spec += ":" + ZshText(o.value) + ":" + ZshAction(o.kind, o.choices);
  return spec + "'";
}

std::string BashValueCompletion(ValueKind kind, const std::vector<std::string>& choices) {
  if (!choices.empty())
    return "COMPREPLY=($(compgen -W \"" + Join(choices, " ") + "\" -- \"$cur\"))";
  switch (kind) {
    case ValueKind::kFile:
      return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    case ValueKind::kDirectory:
      return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    case ValueKind::kCommand:
      return "COMPREPLY=($(compgen -c -- \"$cur\"))";
    default:
      return "COMPREPLY=()";
  }
}

}  // namespace

const CommandDoc* FindCommand(const ProgramDoc& doc, const std::string& name) {
  for (const auto& c : doc.commands)
    if (c.name == name) return &c;
  return nullptr;
}

const OptionDoc* FindOption(const ProgramDoc& doc, const CommandDoc* command,
                            const std::string& flag) {
  if (command != nullptr) {
    for (const auto& o : command->options)
      if (o.flag == flag || (!o.short_flag.empty() && o.short_flag == flag)) return &o;
  }
  for (const auto& o : doc.global_options)
    if (o.flag == flag || (!o.short_flag.empty() && o.short_flag == flag)) return &o;
  return nullptr;
}

std::string RenderUsage(const ProgramDoc& doc) {
  std::string out = doc.name + ": " + doc.summary + "\n\n";
  for (const auto& c : doc.commands) {
    std::string synopsis = Wrap(Synopsis(doc, c), 4, 100);
    out += synopsis.substr(4);  // the first line flush left, continuations indented
  }
  out += "\nCommands:\n";
  for (const auto& c : doc.commands) {
    out += "  " + c.name + (c.operands.empty() ? "" : " " + c.operands) + "\n";
    out += Wrap(c.summary + "." + (c.description.empty() ? "" : " " + c.description), 6, 100);
  }
  // Each option once, with the help of its first command.
  out += "\nOptions:\n";
  std::vector<std::string> seen;
  auto add = [&](const OptionDoc& o) {
    for (const auto& f : seen)
      if (f == o.flag) return;
    seen.push_back(o.flag);
    out += OptionLine(o);
  };
  for (const auto& o : doc.global_options) add(o);
  for (const auto& c : doc.commands)
    for (const auto& o : c.options) add(o);
  out += "    --help                    this text\n";
  if (!doc.environment.empty()) {
    out += "\nEnvironment:\n";
    for (const auto& [var, meaning] : doc.environment)
      out += "  " + var + "\n" + Wrap(meaning, 6, 100);
  }
  if (!doc.exit_status.empty()) out += "\nExit status:\n" + Wrap(doc.exit_status, 2, 100);
  return out;
}

std::string RenderBashCompletion(const ProgramDoc& doc) {
  const std::string fn = FunctionName(doc.name);
  std::vector<std::string> names;
  for (const auto& c : doc.commands) names.push_back(c.name);
  std::string valued;  // options that take a value, for skipping while finding the command
  for (const auto& o : doc.global_options)
    if (!o.value.empty()) valued += (valued.empty() ? "" : "|") + o.flag;
  std::string out = "# bash completion for " + doc.name + " (generated by `" + doc.name +
                    " completion bash`; do not edit)\n";
  out += fn + "() {\n";
  out += "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
  out += "  local cmd=\"\" cmd_index=0 i\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    case \"${COMP_WORDS[i]}\" in\n";
  if (!valued.empty()) out += "      " + valued + ") ((i++)) ;;\n";
  out += "      -*) ;;\n";
  out += "      *) cmd=\"${COMP_WORDS[i]}\"; cmd_index=$i; break ;;\n";
  out += "    esac\n  done\n";
  out += "  if [[ -z \"$cmd\" ]]; then\n";
  out += "    case \"$prev\" in\n";
  for (const auto& o : doc.global_options) {
    if (!o.value.empty())
      out += "      " + o.flag + ") " + BashValueCompletion(o.kind, o.choices) + "; return ;;\n";
  }
  out += "    esac\n";
  std::vector<std::string> globals;
  for (const auto& o : doc.global_options) {
    globals.push_back(o.flag);
    if (!o.short_flag.empty()) globals.push_back(o.short_flag);
  }
  out += "    if [[ \"$cur\" == -* ]]; then\n";
  out += "      COMPREPLY=($(compgen -W \"" + Join(globals, " ") + " --help\" -- \"$cur\"))\n";
  out += "    else\n";
  out += "      COMPREPLY=($(compgen -W \"" + Join(names, " ") + "\" -- \"$cur\"))\n";
  out += "    fi\n    return\n  fi\n";
  out += "  case \"$cmd\" in\n";
  for (const auto& c : doc.commands) {
    out += "    " + c.name + ")\n";
    out += "      case \"$prev\" in\n";
    std::vector<std::string> flags;
    for (const OptionDoc* o : OptionsOf(doc, c)) {
      flags.push_back(o->flag);
      if (!o->short_flag.empty()) flags.push_back(o->short_flag);
      if (!o->value.empty())
        out += "        " + o->flag + ") " + BashValueCompletion(o->kind, o->choices) +
               "; return ;;\n";
    }
    out += "      esac\n";
    out += "      if [[ \"$cur\" == -* ]]; then\n";
    out += "        COMPREPLY=($(compgen -W \"" + Join(flags, " ") + " --help\" -- \"$cur\"))\n";
    if (!c.operand_choices.empty()) {
      // The operand (a host, say) comes right after the command.
      out += "      elif ((COMP_CWORD == cmd_index + 1)); then\n";
      out += "        " + BashValueCompletion(c.operand_kind, c.operand_choices) + "\n";
    } else if (c.operand_kind != ValueKind::kNone) {
      out += "      else\n        " + BashValueCompletion(c.operand_kind, {}) + "\n";
    }
    out += "      fi\n      ;;\n";
  }
  out += "  esac\n}\n";
  out += "complete -F " + fn + " " + doc.name + "\n";
  return out;
}

std::string RenderZshCompletion(const ProgramDoc& doc) {
  const std::string fn = FunctionName(doc.name);
  std::string out = "#compdef " + doc.name + "\n# zsh completion for " + doc.name +
                    " (generated by `" + doc.name + " completion zsh`; do not edit)\n\n";
  out += fn + "() {\n  local curcontext=\"$curcontext\" state line\n  local -a commands\n";
  out += "  commands=(\n";
  for (const auto& c : doc.commands) out += "    '" + c.name + ":" + ZshText(c.summary) + "'\n";
  out += "  )\n";
  out += "  _arguments -C \\\n";
  for (const auto& o : doc.global_options) out += "    " + ZshSpec(o) + " \\\n";
  out += "    '1: :->command' '*:: :->args' && return\n";
  out += "  case $state in\n    command) _describe -t commands '" + doc.name +
         " command' commands ;;\n    args)\n      case $line[1] in\n";
  for (const auto& c : doc.commands) {
    out += "        " + c.name + ")\n          _arguments \\\n";
    for (const auto& o : c.options) out += "            " + ZshSpec(o) + " \\\n";
    if (!c.operand_choices.empty()) {
      out += "            '1:" + ZshText(c.operands) + ":" +
             ZshAction(c.operand_kind, c.operand_choices) + "' \\\n";
    } else if (c.operand_kind != ValueKind::kNone) {
      out +=
          "            '*:" + ZshText(c.operands) + ":" + ZshAction(c.operand_kind, {}) + "' \\\n";
    }
    out += "            '--help[show help]' ;;\n";
  }
  out += "      esac ;;\n  esac\n}\n\n" + fn + " \"$@\"\n";
  return out;
}

std::string RenderManPage(const ProgramDoc& doc) {
  std::string upper;
  for (char c : doc.name) upper.push_back(static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c));
  std::string out = ".\\\" Generated by `" + doc.name + " man`; do not edit.\n";
  out += ".TH " + upper + " 1 \"\" \"doberman " + Roff(doc.version) + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + Roff(doc.name) + " \\- " + Roff(doc.summary) + "\n";
  out += ".SH SYNOPSIS\n";
  for (const auto& c : doc.commands) {
    out += ".B " + Roff(doc.name) + " " + Roff(c.name) + "\n";
    if (!c.operands.empty()) out += ".I " + Roff(c.operands) + "\n";
    out += "[\\fIoptions\\fR]\n.br\n";
  }
  if (!doc.description.empty()) out += ".SH DESCRIPTION\n" + Roff(doc.description) + "\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : doc.commands) {
    out += ".TP\n.B " + Roff(c.name) +
           (c.operands.empty() ? "" : " \\fI" + Roff(c.operands) + "\\fR") + "\n" +
           Roff(c.summary) + "." + (c.description.empty() ? "" : " " + Roff(c.description)) + "\n";
    if (!c.options.empty()) {
      out += ".RS\n";
      for (const auto& o : c.options) {
        out += ".TP\n.B " + Roff(OptionLabel(o)) + "\n" + Roff(OptionHelp(o)) + "\n";
      }
      out += ".RE\n";
    }
  }
  if (!doc.global_options.empty()) {
    out += ".SH OPTIONS\nThese apply to every command.\n";
    for (const auto& o : doc.global_options)
      out += ".TP\n.B " + Roff(OptionLabel(o)) + "\n" + Roff(OptionHelp(o)) + "\n";
  }
  if (!doc.environment.empty()) {
    out += ".SH ENVIRONMENT\n";
    for (const auto& [var, meaning] : doc.environment)
      out += ".TP\n.B " + Roff(var) + "\n" + Roff(meaning) + "\n";
  }
  if (!doc.exit_status.empty()) out += ".SH EXIT STATUS\n" + Roff(doc.exit_status) + "\n";
  if (!doc.see_also.empty()) {
    out += ".SH SEE ALSO\n";
    for (size_t i = 0; i < doc.see_also.size(); ++i) {
      const std::string& s = doc.see_also[i];
      const size_t paren = s.find('(');
      out += ".BR " + Roff(s.substr(0, paren)) + " " + s.substr(paren) +
             (i + 1 < doc.see_also.size() ? " ," : "") + "\n";
    }
  }
  return out;
}

int PrintGenerated(const ProgramDoc& doc, const std::string& what, const std::string& shell) {
  std::string text;
  if (what == "man") {
    text = RenderManPage(doc);
  } else if (what == "completion" && shell == "bash") {
    text = RenderBashCompletion(doc);
  } else if (what == "completion" && shell == "zsh") {
    text = RenderZshCompletion(doc);
  } else {
    std::fprintf(stderr, "%s: completion takes bash or zsh\n", doc.name.c_str());
    return 2;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace doberman::cli
