// The broker's connection history (broker_history.h) on the session store: two reserved records of
// the value ledger, one of hosts named by judged actions (expiring with the ledger's TTL) and one
// queue of connections the broker answered (taken, and so emptied, by the next decision).
#include "broker_history.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "egress_allowlist.h"
#include "state_store.h"

namespace doberman::guard {
namespace {

// The ledger's kinds are ordered by severity and a value recorded twice keeps the more severe one;
// a refused connection is the severe record of a host, an allowed one the mild record.
constexpr state::ValueKind kAllowed = state::ValueKind::kUntrusted;
constexpr state::ValueKind kRefused = state::ValueKind::kSecret;

state::Fingerprint Record(const SessionMemory& m, const char* which) {
  return state::KeyedFingerprint(m.state_dir().key, "broker", which);
}

state::Fingerprint HostPrint(const SessionMemory& m, const std::string& host) {
  return state::KeyedFingerprint(m.state_dir().key, "host", LowerAscii(host));
}

bool IsHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-';
}

// "api.example.com": two or more labels, the last of two or more letters.
bool LooksLikeDnsName(const std::string& w) {
  const size_t dot = w.rfind('.');
  if (dot == std::string::npos || dot == 0 || w.size() - dot - 1 < 2) return false;
  for (size_t i = dot + 1; i < w.size(); ++i) {
    if (std::isalpha(static_cast<unsigned char>(w[i])) == 0) return false;
  }
  return w.front() != '.' && w.front() != '-' && w.find("..") == std::string::npos;
}

// The host of every "scheme://[user@]host" in `text`, dotted or not (localhost, intranet names).
void AddUrlHosts(const std::string& text, std::vector<std::string>* out) {
  for (size_t at = text.find("://"); at != std::string::npos; at = text.find("://", at + 3)) {
    size_t begin = at + 3;
    size_t end = begin;
    while (end < text.size() && (IsHostChar(text[end]) || text[end] == '@' || text[end] == '_'))
      ++end;
    const size_t user = text.rfind('@', end);
    if (user != std::string::npos && user >= begin) begin = user + 1;
    if (end > begin) out->push_back(LowerAscii(text.substr(begin, end - begin)));
  }
}

void AddHosts(const std::string& text, std::vector<std::string>* out) {
  AddUrlHosts(text, out);
  for (size_t i = 0; i < text.size();) {
    if (!IsHostChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsHostChar(text[end])) ++end;
    std::string word = LowerAscii(text.substr(i, end - i));
    while (!word.empty() && word.back() == '.') word.pop_back();  // "example.com." and sentences
    if (LooksLikeDnsName(word)) out->push_back(std::move(word));
    i = end;
  }
}

}  // namespace

std::vector<std::string> NamedHosts(const ParsedPayload& payload) {
  std::vector<std::string> hosts;
  for (const CallInput& call : payload.calls) {
    AddHosts(call.command, &hosts);
    AddHosts(call.url, &hosts);
    for (const std::string& a : call.args) AddHosts(a, &hosts);
  }
  // A URL's dotted host is found twice (as the URL's host and as a word): once is enough.
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

bool RecordBrokerConnection(SessionMemory& memory, const std::string& host, bool refused,
                            std::string* error) {
  state::StateStore* store = memory.store();
  if (store == nullptr) return (*error = "the session store is not open", false);
  return store->RecordValues(Record(memory, "connections"), {HostPrint(memory, host)},
                             refused ? kRefused : kAllowed, std::time(nullptr), error);
}

void ApplyBrokerHistory(SessionMemory& memory, const ParsedPayload& payload, Decision* d) {
  state::StateStore* store = memory.store();
  if (store == nullptr) return;  // session memory has already raised the call for that
  const int64_t now = std::time(nullptr);
  const state::Fingerprint named = Record(memory, "named");
  std::vector<state::Fingerprint> prints;
  for (const std::string& h : NamedHosts(payload)) prints.push_back(HostPrint(memory, h));
  std::vector<std::pair<state::Fingerprint, state::ValueKind>> seen;
  std::string error;
  if (!store->RecordValues(named, prints, kAllowed, now, &error) ||
      !store->TakeValues(Record(memory, "connections"), &seen, &error)) {
    d->Raise(DOBERMAN_AUTH, "error:state_unavailable",
             "the broker's connection history could not be read (" + error +
                 "); a person must look at this call");
    return;
  }
  size_t refused = 0, unnamed = 0;
  for (const auto& [host, kind] : seen) {
    if (kind == kRefused) {
      ++refused;
      continue;
    }
    state::ValueKind known = state::ValueKind::kNone;
    if (!store->LookupValues(named, {host}, now, &known, &error)) {
      d->Raise(DOBERMAN_AUTH, "error:state_unavailable",
               "the broker's connection history could not be read (" + error + ")");
      return;
    }
    if (known == state::ValueKind::kNone) ++unnamed;
  }
  if (refused > 0) {
    d->Raise(DOBERMAN_AUTH, "broker_refused_connection",
             "since the last decision the egress broker refused " + std::to_string(refused) +
                 " connection(s) to destinations off its allowlist; something here tried to "
                 "reach them");
  }
  if (unnamed > 0) {
    d->Raise(DOBERMAN_AUTH, "broker_unnamed_destination",
             "since the last decision the egress broker let through " + std::to_string(unnamed) +
                 " connection(s) to destinations no judged action named");
  }
}

}  // namespace doberman::guard
