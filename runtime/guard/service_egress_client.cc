// The service's egress question, client side (service_egress_client.h): one connection per
// request, the request written whole and the write side shut, the answer read to end of stream.
#include "service_egress_client.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "json.h"

namespace doberman::guard {
namespace {

using internal::JsonType;
using internal::JsonValue;

std::string JsonText(const std::string& s) {
  std::string out;
  internal::AppendJsonString(s, &out);
  return out;
}

bool Exchange(const std::string& path, const std::string& request, int timeout_ms,
              std::string* answer, std::string* why) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return (*why = "socket path too long", false);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return (*why = std::strerror(errno), false);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (!ok) *why = "cannot connect to " + path + ": " + std::strerror(errno);
  for (size_t sent = 0; ok && sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *why = "cannot send the request";
      ok = false;
      break;
    }
    sent += static_cast<size_t>(n);
  }
  if (ok) ::shutdown(fd, SHUT_WR);
  char buf[16384];
  while (ok) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = errno == EAGAIN || errno == EWOULDBLOCK ? "the service did not answer in time"
                                                     : "cannot read the answer";
      ok = false;
      break;
    }
    if (n == 0) break;
    answer->append(buf, static_cast<size_t>(n));
    if (answer->size() > (1u << 20)) {
      *why = "the answer is too long";
      ok = false;
    }
  }
  ::close(fd);
  return ok;
}

}  // namespace

void AskServiceAboutEgress(const std::string& socket_path, const std::string& url,
                           const std::string& method, int timeout_ms, Decision* d) {
  const std::string request = "DOBERMAN/1 EGRESS\n{\"session\":\"\",\"url\":" + JsonText(url) +
                              ",\"method\":" + JsonText(method) + "}";
  std::string answer, why;
  auto refuse = [&](const std::string& what) {
    d->Raise(DOBERMAN_BLOCK, "error:broker_service",
             "the Doberman service could not judge the request (" + what + ")");
  };
  if (!Exchange(socket_path, request, timeout_ms, &answer, &why)) return refuse(why);
  // "DOBERMAN/1 <exit> <out bytes> <err bytes>\n" then the check line.
  const size_t eol = answer.find('\n');
  if (answer.rfind("DOBERMAN/1 ", 0) != 0 || eol == std::string::npos)
    return refuse("unreadable answer");
  JsonValue line;
  internal::JsonError err;
  const std::string_view body = std::string_view(answer).substr(eol + 1);
  const size_t end = body.find('\n');
  if (!internal::ParseJson(body.substr(0, end), internal::JsonLimits{}, &line, &err) ||
      line.type != JsonType::kObject) {
    return refuse("unreadable answer");
  }
  const std::string* verdict = line.FindString("verdict");
  doberman_verdict v = DOBERMAN_BLOCK;
  if (verdict != nullptr && *verdict == "PASS") v = DOBERMAN_PASS;
  if (verdict != nullptr && *verdict == "AUTH") v = DOBERMAN_AUTH;
  if (verdict == nullptr || (v == DOBERMAN_BLOCK && *verdict != "BLOCK"))
    return refuse("answer without a verdict");
  if (v == DOBERMAN_PASS) return;
  const JsonValue* reasons = line.Find("reasons");
  const JsonValue* messages = line.Find("messages");
  const size_t count = reasons != nullptr ? reasons->items.size() : 0;
  for (size_t i = 0; i < count; ++i) {
    const std::string message = messages != nullptr && i < messages->items.size()
                                    ? messages->items[i].text
                                    : "the service refused the request";
    d->Raise(v, reasons->items[i].text, message);
  }
  if (count == 0) d->Raise(v, "service:refused", "the service refused the request");
}

}  // namespace doberman::guard
