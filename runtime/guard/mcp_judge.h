// The MCP proxy's judge, independent of the transport (stdio lines in mcp_proxy.cc, streamable
// HTTP in mcp_http_proxy.cc): turns each JSON-RPC message into the hook payload the guard already
// judges (a tools/call as a PreToolUse of mcp__N__TOOL, its result as the PostToolUse, each tool of
// a tools/list as fetched content) and says what to forward, what to answer instead, and to whom.
// A transport hands every message of one MCP session to that session's McpSession, with the sinks
// that reach the client and the server from where the message arrived.
#ifndef DOBERMAN_GUARD_MCP_JUDGE_H_
#define DOBERMAN_GUARD_MCP_JUDGE_H_

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "guard_runner.h"
#include "json.h"

namespace doberman::guard {

// JSON-RPC error codes of the proxy's answers (the implementation-defined server-error range).
inline constexpr int kMcpRefused = -32001;      // a call the policy does not let through
inline constexpr int kMcpWithheld = -32002;     // a result the policy does not let through
inline constexpr int kMcpUnavailable = -32003;  // the server cannot answer (gone, unreadable)
inline constexpr int kMcpParseError = -32700;

// Where a message goes: one whole JSON-RPC message, written by the transport its own way.
using McpSend = std::function<void(std::string_view)>;

// What every session shares: the pack, session memory and the lock around deciding.
class McpJudge {
 public:
  McpJudge(const Options& o, std::string name) : o_(o), name_(std::move(name)) {}

  // Opens session memory and loads the pack; when the pack cannot be loaded every call is refused
  // (AUTH, pack unavailable) and the reason is returned for the transport to print.
  std::string Load();

  // Decides one hook payload built from a message; never throws, never PASSes on an error.
  Decision Judge(const std::string& session, const std::string& event, const std::string& tool,
                 const internal::JsonValue& input, const internal::JsonValue* output,
                 const char* log_host);

  const std::string& name() const { return name_; }

 private:
  const Options& o_;
  std::string name_;
  std::string cwd_;
  LoadedPack lp_;
  Memory memory_;
  std::mutex mu_;
};

// The key a request id is remembered under (its JSON text: 1 and "1" differ).
std::string McpIdKey(const internal::JsonValue& id);

// Reads one MCP message (or batch) of at most `max_bytes` with the guard's strict JSON reader
// (duplicate keys refused); false, with `error`, when it cannot be read.
bool ParseMcpMessage(std::string_view text, size_t max_bytes, internal::JsonValue* msg,
                     internal::JsonError* error);

// A JSON-RPC error answer to `id` (null when absent), with the decision's verdict, reasons and
// rules as data when there is one.
std::string McpErrorMessage(const internal::JsonValue* id, int code, const std::string& message,
                            const Decision* d);

// One MCP session: what the client asked that the server has not answered yet, the tool
// descriptions first seen, the tools withheld, and the calls waiting for a person's approval.
class McpSession {
 public:
  // `session`: the session-memory id this session's decisions are recorded under; `log_host`: the
  // host column of the decision log.
  McpSession(McpJudge& judge, std::string session, const char* log_host)
      : judge_(judge), session_(std::move(session)), log_host_(log_host) {}

  // Judges one client message. *forward_raw: whether it goes to the server as received (refusals
  // are answered to `to_client` here); *forward_instead, when set, goes to the server in its place
  // (a call a person approved through elicitation). `may_elicit`: the transport can put a question
  // to the client now (false inside a batch, and on transports that cannot).
  void FromClient(const internal::JsonValue& msg, std::string_view raw, bool may_elicit,
                  const McpSend& to_client, bool* forward_raw, std::string* forward_instead);

  // Judges one server message and sends it (raw when it passes) or its replacement to the client;
  // a refused request of the server's own is answered to `to_server`.
  void FromServer(const internal::JsonValue& msg, std::string_view raw, const McpSend& to_client,
                  const McpSend& to_server);
  // The same for what the server wrote as one document: a message, or a batch of them, each judged
  // on its own.
  void FromServerDocument(const internal::JsonValue& doc, std::string_view raw,
                          const McpSend& to_client, const McpSend& to_server);

  // Every request still waiting (or only those whose McpIdKey is in `only`) gets an error: the
  // server cannot answer it any more, or its answer could not be read (whatever it was, it is not
  // forwarded unjudged).
  void FailPending(const std::string& why, const McpSend& to_client,
                   const std::vector<std::string>* only = nullptr);

 private:
  struct Pending {
    // kOther: any other request (initialize, ping, prompts/get...): its answer passes as it came,
    // but a server that goes away without answering it still gets the client an error.
    enum class Kind { kCall, kList, kResource, kOther } kind;
    std::string tool;             // mcp__N__TOOL (calls), mcp__N__read_resource (resources)
    internal::JsonValue request;  // the params the client sent
  };
  struct ElicitState {
    internal::JsonValue call_id;
    std::string raw, tool;
    internal::JsonValue params;
    Decision decision;
  };

  Decision Judge(const std::string& event, const std::string& tool,
                 const internal::JsonValue& input, const internal::JsonValue* output) {
    return judge_.Judge(session_, event, tool, input, output, log_host_);
  }
  void Elicit(const internal::JsonValue& call_id, std::string_view raw, const std::string& tool,
              const internal::JsonValue& params, const Decision& d, const McpSend& to_client);
  bool Elicited(const internal::JsonValue& id, const internal::JsonValue& msg,
                const McpSend& to_client, std::string* forward_instead);
  void Remember(const internal::JsonValue& id, Pending p);
  std::string FilterToolList(const internal::JsonValue& msg, const internal::JsonValue& result,
                             std::string_view raw);

  McpJudge& judge_;
  std::string session_;
  const char* log_host_;
  std::mutex mu_;
  std::map<std::string, std::pair<internal::JsonValue, Pending>> pending_;
  std::map<std::string, std::string> seen_;  // tool name -> fingerprint of its first description
  std::set<std::string> withheld_;
  bool client_elicits_ = false;  // the client declared elicitation in `initialize`
  int next_elicit_ = 1;
  std::map<std::string, ElicitState> elicits_;
};

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_MCP_JUDGE_H_
