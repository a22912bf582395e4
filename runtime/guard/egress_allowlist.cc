// The broker's allowlist (egress_allowlist.h).
#include "egress_allowlist.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace doberman::guard {

std::string LowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsIpLiteral(const std::string& host) {
  if (host.find(':') != std::string::npos || (!host.empty() && host.front() == '[')) return true;
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string::npos;
}

bool Allowlist::Allows(const std::string& host, const std::string& port) const {
  for (const std::string& e : exact) {
    if (e == host || e == host + ":" + port) return true;
  }
  for (const std::string& s : suffixes) {
    if (host.size() > s.size() && host.compare(host.size() - s.size(), s.size(), s) == 0)
      return true;
  }
  return false;
}

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> words;
  size_t at = 0;
  while (true) {
    at = line.find_first_not_of(" \t\r\n\v\f", at);
    if (at == std::string_view::npos) return words;
    const size_t end = std::min(line.size(), line.find_first_of(" \t\r\n\v\f", at));
    words.emplace_back(line.substr(at, end - at));
    at = end;
  }
}

bool LineReader::Next(std::string_view* line) {
  const ssize_t got = ::getline(&buffer_, &capacity_, in_);
  if (got < 0) return false;
  *line = std::string_view(buffer_, static_cast<size_t>(got));
  return true;
}

bool ForEachWordLine(const std::string& path, const char* what,
                     const std::function<bool(int, const std::vector<std::string>&)>& fn,
                     std::string* error) {
  std::FILE* in = std::fopen(path.c_str(), "re");
  if (in == nullptr) {
    *error = std::string("cannot read the ") + what + " " + path;
    return false;
  }
  LineReader lines(in);
  int number = 0;
  bool ok = true;
  for (std::string_view line; ok && lines.Next(&line);) {
    ++number;
    const std::vector<std::string> words = SplitWords(line.substr(0, line.find('#')));
    ok = words.empty() || fn(number, words);
  }
  std::fclose(in);
  return ok;
}

bool ReadAllowlist(const std::string& path, Allowlist* out, std::string* error) {
  if (path.empty()) return true;  // nothing allowed
  return ForEachWordLine(
      path, "allowlist",
      [&](int number, const std::vector<std::string>& words) {
        if (words.size() != 1) {
          *error = path + ":" + std::to_string(number) + ": one host a line";
          return false;
        }
        const std::string entry = LowerAscii(words[0]);
        if (entry.rfind("*.", 0) == 0) {
          out->suffixes.push_back(entry.substr(1));
        } else if (IsIpLiteral(entry.substr(0, entry.rfind(':')))) {
          *error = path + ":" + std::to_string(number) +
                   ": IP literals are never allowed; name the host";
          return false;
        } else {
          out->exact.push_back(entry);
        }
        return true;
      },
      error);
}

}  // namespace doberman::guard
