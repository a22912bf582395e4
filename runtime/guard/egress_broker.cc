// The broker check (egress_broker.h): a strict reading of fetch commands, the allowlist, and a
// connect(2) to the broker. Every doubt answers "not the broker's": the decision stays as it was.
#include "egress_broker.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace doberman::guard {
namespace {

// Characters that make a command line mean more than its words (expansions, redirections,
// pipelines, globbing, escapes): any of them outside quotes and the guard does not read it.
constexpr const char* kShellSpecial = "$`;|&<>(){}*?[]~!#\\\"'\n\r\t";

// Splits a plain command line into words: unquoted words without shell syntax, or single-quoted
// words (no quote inside). False when anything else appears.
bool PlainWords(const std::string& line, std::vector<std::string>* words) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    if (line[i] == '\'') {
      const size_t close = line.find('\'', i + 1);
      if (close == std::string::npos) return false;
      if (close + 1 < line.size() && line[close + 1] != ' ') return false;
      words->push_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    size_t end = line.find(' ', i);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(i, end - i);
    if (word.find_first_of(kShellSpecial) != std::string::npos) return false;
    words->push_back(word);
    i = end;
  }
  return !words->empty();
}

// "http(s)://host[:port][/rest]" with a DNS name: host and port; false for anything else (userinfo,
// IP literals, other schemes, an empty or odd host).
bool UrlHost(const std::string& url, std::string* host, std::string* port) {
  std::string rest;
  if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
    *port = "443";
  } else if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
    *port = "80";
  } else {
    return false;
  }
  const size_t end = rest.find_first_of("/?#");
  std::string authority = rest.substr(0, end);
  if (authority.empty() || authority.find('@') != std::string::npos) return false;
  const size_t colon = authority.find(':');
  if (colon != std::string::npos) {
    *port = authority.substr(colon + 1);
    authority.resize(colon);
    if (port->empty() || port->size() > 5 ||
        port->find_first_not_of("0123456789") != std::string::npos)
      return false;
  }
  *host = LowerAscii(authority);
  if (host->empty() || host->front() == '.' || host->back() == '.' || IsIpLiteral(*host) ||
      host->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos)
    return false;
  return true;
}

// Options a plain fetch may carry: flags, and options whose next word (or `=value`) is a value.
bool CurlOption(const std::string& w, bool* takes_value) {
  static const char* kFlags[] = {
      "--silent", "--show-error", "--location",   "--fail",        "--include",
      "--head",   "--verbose",    "--compressed", "--remote-name", "-O"};
  static const char* kValued[] = {
      "-o",         "--output",          "-H",      "--header", "-A",         "--user-agent", "-m",
      "--max-time", "--connect-timeout", "--retry", "-w",       "--write-out"};
  *takes_value = false;
  for (const char* f : kFlags)
    if (w == f) return true;
  for (const char* f : kValued) {
    if (w == f) {
      *takes_value = true;
      return true;
    }
  }
  // Clusters of the harmless one-letter flags: -s, -sS, -fsSL, -Lv ...
  return w.size() > 1 && w[0] == '-' && w[1] != '-' &&
         w.find_first_not_of("sSLfiIv", 1) == std::string::npos;
}

bool WgetOption(const std::string& w, bool* takes_value) {
  static const char* kFlags[] = {"--quiet",        "-nv",  "--no-verbose", "--continue",
                                 "--timestamping", "-qO-", "-O-"};
  static const char* kValued[] = {"-O",
                                  "-P",
                                  "-t",
                                  "-T",
                                  "-U",
                                  "--output-document",
                                  "--directory-prefix",
                                  "--tries",
                                  "--timeout",
                                  "--user-agent",
                                  "--header"};
  *takes_value = false;
  for (const char* f : kFlags)
    if (w == f) return true;
  const std::string name = w.substr(0, w.find('='));
  for (const char* f : kValued) {
    if (name == f) {
      *takes_value = w.find('=') == std::string::npos;
      return true;
    }
  }
  return w.size() > 1 && w[0] == '-' && w[1] != '-' &&
         w.find_first_not_of("qcN", 1) == std::string::npos;
}

// A curl or wget command line of known options and literal URLs: its destinations.
bool FetchCommand(const std::string& command,
                  std::vector<std::pair<std::string, std::string>>* out) {
  std::vector<std::string> words;
  if (!PlainWords(command, &words)) return false;
  const bool curl = words[0] == "curl", wget = words[0] == "wget";
  if (!curl && !wget) return false;
  size_t urls = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    bool takes_value = false;
    if (!w.empty() && w[0] == '-') {
      if (!(curl ? CurlOption(w, &takes_value) : WgetOption(w, &takes_value))) return false;
      if (takes_value) {
        if (++i >= words.size()) return false;
        // curl -X would change the method; only the options above are read, so a value is data
        // (a header, a file name, a number), never another destination.
      }
      continue;
    }
    std::string host, port;
    if (!UrlHost(w, &host, &port)) return false;
    out->emplace_back(host, port);
    ++urls;
  }
  return urls > 0;
}

// connect(2) to the broker with a short deadline: it must be there to carry the connection.
bool BrokerAnswers(const BrokerConfig& b) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(b.proxy_port));
  const std::string host = b.proxy_host == "localhost" ? "127.0.0.1" : b.proxy_host;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return false;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    ok = ::poll(&p, 1, 300) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 &&
         error == 0;
  }
  ::close(fd);
  return ok;
}

}  // namespace

bool ReadBrokerConfig(const std::string& path, BrokerConfig* out, std::string* error) {
  out->path = path;
  const bool read = ForEachWordLine(
      path, "broker configuration",
      [&](int number, const std::vector<std::string>& words) {
        const std::string where = path + ":" + std::to_string(number) + ": ";
        const std::string& key = words[0];
        if (words.size() != 2) {
          *error = where + "expected `" + key + " VALUE`";
          return false;
        }
        const std::string& value = words[1];
        if (key == "proxy") {
          const size_t colon = value.rfind(':');
          out->proxy_host = value.substr(0, colon);
          const std::string port = colon == std::string::npos ? "" : value.substr(colon + 1);
          out->proxy_port = port.empty() || port.size() > 5 ||
                                    port.find_first_not_of("0123456789") != std::string::npos
                                ? 0
                                : std::atoi(port.c_str());
          if (out->proxy_port <= 0 || out->proxy_port > 65535 ||
              (out->proxy_host != "localhost" && !IsIpLiteral(out->proxy_host))) {
            *error = where + "proxy must be IP:PORT or localhost:PORT";
            return false;
          }
        } else if (key == "allow") {
          out->allow_file = value;
        } else if (key == "enforced") {
          if (value != "namespace" && value != "firewall") {
            *error = where + "enforced takes namespace or firewall";
            return false;
          }
          out->enforced = value;
        } else {
          *error = where + "unknown key '" + key + "' (proxy, allow, enforced)";
          return false;
        }
        return true;
      },
      error);
  if (!read) return false;
  if (out->proxy_port == 0 || out->allow_file.empty()) {
    *error = path + ": needs `proxy` and `allow`";
    return false;
  }
  return ReadAllowlist(out->allow_file, &out->allow, error);
}

bool BrokerDestinations(const ParsedPayload& payload,
                        std::vector<std::pair<std::string, std::string>>* host_ports) {
  if (payload.calls.empty()) return false;
  for (const CallInput& c : payload.calls) {
    if (!c.path.empty() || !c.content.empty() || !c.args.empty() || !c.prompt.empty()) return false;
    if (!c.command.empty() && !c.url.empty()) return false;
    if (!c.command.empty()) {
      if (!FetchCommand(c.command, host_ports)) return false;
    } else if (!c.url.empty()) {
      std::string host, port;
      if (!UrlHost(c.url, &host, &port)) return false;
      host_ports->emplace_back(host, port);
    } else {
      return false;
    }
  }
  return !host_ports->empty();
}

void ApplyBroker(const BrokerConfig& broker, const ParsedPayload& payload, Decision* d) {
  if (d->verdict != DOBERMAN_AUTH || d->status != "DOBERMAN_OK" || d->raises != 0 ||
      !d->only_proxy_enforceable || d->rules.empty())
    return;  // not only a question of where a connection goes
  std::string why;
  std::vector<std::pair<std::string, std::string>> destinations;
  if (broker.enforced.empty()) {
    why = "the broker is not declared enforcing (`enforced namespace|firewall`)";
  } else if (!BrokerDestinations(payload, &destinations)) {
    why = "its destinations cannot be read for certain";
  } else {
    for (const auto& [host, port] : destinations) {
      if (!broker.allow.Allows(host, port)) why = "a destination is not on the broker's allowlist";
    }
    if (why.empty() && !BrokerAnswers(broker)) why = "the broker does not answer";
  }
  if (!why.empty()) {
    d->Explain("broker_not_used", "not left to the egress broker: " + why);
    return;
  }
  d->verdict = DOBERMAN_PASS;
  d->Explain("broker_enforced",
             "allowed: every destination is on the broker's allowlist and the "
             "connection is enforced at the socket by " +
                 broker.proxy_host + ":" + std::to_string(broker.proxy_port));
}

}  // namespace doberman::guard
