// The broker's allowlist (egress_allowlist.h).
#include "egress_allowlist.h"

#include <cctype>
#include <fstream>
#include <sstream>

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

bool ForEachWordLine(const std::string& path, const char* what,
                     const std::function<bool(int, const std::vector<std::string>&)>& fn,
                     std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = std::string("cannot read the ") + what + " " + path;
    return false;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream stream(line);
    std::vector<std::string> words;
    for (std::string w; stream >> w;) words.push_back(w);
    if (!words.empty() && !fn(number, words)) return false;
  }
  return true;
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
