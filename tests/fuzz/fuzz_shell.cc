// Fuzz target for the shell normalizer: any byte string must normalize without crashing, within the
// segment limit, with bounded segment sizes and written scripts, and deterministically (a warm
// SegmentList gives the same answer as a cold one, so no state leaks between calls through the
// reused scratch).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "shell_normalizer.h"

namespace {

using doberman::internal::SegmentList;
using doberman::internal::ShellLimits;
using doberman::internal::ShellNormalizer;
using doberman::internal::ShellStatus;
using doberman::internal::ShellTables;

// abort() rather than assert(): the checks must also hold in builds that define NDEBUG. The
// failing check's line is printed first, so a finding says which invariant broke.
void CheckAt(bool ok, int line) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_shell: invariant at fuzz_shell.cc:%d broken\n", line);
  std::abort();
}
#define Check(ok) CheckAt((ok), __LINE__)

// The tables of rules/shell/tables.yaml (the shipped pack), so the fuzzer walks production paths.
ShellTables PackTables() {
  ShellTables t;
  t.wrappers = {
      {"sudo",
       {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--host",
        "--prompt", "--chdir"},
       0},
      {"doas", {"-u", "-C"}, 0},
      {"env", {"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}, 0},
      {"nice", {"-n", "--adjustment"}, 0},
      {"ionice", {"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}, 0},
      {"nohup", {}, 0},
      {"timeout", {"-s", "-k", "--signal", "--kill-after"}, 1},
      {"time", {"-f", "-o", "--format", "--output"}, 0},
      {"command", {}, 0},
      {"builtin", {}, 0},
      {"exec", {"-a"}, 0},
      {"stdbuf", {"-i", "-o", "-e", "--input", "--output", "--error"}, 0},
      {"setsid", {}, 0},
      {"chroot", {"--userspec", "--groups"}, 1},
      {"strace", {"-e", "-o", "-p", "-s", "-u", "-E", "-P", "-O", "-S", "-X", "-b", "-a", "-I"}, 0},
      {"taskset", {}, 1},
      {"flock", {"-w", "-E", "--timeout", "--conflict-exit-code"}, 1},
      {"xargs",
       {"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-s", "-E", "-e", "-a", "--max-args",
        "--max-procs", "--delimiter", "--arg-file", "--replace"},
       0},
      {"runuser", {"-u", "-g", "-G", "--user", "--group"}, 0},
      {"watch", {"-n", "-d", "--interval"}, 0},
      {"chrt", {}, 1},
      {"script", {"-c", "--command"}, 0},
  };
  t.shells = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "su"};
  t.split_flag_commands = {
      "rm",   "cp",     "mv",    "chmod", "chown",  "chgrp",   "git", "rsync", "tar",    "nc",
      "ncat", "netcat", "ssh",   "scp",   "kill",   "pkill",   "dd",  "shred", "wipefs", "mkfs",
      "curl", "wget",   "socat", "ln",    "docker", "kubectl", "sed", "grep",  "ls",     "killall"};
  t.stdin_programs = {"python", "python3", "perl", "ruby", "node", "php", "psql", "sqlite3"};
  t.runners = {"uv run", "poetry run", "npx", "bundle exec", "aws-vault exec", "conda run"};
  t.aliases = {
      {"rm", "--recursive", "-r"},     {"rm", "-R", "-r"},
      {"rm", "--force", "-f"},         {"rm", "--no-preserve-root", "--no-preserve-root"},
      {"chmod", "--recursive", "-R"},  {"chown", "--recursive", "-R"},
      {"git", "--force", "-f"},        {"git", "--delete", "-d"},
      {"shred", "--remove", "-u"},     {"nc", "--exec", "-e"},
      {"ncat", "--sh-exec", "-c"},     {"curl", "--data", "-d"},
      {"curl", "--upload-file", "-T"}, {"cp", "-R", "-r"},
  };
  return t;
}

// One normalizer with the production limits and one with tiny limits, so the limit paths (segment
// cap, depth cap, prefix truncation) are reached by short inputs too.
const ShellLimits kTight = {/*max_segments=*/6, /*max_depth=*/3, /*max_bytes=*/512};

void RunOne(const ShellNormalizer& norm, const ShellLimits& limits, std::string_view input,
            SegmentList* warm) {
  warm->Clear();
  const ShellStatus status = norm.Normalize(input, warm);
  Check(status <= ShellStatus::kUnbalanced);
  Check(warm->count <= limits.max_segments);
  Check(warm->count <= warm->segments.size());
  // Too long is reported unless something more severe was; besides an over-long input, only a
  // rewrite with variable values or of `$(echo ...)` can pass the byte bound, and that needs a `$`
  // or a backtick (backticks are read as `$(...)`).
  if (status == ShellStatus::kTooLong) {
    Check(input.size() > limits.max_bytes || input.find_first_of("$`") != std::string_view::npos);
  }
  if (input.size() > limits.max_bytes) {
    Check(status != ShellStatus::kOk && status != ShellStatus::kUnbalanced);
  }
  // A segment is made of words of the input: unquoting only shrinks them, backticks grow by one
  // byte (`$(`...`)`), `'\''` quoting at most quadruples a quote and flag splitting at most
  // triples a flag, so a segment can never be far longer than the input. Except a rewrite with
  // variable values or a function's arguments (`X=AAAA; echo $X$X$X`), which needs a `$` or a
  // backtick: the text it parses is bounded by max_bytes instead.
  const bool rewrites = input.find_first_of("$`") != std::string_view::npos;
  const size_t bound =
      8 * (rewrites ? std::max(input.size(), limits.max_bytes) : input.size()) + 64;
  for (size_t i = 0; i < warm->count; ++i) {
    Check(!warm->segments[i].empty());
    Check(warm->segments[i].size() <= bound);
  }
  // Same answer from a fresh SegmentList.
  SegmentList cold;
  Check(norm.Normalize(input, &cold) == status);
  Check(cold.count == warm->count);
  for (size_t i = 0; i < cold.count; ++i) Check(cold.segments[i] == warm->segments[i]);
  // Scripts read apart (here-document bodies, the commands ssh and kubectl exec send): bounded,
  // the same when cold. A here-document body is a piece of the input, but a remote command is made
  // of canonical words like a segment, read from a rewrite when variables were followed (`X=AAAA;
  // ssh host echo $X$X$X`), so it has the segments' bound.
  Check(warm->detached_script_count <= SegmentList::kMaxDetachedScripts);
  Check(cold.detached_script_count == warm->detached_script_count);
  for (size_t i = 0; i < warm->detached_script_count; ++i) {
    Check(warm->detached_scripts[i].size() <= bound);
    Check(cold.detached_scripts[i] == warm->detached_scripts[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ShellNormalizer* const kNormal = new ShellNormalizer(PackTables(), ShellLimits{});
  static const ShellNormalizer* const kSmall = new ShellNormalizer(PackTables(), kTight);
  // Reused across inputs like the runtime's per-thread scratch: stale capacity must never leak.
  static SegmentList* const kWarm = new SegmentList();
  const std::string_view input(reinterpret_cast<const char*>(data), data == nullptr ? 0 : size);
  RunOne(*kNormal, ShellLimits{}, input, kWarm);
  RunOne(*kSmall, kTight, input, kWarm);
  return 0;
}
