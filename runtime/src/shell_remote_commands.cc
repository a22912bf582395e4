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
using shell_parser::kRedir;
using shell_parser::Level;
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

// Returns the index of the first operand at or after j (the words before it are options and their
// values), or e. `--` ends the options.
size_t SkipOptions(const std::string_view* text, size_t j, size_t e, const OptionGrammar& g) {
  while (j < e) {
    const std::string_view v = text[j];
    if (v == "--") return j + 1;
    if (v.size() < 2 || v[0] != '-') return j;
    if (v[1] == '-') {
      const bool flag = v.find('=') != std::string_view::npos ||
                        std::find(g.long_flags, g.long_flags + g.long_flag_count, v) !=
                            g.long_flags + g.long_flag_count;
      j += flag ? 1 : 2;
      continue;
    }
    // A cluster of short letters: the first that takes a value takes the rest of the word, or the
    // next word when it is the last letter.
    size_t next = j + 1;
    for (size_t k = 1; k < v.size(); ++k) {
      const bool takes = !g.short_with_value.empty()
                             ? Contains(g.short_with_value, v[k])
                             : !Contains(g.short_flags, v[k]) && g.short_default_takes_value;
      if (takes) {
        if (k + 1 == v.size()) next = j + 2;
        break;
      }
    }
    j = next;
  }
  return e;
}

}  // namespace

void ShellNormalizer::Impl::HandleRemoteCommand(Level& lv, std::string_view argv0, size_t i,
                                                size_t e, size_t depth, size_t pipeline) {
  static constexpr std::string_view kContainerTools[] = {"docker", "podman", "nerdctl",
                                                         "docker-compose", "podman-compose"};
  const bool ssh = argv0 == "ssh";
  const bool container = OneOf(kContainerTools, argv0);
  const bool kube = argv0 == "kubectl" || argv0 == "oc";
  if (!ssh && !container && !kube) return;
  // The words without redirections, as text, so the option walk reads plain views.
  constexpr size_t kMaxWords = 256;
  std::string_view text[kMaxWords];
  size_t index[kMaxWords];
  size_t n = 0;
  for (size_t j = i + 1; j < e && n < kMaxWords; ++j) {
    if ((lv.words[j].flags & kRedir) != 0) continue;
    text[n] = View(lv, lv.words[j]);
    index[n++] = j;
  }
  auto detach_from = [&](size_t k) {  // the operands from k on are another machine's command
    SegmentList& out = *ctx.out;
    if (k >= n || out.detached_script_count >= SegmentList::kMaxDetachedScripts) return;
    if (out.detached_scripts.size() == out.detached_script_count)
      out.detached_scripts.emplace_back();
    std::string& script = out.detached_scripts[out.detached_script_count++];
    script.clear();
    for (; k < n; ++k) script.append(text[k]).push_back(k + 1 < n ? ' ' : '\n');
  };
  if (ssh) {
    // ProxyCommand and LocalCommand run here, through the user's shell.
    for (size_t k = 0; k < n; ++k) {
      std::string_view v = text[k];
      if (v.substr(0, 2) == "-o") v.remove_prefix(2);
      for (std::string_view key :
           {std::string_view("proxycommand"), std::string_view("localcommand")}) {
        if (v.size() > key.size() && EqualsAsciiCaseless(v.substr(0, key.size()), key) &&
            (v[key.size()] == '=' || v[key.size()] == ' ')) {
          HandleJoined(lv, v.substr(key.size() + 1), e, e, depth);
        }
      }
    }
    const size_t host = SkipOptions(text, 0, n, kSsh);
    detach_from(host + 1);
    return;
  }
  if (kube) {
    // `kubectl [global options] exec|run|debug ... -- CMD`: the command follows the first `--`.
    bool runs = false;
    for (size_t k = 0; k < n; ++k) {
      if (text[k] == "exec" || text[k] == "run" || text[k] == "debug") runs = true;
      if (text[k] == "--") {
        if (runs) detach_from(k + 1);
        return;
      }
    }
    return;
  }
  // docker [global options] [container|compose] run|create|exec [options] IMAGE|SERVICE CMD...
  // Global options before the subcommand: the common ones take a value (--context, -H, --host,
  // --config, -c, -f, -p, --file, --project-name, --log-level).
  size_t k = 0;
  while (k < n) {
    const std::string_view v = text[k];
    if (v == "container") {
      ++k;
      continue;
    }
    if (v == "compose") {  // a service name then stands where an image would: the same walk
      ++k;
      continue;
    }
    if (v.size() >= 2 && v[0] == '-') {
      const bool with_value = v.find('=') == std::string_view::npos && v != "--debug" &&
                              v != "-D" && v != "--tls" && v != "--tlsverify" && v != "--remote" &&
                              v != "-v" && v != "--version" && v != "--dry-run";
      k += with_value ? 2 : 1;
      continue;
    }
    break;
  }
  if (k >= n) return;
  const std::string_view sub = text[k];
  if (sub != "run" && sub != "exec" && sub != "create") return;
  const size_t command = SkipOptions(text, k + 1, n, kContainer) + 1;
  if (command < n && Enter(depth + 1))
    EmitCommand(lv, index[command], e, depth + 1, pipeline, false);
}

}  // namespace doberman::internal
