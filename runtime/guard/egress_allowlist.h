// The broker's allowlist, shared by the Squid helper and the guard's broker check: one `host`,
// `host:port` or `*.domain` a line, `#` comments; IP literals are refused in the file and never
// match. Default deny: an empty or missing file allows nothing.
#ifndef DOBERMAN_GUARD_EGRESS_ALLOWLIST_H_
#define DOBERMAN_GUARD_EGRESS_ALLOWLIST_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace doberman::guard {

std::string LowerAscii(std::string s);

// An address rather than a name: IPv4 dotted digits or anything with ':' (IPv6).
bool IsIpLiteral(const std::string& host);

struct Allowlist {
  std::vector<std::string> exact;     // host or host:port
  std::vector<std::string> suffixes;  // ".domain" from "*.domain"
  bool Allows(const std::string& host, const std::string& port) const;
};

// The words of `line`, split on white space.
std::vector<std::string> SplitWords(std::string_view line);

// Reads a small configuration file of words: `#` starts a comment, blank lines are skipped, and
// `fn` gets each other line's number and words. A false from `fn` stops the reading with the
// `error` it set; an unreadable file fails with "cannot read the WHAT PATH".
bool ForEachWordLine(const std::string& path, const char* what,
                     const std::function<bool(int, const std::vector<std::string>&)>& fn,
                     std::string* error);

// Reads `path` (empty: nothing allowed). False with `error` naming file:line on a bad line.
bool ReadAllowlist(const std::string& path, Allowlist* out, std::string* error);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_EGRESS_ALLOWLIST_H_
