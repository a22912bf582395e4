// The broker's allowlist, shared by the Squid helper and the guard's broker check: one `host`,
// `host:port` or `*.domain` a line, `#` comments; IP literals are refused in the file and never
// match. Default deny: an empty or missing file allows nothing.
#ifndef DOBERMAN_GUARD_EGRESS_ALLOWLIST_H_
#define DOBERMAN_GUARD_EGRESS_ALLOWLIST_H_

#include <cstdio>
#include <cstdlib>
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

// The words of `line`, split on white space (a trailing CR or LF is white space too).
std::vector<std::string> SplitWords(std::string_view line);

// The lines of a stdio stream, read with getline(3) into one buffer reused from line to line.
class LineReader {
 public:
  explicit LineReader(std::FILE* in) : in_(in) {}
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader() { std::free(buffer_); }
  // The next line, its newline included; false at the end of the stream or on an error. The view
  // lasts until the next call.
  bool Next(std::string_view* line);

 private:
  std::FILE* in_;
  char* buffer_ = nullptr;
  size_t capacity_ = 0;
};

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
