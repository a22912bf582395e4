// Command lines that another machine or a container runs from this command's words: ssh's remote
// command, `docker|podman|nerdctl run|create|exec ... IMAGE CMD`, `docker compose run|exec SERVICE
// CMD` and `kubectl|oc exec|run|debug ... -- CMD`. They run elsewhere, but deleting a server's root
// or posting a container's mounted keys is the agent's act as much as doing it here.
// A container's command is this machine's work with argv semantics: it becomes a command of this
// line (like find -exec). ssh and kubectl send their command to another machine and bring its
// output back, so that command is read apart, like a script being written (SegmentList::
// detached_scripts, BLOCK only): `ssh host env` shows a server's environment here, which must not
// combine with ssh's own egress into an environment export, while `ssh host 'rm -rf /'` is still
// the catastrophic delete. ssh joins its words with spaces for the remote shell; kubectl passes
// argv, read here joined the same way (quoting inside the words is not kept).
// Reading options needs to know which take a value; an option this file does not know shifts the
// reading by one word at worst, which makes the image or host look like the command
// (over-inclusive: the real command is then an argument of it and still seen by the raw-text
// rules).
#include <algorithm>
#include <cstddef>
#include <string_view>

#include "shell_parser.h"

namespace doberman::internal {

using shell_parser::EqualsAsciiCaseless;
using shell_parser::Level;
using shell_parser::NextWord;
using shell_parser::View;

namespace {

bool Contains(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }

template <size_t N>
bool OneOf(const std::string_view (&names)[N], std::string_view v) {
  return std::find(std::begin(names), std::end(names), v) != std::end(names);
}

// One program's option grammar: short letters that take a value (`-p 22`, `-p22`), and long
// options that take none (every other `--name` without `=` takes the next word).
struct OptionGrammar {
  std::string_view short_with_value;
  std::string_view short_flags;  // letters known to take no value (others: see `short_default`)
  bool short_default_takes_value;
  const std::string_view* long_flags;
  size_t long_flag_count;
};

// ssh(1): every letter in "BbcDEeFIiJLlmOopQRSWw" takes a value; the rest are flags.
constexpr OptionGrammar kSsh{"BbcDEeFIiJLlmOopQRSWw", "", false, nullptr, 0};

// docker/podman/nerdctl run, create and exec: -d -i -t -P -q and their combinations are flags;
// other short options take a value (-v, -e, -p, -w, -u, -h, -l, -m, -c, -a ...).
constexpr std::string_view kContainerLongFlags[] = {"--rm",
                                                    "--privileged",
                                                    "--init",
                                                    "--interactive",
                                                    "--tty",
                                                    "--detach",
                                                    "--read-only",
                                                    "--publish-all",
                                                    "--quiet",
                                                    "--no-healthcheck",
                                                    "--oom-kill-disable",
                                                    "--sig-proxy",
                                                    "--disable-content-trust",
                                                    "--help",
                                                    "--no-deps",
                                                    "--service-ports",
                                                    "--use-aliases",
                                                    "--build",
                                                    "--remove-orphans",
                                                    "--no-TTY",
                                                    "--replace",
                                                    "--tls-verify",
                                                    "--systemd",
                                                    "--http-proxy"};
constexpr OptionGrammar kContainer{"", "ditPqT", true, kContainerLongFlags,
                                   std::size(kContainerLongFlags)};

// Returns the index of the first operand at or after word j (the words before it are options and
// their values), or e. `--` ends the options. Walks the words in place: no copy, whatever their
// number, since this runs again for each nested container command.
size_t SkipOptions(const Level& lv, size_t j, size_t e, const OptionGrammar& g) {
  for (j = NextWord(lv, j, e); j < e; j = NextWord(lv, j, e)) {
    const std::string_view v = View(lv, lv.words[j]);
    if (v == "--") return NextWord(lv, j + 1, e);
    if (v.size() < 2 || v[0] != '-') return j;
    // How many words this option takes: itself, and its value when it has one of its own.
    bool takes_value = false;
    if (v[1] == '-') {
      takes_value = v.find('=') == std::string_view::npos &&
                    std::find(g.long_flags, g.long_flags + g.long_flag_count, v) ==
                        g.long_flags + g.long_flag_count;
    } else {
      // A cluster of short letters: the first that takes a value takes the rest of the word, or
      // the next word when it is the last letter.
      for (size_t k = 1; k < v.size(); ++k) {
        const bool takes = !g.short_with_value.empty()
                               ? Contains(g.short_with_value, v[k])
                               : !Contains(g.short_flags, v[k]) && g.short_default_takes_value;
        if (takes) {
          takes_value = k + 1 == v.size();
          break;
        }
      }
    }
    j = NextWord(lv, j + 1, e);
    if (takes_value && j < e) ++j;
  }
  return e;
}

}  // namespace

// Whether words k.. start a shell (after sudo) that reads its commands from stdin: a shell with no
// -c and no script operand (`bash`, `sh -s`, `sudo bash -s -- arg`). ssh joins its words with
// spaces for the remote shell, so a word holding spaces (`ssh host 'bash -s'`) is read as its
// parts.
bool ShellNormalizer::Impl::RunsShellFromStdin(const Level& lv, size_t k, size_t e) const {
  enum class Want { kProgram, kOptions } want = Want::kProgram;
  bool shell = false;
  for (; k < e; k = NextWord(lv, k + 1, e)) {
    const std::string_view word = View(lv, lv.words[k]);
    size_t p = 0;
    for (std::string_view v = shell_parser::NextSpaceSeparated(word, &p); !v.empty();
         v = shell_parser::NextSpaceSeparated(word, &p)) {
      if (want == Want::kProgram) {
        if (v == "sudo" || v[0] == '-') continue;  // sudo and its flags
        const CommandTraits* traits = norm.Traits(shell_parser::Basename(v));
        shell = traits != nullptr && traits->shell;
        if (!shell) return false;
        want = Want::kOptions;
        continue;
      }
      if (v == "--") return true;
      if (v[0] != '-') return false;  // a script operand
      if (v.size() > 1 && v[1] != '-' && v.find('c') != std::string_view::npos) return false;
    }
  }
  return shell;
}

// The remote shell of `ssh host <<'EOF' ... EOF` (or `kubectl exec -i pod -- sh`) runs what this
// pipeline feeds it: its here-documents become detached scripts when their bodies are read, and a
// here-string is one now.
void ShellNormalizer::Impl::DetachRemoteStdin(Level& lv, size_t i, size_t e, size_t pipeline) {
  ReadPipelineHeredocsApart(lv, pipeline);
  for (size_t j = i; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & shell_parser::kHereString) == 0) continue;
    std::string* script = NewDetachedScript();
    if (script == nullptr) return;
    script->assign(View(lv, w).substr(w.op));
    script->push_back('\n');
  }
}

void ShellNormalizer::Impl::HandleRemoteCommand(Level& lv, std::string_view argv0, size_t i,
                                                size_t e, size_t depth, size_t pipeline) {
  static constexpr std::string_view kContainerTools[] = {"docker", "podman", "nerdctl",
                                                         "docker-compose", "podman-compose"};
  const bool ssh = argv0 == "ssh";
  const bool container = OneOf(kContainerTools, argv0);
  const bool kube = argv0 == "kubectl" || argv0 == "oc";
  if (!ssh && !container && !kube) return;
  const size_t first = NextWord(lv, i + 1, e);
  auto detach_from = [&](size_t k) {  // the words from k on are another machine's command
    k = NextWord(lv, k, e);
    if (k >= e) return;
    std::string* script = NewDetachedScript();
    if (script == nullptr) return;
    for (; k < e; k = NextWord(lv, k + 1, e)) {
      if (!script->empty()) script->push_back(' ');
      script->append(View(lv, lv.words[k]));
    }
    script->push_back('\n');
  };
  if (ssh) {
    // ProxyCommand and LocalCommand run here, through the user's shell.
    for (size_t k = first; k < e; k = NextWord(lv, k + 1, e)) {
      std::string_view v = View(lv, lv.words[k]);
      if (v.substr(0, 2) == "-o") v.remove_prefix(2);
      for (std::string_view key :
           {std::string_view("proxycommand"), std::string_view("localcommand")}) {
        if (v.size() > key.size() && EqualsAsciiCaseless(v.substr(0, key.size()), key) &&
            (v[key.size()] == '=' || v[key.size()] == ' ')) {
          HandleJoined(lv, v.substr(key.size() + 1), e, e, depth);
        }
      }
    }
    const size_t host = SkipOptions(lv, first, e, kSsh);
    if (host < e) {
      detach_from(host + 1);
      // No remote command, or a remote shell without -c: the remote shell runs ssh's stdin.
      const size_t command = NextWord(lv, host + 1, e);
      if (command >= e || RunsShellFromStdin(lv, command, e)) DetachRemoteStdin(lv, i, e, pipeline);
    }
    return;
  }
  if (kube) {
    // `kubectl [global options] exec|run|debug ... -- CMD`: the command follows the first `--`.
    bool runs = false;
    for (size_t k = first; k < e; k = NextWord(lv, k + 1, e)) {
      const std::string_view v = View(lv, lv.words[k]);
      if (v == "exec" || v == "run" || v == "debug") runs = true;
      if (v == "--") {
        if (runs) {
          detach_from(k + 1);
          const size_t command = NextWord(lv, k + 1, e);
          if (command < e && RunsShellFromStdin(lv, command, e))
            DetachRemoteStdin(lv, i, e, pipeline);
        }
        return;
      }
    }
    return;
  }
  // docker [global options] [container|compose] run|create|exec [options] IMAGE|SERVICE CMD...
  // Global options before the subcommand: the common ones take a value (--context, -H, --host,
  // --config, -c, -f, -p, --file, --project-name, --log-level). `compose`: a service name then
  // stands where an image would, the same walk.
  size_t k = first;
  while (k < e) {
    const std::string_view v = View(lv, lv.words[k]);
    bool takes_value = false;
    if (v == "container" || v == "compose") {
      // a word of the subcommand's name
    } else if (v.size() >= 2 && v[0] == '-') {
      takes_value = v.find('=') == std::string_view::npos && v != "--debug" && v != "-D" &&
                    v != "--tls" && v != "--tlsverify" && v != "--remote" && v != "-v" &&
                    v != "--version" && v != "--dry-run";
    } else {
      break;
    }
    k = NextWord(lv, k + 1, e);
    if (takes_value && k < e) k = NextWord(lv, k + 1, e);
  }
  if (k >= e) return;
  const std::string_view sub = View(lv, lv.words[k]);
  if (sub != "run" && sub != "exec" && sub != "create") return;
  const size_t image = SkipOptions(lv, k + 1, e, kContainer);
  const size_t command = image < e ? NextWord(lv, image + 1, e) : e;
  if (command < e && Enter(depth + 1)) EmitCommand(lv, command, e, depth + 1, pipeline, false);
}

}  // namespace doberman::internal
