// doberman-coldstart-bench: wall time of whole processes, exec to exit, the way a host runs a hook
// (a fresh process per tool call, the payload on stdin, the answer on stdout).
//
//   doberman-coldstart-bench SPEC.json [--runs N] [--warmup W] [--json OUT.json]
//
// SPEC.json: [{"name": "...", "stdin": "payload.json" or "", "argv": ["/path/prog", "arg", ...],
// "env": {"NAME": "value"} (optional: set for this command only)}, ...] Commands are interleaved
// (run 1 of every command, then run 2, ...) so that background noise on a shared machine falls on
// all of them alike. Each run is posix_spawn -> wait4, timed with the monotonic clock; stdout and
// stderr go to /dev/null. Reports median, p10, p90, mean and min per command, and the process's
// peak resident size (wait4); --json also lists every run's time in order.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.h"
#include "json.h"

extern char** environ;

namespace doberman::bench {
namespace {

struct Command {
  std::string name, stdin_path;
  std::vector<std::string> argv;
  std::vector<std::string>
      env;  // this process's environment with the spec's overrides; empty: inherit
  std::vector<double> ms;
  int bad_exits = 0;
  long max_rss_kib = 0;  // the largest peak resident size of any run (wait4's ru_maxrss)
};

double Pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

bool RunOnce(Command& c) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!c.stdin_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, 0, c.stdin_path.c_str(), O_RDONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (std::string& a : c.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : c.env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const uint64_t t0 = NowNs();
  int rc =
      posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), c.env.empty() ? environ : envp.data());
  int status = 0;
  rusage usage{};
  if (rc == 0) wait4(pid, &status, 0, &usage);
  const uint64_t t1 = NowNs();
  c.max_rss_kib = std::max<long>(c.max_rss_kib, usage.ru_maxrss);  // peak resident size, KiB
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    std::fprintf(stderr, "%s: cannot spawn %s\n", c.name.c_str(), argv[0]);
    return false;
  }
  // Exit 2 is a hook's "block"; anything else non-zero is a failure worth flagging.
  if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2)) ++c.bad_exits;
  c.ms.push_back(static_cast<double>(t1 - t0) / 1e6);
  return true;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: doberman-coldstart-bench SPEC.json [--runs N] [--warmup W] [--json OUT]\n",
               stderr);
    return 2;
  }
  int runs = 100, warmup = 5;
  std::string json_out;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--runs")
      runs = std::stoi(argv[i + 1]);
    else if (a == "--warmup")
      warmup = std::stoi(argv[i + 1]);
    else if (a == "--json")
      json_out = argv[i + 1];
  }
  std::string text;
  if (!ReadFile(argv[1], &text)) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  internal::JsonValue spec;
  internal::JsonError err;
  if (!internal::ParseJson(text, internal::JsonLimits{}, &spec, &err)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], err.message.c_str());
    return 1;
  }
  std::vector<Command> commands;
  for (const internal::JsonValue& item : spec.items) {
    Command c;
    if (const std::string* s = item.FindString("name")) c.name = *s;
    if (const std::string* s = item.FindString("stdin")) c.stdin_path = *s;
    if (const internal::JsonValue* a = item.Find("argv")) {
      for (const internal::JsonValue& w : a->items) c.argv.push_back(w.text);
    }
    if (const internal::JsonValue* e = item.Find("env"); e != nullptr && !e->members.empty()) {
      // Overrides replace the inherited variable of the same name (built once, not per run: the
      // timed spawn is the same as for any other command).
      for (char** v = environ; *v != nullptr; ++v) {
        std::string_view var(*v);
        std::string_view name = var.substr(0, var.find('='));
        bool overridden = false;
        for (const auto& [k, _] : e->members) overridden = overridden || k == name;
        if (!overridden) c.env.emplace_back(var);
      }
      for (const auto& [k, v] : e->members) c.env.push_back(k + "=" + v.text);
    }
    if (c.argv.empty()) continue;
    commands.push_back(std::move(c));
  }
  for (int w = 0; w < warmup; ++w) {
    for (Command& c : commands) {
      if (!RunOnce(c)) return 1;
    }
  }
  for (Command& c : commands) {
    c.ms.clear();
    c.bad_exits = 0;
  }
  for (int r = 0; r < runs; ++r) {
    for (Command& c : commands) RunOnce(c);
  }
  std::string json = "{";
  for (size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    double mean = 0;
    for (double x : c.ms) mean += x;
    mean /= static_cast<double>(c.ms.size());
    const double med = Pct(c.ms, 0.5), p10 = Pct(c.ms, 0.1), p90 = Pct(c.ms, 0.9),
                 mn = Pct(c.ms, 0);
    std::fprintf(stderr, "  %-28s median %8.3f ms  p10 %8.3f  p90 %8.3f  min %8.3f  (%zu runs%s)\n",
                 c.name.c_str(), med, p10, p90, mn, c.ms.size(), c.bad_exits ? ", BAD EXITS" : "");
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "%s%s:{\"runs\":%zu,\"median_ms\":%.4f,\"p10_ms\":%.4f,\"p90_ms\":%.4f,\"mean_ms\":%.4f,"
        "\"min_ms\":%.4f,\"max_rss_kib\":%ld,\"bad_exits\":%d}",
        i ? "," : "", JsonString(c.name).c_str(), c.ms.size(), med, p10, p90, mean, mn,
        c.max_rss_kib, c.bad_exits);
    json += buf;
    // Every run in order: run r of every command was taken in the same round, so a report can
    // pair two commands run by run (their difference then carries little of the machine's drift).
    json.pop_back();
    json += ",\"samples_ms\":[";
    for (size_t r = 0; r < c.ms.size(); ++r) {
      std::snprintf(buf, sizeof buf, "%s%.4f", r ? "," : "", c.ms[r]);
      json += buf;
    }
    json += "]}";
  }
  json += "}\n";
  if (!json_out.empty() && !WriteFile(json_out, json)) return 1;
  return 0;
}

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) { return doberman::bench::Main(argc, argv); }
