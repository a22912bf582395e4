// The stdio transport of the MCP proxy (mcp_proxy.h): two relays over one session of the judge
// (mcp_judge.h). The client relay (main thread) reads the client's messages and forwards what
// passes to the server; the server relay (a thread) reads the server's messages and forwards what
// passes to the client. One message per line, at most max_message_bytes held.
#include "mcp_proxy.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "json.h"
#include "mcp_judge.h"

namespace doberman::guard {
namespace {

using internal::AppendJsonValue;
using internal::JsonType;
using internal::JsonValue;

// Reads newline-delimited messages from a descriptor, holding at most `max` bytes of one message:
// a longer line is discarded to its end and reported as too large, so memory stays bounded.
class LineReader {
 public:
  LineReader(int fd, size_t max) : fd_(fd), max_(max) {}

  enum class Result { kLine, kTooLarge, kEnd };

  Result Next(std::string* line) {
    for (;;) {
      const size_t nl = buffer_.find('\n', scanned_);
      if (nl != std::string::npos) {
        const bool too_large = skipping_ || nl > max_;
        line->assign(buffer_, 0, too_large ? 0 : nl);
        buffer_.erase(0, nl + 1);
        scanned_ = 0;
        skipping_ = false;
        if (!line->empty() && line->back() == '\r') line->pop_back();
        return too_large ? Result::kTooLarge : Result::kLine;
      }
      scanned_ = buffer_.size();
      if (buffer_.size() > max_) {  // keep nothing of a message past the bound
        skipping_ = true;
        buffer_.clear();
        scanned_ = 0;
      }
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (buffer_.empty() && !skipping_) return Result::kEnd;
        buffer_.push_back('\n');  // a last message without its newline
        continue;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  size_t max_;
  std::string buffer_;
  size_t scanned_ = 0;
  bool skipping_ = false;
};

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The next message from `reader` as parsed JSON. kFailed (with `why`) for a message too large or
// not readable as one JSON document (duplicate keys included); blank lines are skipped.
enum class Read { kMessage, kFailed, kEnd };
Read NextMessage(LineReader& reader, size_t max_bytes, JsonValue* msg, std::string* line,
                 std::string* why) {
  for (;;) {
    const LineReader::Result r = reader.Next(line);
    if (r == LineReader::Result::kEnd) return Read::kEnd;
    if (r == LineReader::Result::kTooLarge) {
      *why = "a message larger than the proxy's bound";
      return Read::kFailed;
    }
    if (line->find_first_not_of(" \t") == std::string::npos) continue;
    internal::JsonError error;
    if (ParseMcpMessage(*line, max_bytes, msg, &error)) return Read::kMessage;
    *why = "a message that could not be read (" + error.message + ")";
    return Read::kFailed;
  }
}

class Proxy {
 public:
  Proxy(const Options& o, const McpProxyOptions& mo)
      : mo_(mo),
        judge_(o, mo.name),
        session_(judge_,
                 "mcp-proxy-" + mo.name + "-" + std::to_string(::getpid()) + "-" +
                     std::to_string(static_cast<long long>(std::time(nullptr))),
                 "mcp-proxy") {}

  int Run();

 private:
  // Both relays write to the server (client messages; refusals of the server's own requests), one
  // whole line at a time.
  bool ToServer(std::string_view line) {
    std::lock_guard<std::mutex> lock(server_mu_);
    std::string out(line);
    out.push_back('\n');
    return to_server_fd_ >= 0 && WriteAll(to_server_fd_, out);
  }

  void ToClient(std::string_view line) {
    std::lock_guard<std::mutex> lock(client_mu_);
    std::string out(line);
    out.push_back('\n');
    if (!WriteAll(STDOUT_FILENO, out)) client_gone_ = true;
  }

  void FailPending(const std::string& why) { session_.FailPending(why, to_client_); }

  void ServerRelay(int from_server) {
    LineReader reader(from_server, mo_.max_message_bytes);
    std::string line, why;
    for (;;) {
      JsonValue msg;
      const Read r = NextMessage(reader, mo_.max_message_bytes, &msg, &line, &why);
      if (r == Read::kEnd) break;
      if (r == Read::kFailed) {  // whatever it answered is not forwarded unjudged
        FailPending("the server sent " + why + "; it was not forwarded");
        continue;
      }
      session_.FromServerDocument(msg, line, to_client_, to_server_);
    }
    server_gone_.store(true);  // before answering what waits: see the client relay
    FailPending("the MCP server closed its output");
  }

  const McpProxyOptions& mo_;
  McpJudge judge_;
  McpSession session_;
  const McpSend to_client_ = [this](std::string_view m) { ToClient(m); };
  const McpSend to_server_ = [this](std::string_view m) { ToServer(m); };
  std::mutex client_mu_, server_mu_;
  int to_server_fd_ = -1;
  bool client_gone_ = false;
  std::atomic<bool> server_gone_{false};
};

int Proxy::Run() {
  const std::string load_error = judge_.Load();
  if (!load_error.empty()) {
    // Still relay: every call is then refused (AUTH, pack unavailable), which the client sees.
    std::fprintf(stderr, "doberman-guard mcp-proxy: %s\n", load_error.c_str());
  }
  int to_server[2], from_server[2];
  if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) {
    std::perror("doberman-guard mcp-proxy: pipe");
    return 125;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("doberman-guard mcp-proxy: fork");
    return 125;
  }
  if (child == 0) {
    ::dup2(to_server[0], STDIN_FILENO);
    ::dup2(from_server[1], STDOUT_FILENO);
    ::close(to_server[0]);
    ::close(to_server[1]);
    ::close(from_server[0]);
    ::close(from_server[1]);
    std::vector<char*> argv;
    for (const std::string& a : mo_.server_argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "doberman-guard mcp-proxy: cannot run %s: %s\n", argv[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  ::close(to_server[0]);
  ::close(from_server[1]);
  to_server_fd_ = to_server[1];
  std::thread server_relay([this, fd = from_server[0]] { ServerRelay(fd); });

  LineReader reader(STDIN_FILENO, mo_.max_message_bytes);
  std::string line, why;
  bool server_open = true;
  for (;;) {
    JsonValue msg;
    const Read r = NextMessage(reader, mo_.max_message_bytes, &msg, &line, &why);
    if (r == Read::kEnd) break;
    if (r == Read::kFailed) {
      // Unreadable or ambiguous (duplicate keys): never forwarded unjudged.
      ToClient(McpErrorMessage(nullptr, kMcpParseError, "Doberman: " + why + " was not forwarded",
                               nullptr));
      continue;
    }
    bool forward = true;
    if (msg.type == JsonType::kArray) {
      // A batch is forwarded whole only when every request in it passes; otherwise each refusal is
      // answered and what passed is forwarded as a smaller batch.
      std::string rest = "[";
      bool any = false, all = true;
      for (const JsonValue& m : msg.items) {
        bool f = true;
        std::string one, ignored;
        AppendJsonValue(m, &one);
        session_.FromClient(m, one, false, to_client_, &f, &ignored);
        all = all && f;
        if (f) {
          if (any) rest.push_back(',');
          rest.append(one);
          any = true;
        }
      }
      rest.push_back(']');
      forward = false;
      if (server_open) {
        if (all) {
          server_open = ToServer(line);
        } else if (any) {
          server_open = ToServer(rest);
        }
      }
      if (server_gone_.load()) server_open = false;
      if (!server_open) FailPending("the MCP server is not running");
      continue;
    }
    std::string instead;
    session_.FromClient(msg, line, true, to_client_, &forward, &instead);
    if (!forward && instead.empty()) continue;
    if (server_open) server_open = ToServer(forward ? line : instead);
    // A write can still succeed after the server's output ended (a dying process releases its
    // stdout before its stdin), and then nothing will ever answer: the relay's end counts too.
    if (server_gone_.load()) server_open = false;
    if (!server_open) FailPending("the MCP server is not running");
  }
  {
    std::lock_guard<std::mutex> lock(server_mu_);
    to_server_fd_ = -1;
  }
  ::close(to_server[1]);  // the client is done: let the server finish and exit
  server_relay.join();
  ::close(from_server[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

int RunMcpProxy(const Options& o, const McpProxyOptions& mo) {
  ::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error, handled where it happens
  Proxy proxy(o, mo);
  return proxy.Run();
}

}  // namespace doberman::guard
