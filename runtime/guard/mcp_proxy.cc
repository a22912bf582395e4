// The MCP proxy (mcp_proxy.h): two relays over one judge. The client relay (main thread) reads the
// client's requests and forwards what passes to the server; the server relay (a thread) reads the
// server's messages and forwards what passes to the client. Messages are turned into the hook
// payloads the guard already judges (a tools/call as a PreToolUse of mcp__N__TOOL, its result as
// the PostToolUse), so rules, session memory and the decision log apply unchanged.
#include "mcp_proxy.h"

#include <errno.h>
#include <signal.h>
#include <sodium.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "json.h"

namespace doberman::guard {
namespace {

using internal::AppendJsonString;
using internal::AppendJsonValue;
using internal::JsonType;
using internal::JsonValue;

// JSON-RPC error codes of the proxy's answers (the implementation-defined server-error range).
constexpr int kRefused = -32001;   // a call the policy does not let through
constexpr int kWithheld = -32002;  // a result the policy does not let through
constexpr int kUnavailable = -32003;
constexpr int kParseError = -32700;

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
    internal::JsonLimits limits;
    limits.max_bytes = max_bytes;
    if (internal::ParseJson(*line, limits, msg, &error)) return Read::kMessage;
    *why = "a message that could not be read (" + error.message + ")";
    return Read::kFailed;
  }
}

std::string IdKey(const JsonValue& id) {
  std::string key;
  AppendJsonValue(id, &key);
  return key;
}

const char* VerdictName(doberman_verdict v) {
  return v == DOBERMAN_BLOCK ? "BLOCK" : v == DOBERMAN_AUTH ? "AUTH" : "PASS";
}

// What a request the server has not answered yet was, so that its answer can be judged.
struct Pending {
  enum class Kind { kCall, kList, kResource } kind;
  std::string tool;   // mcp__N__TOOL (calls), mcp__N__read_resource (resources)
  JsonValue request;  // the params the client sent
};

class Proxy {
 public:
  Proxy(const Options& o, const McpProxyOptions& mo) : o_(o), mo_(mo) {
    session_ = "mcp-proxy-" + mo.name + "-" + std::to_string(::getpid()) + "-" +
               std::to_string(static_cast<long long>(std::time(nullptr)));
  }

  int Run();

 private:
  // ---- judging ---------------------------------------------------------------------------------
  // Decides one hook payload built from a message; never throws, never PASSes on an error.
  Decision Judge(const std::string& event, const std::string& tool, const JsonValue& input,
                 const JsonValue* output) {
    const JsonValue payload = MakeToolPayload(event, session_, cwd_, tool, input, output);
    std::lock_guard<std::mutex> lock(judge_mu_);
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    ParsedPayload parsed;
    std::string error;
    Decision d;
    if (!ConvertPayload(payload, Host::kClaudeCode, &parsed, &error)) {
      d.Raise(DOBERMAN_AUTH, "error:bad_payload", error);
      return d;
    }
    d = DecideParsed(lp_, parsed);
    memory_.Apply(o_, lp_, parsed, &d);
    memory_.Log(o_, lp_, parsed, d, MicrosSince(start), "mcp-proxy");
    return d;
  }

  // ---- answers ----------------------------------------------------------------------------------
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

  std::string ErrorLine(const JsonValue* id, int code, const std::string& message,
                        const Decision* d) {
    std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
    if (id != nullptr) {
      AppendJsonValue(*id, &out);
    } else {
      out.append("null");
    }
    out.append(",\"error\":{\"code\":" + std::to_string(code) + ",\"message\":");
    AppendJsonString(message, &out);
    if (d != nullptr) {
      out.append(",\"data\":{\"verdict\":\"");
      out.append(VerdictName(d->verdict));
      out.append("\",\"reasons\":[");
      for (size_t i = 0; i < d->reasons.size(); ++i) {
        if (i > 0) out.push_back(',');
        AppendJsonString(d->reasons[i], &out);
      }
      out.append("],\"rules\":[");
      for (size_t i = 0; i < d->rules.size(); ++i) {
        if (i > 0) out.push_back(',');
        AppendJsonString(d->rules[i], &out);
      }
      out.append("]}");
    }
    out.append("}}");
    return out;
  }

  static std::string Refusal(const char* what, const Decision& d) {
    std::string m = std::string("Doberman ") + VerdictName(d.verdict) + ": " + what;
    const std::string why = d.Explanation();
    if (!why.empty()) m += " (" + why + ")";
    if (d.verdict == DOBERMAN_AUTH)
      m += ". It needs a person's approval, which this proxy cannot ask for.";
    return m;
  }

  // Every call still waiting gets an error: the server cannot answer them any more, or its output
  // could not be read (whatever it was, it is not forwarded unjudged).
  void FailPending(const std::string& why) {
    std::map<std::string, std::pair<JsonValue, Pending>> pending;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      pending.swap(pending_);
    }
    for (auto& [key, entry] : pending) {
      ToClient(ErrorLine(&entry.first, kUnavailable, "Doberman: " + why, nullptr));
    }
  }

  // ---- the client relay -------------------------------------------------------------------------
  // Judges one client message; *forward_raw says whether it goes to the server as received
  // (refusals are answered here). *forward_instead, when set, goes to the server in its place (a
  // call a person approved through elicitation). `may_elicit`: false inside a batch.
  void FromClient(const JsonValue& msg, std::string_view raw, bool may_elicit, bool* forward_raw,
                  std::string* forward_instead) {
    *forward_raw = true;
    if (msg.type != JsonType::kObject) return;
    const JsonValue* id = msg.Find("id");
    const std::string* method = msg.FindString("method");
    if (method == nullptr && id != nullptr && Elicited(*id, msg, forward_instead)) {
      *forward_raw = false;  // the answer to our own question: never the server's business
      return;
    }
    if (method == nullptr || id == nullptr) return;  // notifications, responses
    if (*method == "initialize") {
      const JsonValue* params = msg.Find("params");
      const JsonValue* caps = params != nullptr ? params->Find("capabilities") : nullptr;
      const JsonValue* elicitation = caps != nullptr ? caps->Find("elicitation") : nullptr;
      client_elicits_ = elicitation != nullptr && elicitation->type == JsonType::kObject;
      return;
    }
    const JsonValue* params = msg.Find("params");
    static const JsonValue kEmpty;
    const JsonValue& p = params != nullptr ? *params : kEmpty;
    if (*method == "tools/call") {
      const std::string* name = p.FindString("name");
      if (name == nullptr) {
        *forward_raw = false;
        Decision d;
        d.Raise(DOBERMAN_AUTH, "error:bad_call", "tools/call without a tool name");
        ToClient(ErrorLine(id, kRefused, Refusal("a tools/call without a name", d), &d));
        return;
      }
      const std::string tool = "mcp__" + mo_.name + "__" + *name;
      bool withheld = false;
      {
        std::lock_guard<std::mutex> lock(state_mu_);
        withheld = withheld_.count(*name) != 0;
      }
      const JsonValue* args = p.Find("arguments");
      Decision d = Judge("PreToolUse", tool, args != nullptr ? *args : kEmpty, nullptr);
      if (withheld) {
        d.Raise(DOBERMAN_AUTH, "mcp_tool_withheld",
                "the server's description of this tool was flagged or changed, so the tool was "
                "withheld from the client");
      }
      if (d.verdict == DOBERMAN_AUTH && client_elicits_ && may_elicit && d.raises == 0) {
        // AUTH means a person must approve, and this client can ask one (MCP elicitation).
        *forward_raw = false;
        Elicit(*id, raw, tool, p, d);
        return;
      }
      if (d.verdict != DOBERMAN_PASS) {
        *forward_raw = false;
        ToClient(ErrorLine(id, kRefused, Refusal(("the call of " + tool).c_str(), d), &d));
        return;
      }
      Remember(*id, {Pending::Kind::kCall, tool, p});
    } else if (*method == "tools/list") {
      Remember(*id, {Pending::Kind::kList, std::string(), p});
    } else if (*method == "resources/read") {
      Remember(*id, {Pending::Kind::kResource, "mcp__" + mo_.name + "__read_resource", p});
    }
  }

  // Asks the client's user, through `elicitation/create`, whether the AUTH call may go; the call
  // waits here until the answer comes back.
  void Elicit(const JsonValue& call_id, std::string_view raw, const std::string& tool,
              const JsonValue& params, const Decision& d) {
    std::string key;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      key = "doberman-elicit-" + std::to_string(next_elicit_++);
      elicits_[key] = {call_id, std::string(raw), tool, params, d};
    }
    std::string why = d.Explanation();
    std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
    AppendJsonString(key, &out);
    out += ",\"method\":\"elicitation/create\",\"params\":{\"message\":";
    AppendJsonString(
        "Doberman: the call of " + tool + " needs your approval (" + why + "). Allow it?", &out);
    out +=
        ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"approve\":{"
        "\"type\":\"boolean\",\"title\":\"Allow this call\",\"description\":";
    AppendJsonString("Allow " + tool + " to run once", &out);
    out += "}},\"required\":[\"approve\"]}}}";
    ToClient(out);
  }

  // The client's answer to one of our elicitations: approve -> the original call goes to the
  // server (and its result is judged as any other); anything else -> the call is refused.
  bool Elicited(const JsonValue& id, const JsonValue& msg, std::string* forward_instead) {
    if (id.type != JsonType::kString || id.text.rfind("doberman-elicit-", 0) != 0) return false;
    ElicitState e;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      auto it = elicits_.find(id.text);
      if (it == elicits_.end()) return true;  // ours, but not waiting (answered twice): dropped
      e = std::move(it->second);
      elicits_.erase(it);
    }
    const JsonValue* result = msg.Find("result");
    const std::string* action = result != nullptr ? result->FindString("action") : nullptr;
    const JsonValue* content = result != nullptr ? result->Find("content") : nullptr;
    const JsonValue* approve = content != nullptr ? content->Find("approve") : nullptr;
    if (action != nullptr && *action == "accept" && approve != nullptr &&
        approve->type == JsonType::kBool && approve->boolean) {
      Remember(e.call_id, {Pending::Kind::kCall, e.tool, e.params});
      *forward_instead = e.raw;
      std::fprintf(stderr, "doberman-guard mcp-proxy: %s approved by the user (elicitation)\n",
                   e.tool.c_str());
      return true;
    }
    Decision d = e.decision;
    d.Explain("mcp_user_declined", "the user did not approve it");
    ToClient(ErrorLine(&e.call_id, kRefused, Refusal(("the call of " + e.tool).c_str(), d), &d));
    return true;
  }

  void Remember(const JsonValue& id, Pending p) {
    std::lock_guard<std::mutex> lock(state_mu_);
    pending_[IdKey(id)] = {id, std::move(p)};
  }

  // ---- the server relay -------------------------------------------------------------------------
  // Forwards one server message (raw when it passes), or its replacement.
  void FromServer(const JsonValue& msg, std::string_view raw) {
    const JsonValue* id = msg.type == JsonType::kObject ? msg.Find("id") : nullptr;
    const bool response = id != nullptr && msg.Find("method") == nullptr;
    const std::string* method = msg.type == JsonType::kObject ? msg.FindString("method") : nullptr;
    if (id != nullptr && method != nullptr &&
        (*method == "sampling/createMessage" || *method == "elicitation/create")) {
      // The server asks the client's model for text, or its user for input: what it sends is
      // judged as fetched content (an injection, a secret, a request for credentials on its way to
      // the model or the person); refused, it never reaches the client.
      const JsonValue* params = msg.Find("params");
      static const JsonValue kEmpty;
      const bool sampling = *method == "sampling/createMessage";
      const Decision d =
          Judge("PostToolUse", "mcp__" + mo_.name + (sampling ? "__sampling" : "__elicitation"),
                kEmpty, params != nullptr ? params : &kEmpty);
      if (d.verdict != DOBERMAN_PASS) {
        ToServer(ErrorLine(
            id, kRefused,
            Refusal(sampling ? "the server's sampling request" : "the server's elicitation", d),
            &d));
        return;
      }
    }
    if (!response) {
      ToClient(raw);  // notifications and the server's own requests
      return;
    }
    std::pair<JsonValue, Pending> entry;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      auto it = pending_.find(IdKey(*id));
      if (it == pending_.end()) {
        ToClient(raw);
        return;
      }
      entry = std::move(it->second);
      pending_.erase(it);
    }
    const JsonValue* result = msg.Find("result");
    if (result == nullptr) {  // an error answer carries no server content to judge
      ToClient(raw);
      return;
    }
    const Pending& p = entry.second;
    if (p.kind == Pending::Kind::kList) {
      ToClient(FilterToolList(msg, *result, raw));
      return;
    }
    const JsonValue* args = p.request.Find(p.kind == Pending::Kind::kCall ? "arguments" : "uri");
    JsonValue input;
    if (p.kind == Pending::Kind::kResource) {
      input = p.request;
    } else if (args != nullptr) {
      input = *args;
    }
    const Decision d = Judge("PostToolUse", p.tool, input, result);
    if (d.verdict != DOBERMAN_PASS) {
      ToClient(ErrorLine(id, kWithheld, Refusal(("the result of " + p.tool).c_str(), d), &d));
      return;
    }
    ToClient(raw);
  }

  // A tools/list result with each offered tool judged: a description or schema the policy flags,
  // or one that differs from what this session first saw, removes the tool from the list.
  std::string FilterToolList(const JsonValue& msg, const JsonValue& result, std::string_view raw) {
    const JsonValue* tools = result.Find("tools");
    if (tools == nullptr || tools->type != JsonType::kArray) return std::string(raw);
    std::vector<bool> keep(tools->items.size(), true);
    bool removed = false;
    for (size_t i = 0; i < tools->items.size(); ++i) {
      const JsonValue& t = tools->items[i];
      const std::string* name = t.FindString("name");
      if (name == nullptr) continue;
      std::string text;
      AppendJsonValue(t, &text);
      uint8_t hash[16];
      crypto_generichash(hash, sizeof hash, reinterpret_cast<const uint8_t*>(text.data()),
                         text.size(), nullptr, 0);
      const std::string fingerprint(reinterpret_cast<const char*>(hash), sizeof hash);
      bool changed = false;
      {
        std::lock_guard<std::mutex> lock(state_mu_);
        auto [it, first] = seen_.emplace(*name, fingerprint);
        changed = !first && it->second != fingerprint;
      }
      static const JsonValue kEmpty;
      Decision d = Judge("PostToolUse", "mcp__" + mo_.name + "__" + *name, kEmpty, &t);
      if (changed) {
        d.Raise(DOBERMAN_AUTH, "mcp_tool_changed",
                "the server changed this tool's description after the session first saw it");
      }
      if (d.verdict != DOBERMAN_PASS) {
        keep[i] = false;
        removed = true;
        std::lock_guard<std::mutex> lock(state_mu_);
        withheld_.insert(*name);
        std::fprintf(stderr, "doberman-guard mcp-proxy: withheld tool %s: %s\n", name->c_str(),
                     Refusal("its description", d).c_str());
      }
    }
    if (!removed) return std::string(raw);
    // Rebuild the message with the kept tools; everything else as it was.
    JsonValue copy = msg;
    for (auto& [key, value] : copy.members) {
      if (key != "result") continue;
      for (auto& [rkey, rvalue] : value.members) {
        if (rkey != "tools") continue;
        std::vector<JsonValue> kept;
        for (size_t i = 0; i < rvalue.items.size(); ++i) {
          if (keep[i]) kept.push_back(std::move(rvalue.items[i]));
        }
        rvalue.items = std::move(kept);
      }
    }
    std::string out;
    AppendJsonValue(copy, &out);
    return out;
  }

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
      if (msg.type == JsonType::kArray) {  // a batch of answers: judged one by one
        for (const JsonValue& m : msg.items) {
          std::string one;
          AppendJsonValue(m, &one);
          FromServer(m, one);
        }
        continue;
      }
      FromServer(msg, line);
    }
    server_gone_.store(true);  // before answering what waits: see the client relay
    FailPending("the MCP server closed its output");
  }

  const Options& o_;
  const McpProxyOptions& mo_;
  std::string session_;
  std::string cwd_;
  LoadedPack lp_;
  Memory memory_;
  std::mutex judge_mu_, client_mu_, state_mu_, server_mu_;
  int to_server_fd_ = -1;
  bool client_gone_ = false;
  std::atomic<bool> server_gone_{false};
  std::map<std::string, std::pair<JsonValue, Pending>> pending_;
  std::map<std::string, std::string> seen_;  // tool name -> fingerprint of its first description
  std::set<std::string> withheld_;
  // Elicitation (the client said it supports it in `initialize`): calls waiting for a person.
  struct ElicitState {
    JsonValue call_id;
    std::string raw, tool;
    JsonValue params;
    Decision decision;
  };
  bool client_elicits_ = false;
  int next_elicit_ = 1;
  std::map<std::string, ElicitState> elicits_;
};

int Proxy::Run() {
  char buf[4096];
  cwd_ = ::getcwd(buf, sizeof buf) != nullptr ? buf : "/";
  memory_.Open(o_);
  Load(o_, &lp_);
  memory_.Key(&lp_);
  if (lp_.scratch == nullptr) {
    // Still relay: every call is then refused (AUTH, pack unavailable), which the client sees.
    std::fprintf(stderr, "doberman-guard mcp-proxy: %s\n", lp_.error.c_str());
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
      ToClient(ErrorLine(nullptr, kParseError, "Doberman: " + why + " was not forwarded", nullptr));
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
        FromClient(m, one, false, &f, &ignored);
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
    FromClient(msg, line, true, &forward, &instead);
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
