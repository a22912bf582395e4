// The Squid external ACL helper (squid_acl.h): one request per line, `CHANNEL URI METHOD HOST PORT`
// with each field URL-encoded by Squid, one answer per line, `CHANNEL OK` or `CHANNEL ERR
// message=...`. The allowlist is read once at start; the pack judges the URL as a fetch; the
// session ledger (--state-dir, or the service with --socket) is consulted across sessions.
#include "squid_acl.h"

#include <time.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "broker_history.h"
#include "egress_allowlist.h"
#include "json.h"
#include "percent_decode.h"
#include "service_egress_client.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

// Squid's rfc1738 escaping of helper arguments.
std::string Unescape(std::string_view s) { return PercentDecode(s); }

// One request as a WebFetch of its URL (CONNECT: of https://host:port/), for the pack and the log.
ParsedPayload AsFetch(const std::string& url) {
  JsonValue input;
  input.type = JsonType::kObject;
  input.members.emplace_back("url", JsonValue());
  input.members.back().second.type = JsonType::kString;
  input.members.back().second.text = url;
  const JsonValue payload =
      MakeToolPayload("PreToolUse", "squid-acl", "/", "WebFetch", input, nullptr);
  ParsedPayload parsed;
  std::string error;
  if (!ConvertPayload(payload, Host::kClaudeCode, &parsed, &error)) parsed.calls.clear();
  return parsed;
}

// The service answers within its own request timeout (2 s by default); a little more here.
constexpr int kServiceTimeoutMs = 2500;

Decision Refused(const char* reason, const std::string& message) {
  Decision d;
  d.verdict = DOBERMAN_PASS;
  d.Raise(DOBERMAN_BLOCK, reason, message);
  return d;
}

// One request: PASS when it may go. The broker's own refusals (before the pack) are BLOCK with a
// reason of their own; the pack's decision otherwise.
Decision Judge(const LoadedPack& lp, const Allowlist& allow, const std::vector<std::string>& f,
               ParsedPayload* payload) {
  if (f.size() < 4)
    return Refused("error:broker_request",
                   "the helper got too few fields (check external_acl_type's format)");
  const std::string uri = Unescape(f[0]), method = Unescape(f[1]);
  const std::string host = LowerAscii(Unescape(f[2])), port = Unescape(f[3]);
  const size_t scheme = uri.find("://");
  const std::string url = method == "CONNECT" || scheme == std::string::npos
                              ? "https://" + host + ":" + port + "/"
                              : uri;
  *payload = AsFetch(url);
  if (payload->calls.empty())
    return Refused("error:broker_request", "the request could not be read as a fetch");
  if (IsIpLiteral(host))
    return Refused("broker_ip_literal", "an IP address as destination is never allowed");
  const size_t authority = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path = uri.find('/', authority);
  if (uri.substr(authority, path == std::string::npos ? std::string::npos : path - authority)
          .find('@') != std::string::npos) {
    return Refused("broker_url_credentials", "credentials in the URL are never allowed");
  }
  if (!allow.Allows(host, port))
    return Refused("broker_not_allowlisted", "the destination is not on the allowlist");
  return DecideParsed(lp, *payload);
}

// Squid reads `message=` up to the end of the line; keep it on one line and without secrets (an
// explanation never quotes the URL).
std::string Answer(const std::string& channel, const std::string& why) {
  if (why.empty()) return channel + " OK\n";
  std::string m;
  for (char c : why) m.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return channel + " ERR message=\"Doberman: " + m + "\"\n";
}

}  // namespace

int RunSquidAcl(const Options& o, const std::string& allow_file) {
  Allowlist allow;
  std::string error;
  if (!ReadAllowlist(allow_file, &allow, &error)) {
    std::fprintf(stderr, "doberman-guard squid-acl: %s\n", error.c_str());
    return 3;
  }
  // With a state directory, every answer is a row of the decision log (host "squid"), beside the
  // hooks' own rows; the log holds fingerprints and reasons, never the URL.
  Memory memory;
  memory.Open(o);
  if (memory.Wanted(o) && !memory.open)
    std::fprintf(stderr,
                 "doberman-guard squid-acl: session memory: %s (every request is refused)\n",
                 memory.error.c_str());
  LoadedPack lp;
  Load(o, &lp);
  memory.Key(&lp);
  if (lp.scratch == nullptr)
    std::fprintf(stderr, "doberman-guard squid-acl: %s (every request is refused)\n",
                 lp.error.c_str());
  // stdio, not std::cin: <iostream> would give every guard process the standard streams' static
  // initialisation (the whole locale) before main, a one-shot hook's included.
  LineReader lines(stdin);
  for (std::string_view line; lines.Next(&line);) {
    std::vector<std::string> fields = SplitWords(line);
    if (fields.empty()) continue;
    std::string channel = fields.front();
    fields.erase(fields.begin());
    const bool numbered = channel.find_first_not_of("0123456789") == std::string::npos;
    if (!numbered) {  // no concurrency: the whole line is the request
      fields.insert(fields.begin(), channel);
      channel.clear();
    }
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (memory.OpenAgain(o)) memory.Key(&lp);  // a helper must not refuse until Squid restarts it
    ParsedPayload payload;
    Decision d = Judge(lp, allow, fields, &payload);
    if (!payload.calls.empty() && d.verdict != DOBERMAN_BLOCK) {
      // The session ledger, raise-only: Squid cannot say which session sent the request, so a
      // secret any agent session was shown is refused (with --state-dir here, with --socket by
      // the service, which holds the sessions' records too).
      payload.any_session = true;
      if (d.outbound_calls.empty()) d.outbound_calls.push_back(0);
      memory.Apply(o, lp, payload, &d);
      if (!o.socket.empty()) {
        AskServiceAboutEgress(o.socket, payload.calls.front().url, Unescape(fields[1]),
                              kServiceTimeoutMs, &d);
      }
    }
    const std::string why =
        d.verdict == DOBERMAN_PASS ? "" : (d.Explanation().empty() ? "refused" : d.Explanation());
    std::string out = Answer(channel, why);
    if (channel.empty()) out.erase(0, 1);  // "OK" / "ERR ...", no leading space
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (memory.open && fields.size() >= 3) {
      // The connection history a hook's next decision reads (broker_history.h).
      std::string history_error;
      if (!RecordBrokerConnection(memory.memory, LowerAscii(Unescape(fields[2])),
                                  d.verdict != DOBERMAN_PASS, &history_error)) {
        std::fprintf(stderr, "doberman-guard squid-acl: connection history: %s\n",
                     history_error.c_str());
      }
    }
    if (!payload.calls.empty()) memory.Log(o, lp, payload, d, MicrosSince(start), "squid");
  }
  return 0;
}

}  // namespace doberman::guard
