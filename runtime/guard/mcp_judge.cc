// The MCP proxy's judge (mcp_judge.h): the message-level policy both transports share. Refusals
// are JSON-RPC errors carrying the verdict; results and tool lists are judged as fetched content.
#include "mcp_judge.h"

#include <sodium.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace doberman::guard {
namespace {

using internal::AppendJsonString;
using internal::AppendJsonValue;
using internal::JsonType;
using internal::JsonValue;

const char* VerdictName(doberman_verdict v) {
  return v == DOBERMAN_BLOCK ? "BLOCK" : v == DOBERMAN_AUTH ? "AUTH" : "PASS";
}

std::string Refusal(const char* what, const Decision& d) {
  std::string m = std::string("Doberman ") + VerdictName(d.verdict) + ": " + what;
  const std::string why = d.Explanation();
  if (!why.empty()) m += " (" + why + ")";
  if (d.verdict == DOBERMAN_AUTH)
    m += ". It needs a person's approval, which this proxy cannot ask for.";
  return m;
}

const JsonValue& Empty() {
  static const JsonValue kEmpty;
  return kEmpty;
}

}  // namespace

std::string McpJudge::Load() {
  char buf[4096];
  cwd_ = ::getcwd(buf, sizeof buf) != nullptr ? buf : "/";
  memory_.Open(o_);
  ::doberman::guard::Load(o_, &lp_);
  memory_.Key(&lp_);
  return lp_.scratch == nullptr ? lp_.error : std::string();
}

Decision McpJudge::Judge(const std::string& session, const std::string& event,
                         const std::string& tool, const JsonValue& input, const JsonValue* output,
                         const char* log_host) {
  const JsonValue payload = MakeToolPayload(event, session, cwd_, tool, input, output);
  std::lock_guard<std::mutex> lock(mu_);
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
  memory_.Log(o_, lp_, parsed, d, MicrosSince(start), log_host);
  return d;
}

bool ParseMcpMessage(std::string_view text, size_t max_bytes, JsonValue* msg,
                     internal::JsonError* error) {
  internal::JsonLimits limits;
  limits.max_bytes = max_bytes;
  return internal::ParseJson(text, limits, msg, error);
}

std::string McpIdKey(const JsonValue& id) {
  std::string key;
  AppendJsonValue(id, &key);
  return key;
}

std::string McpErrorMessage(const JsonValue* id, int code, const std::string& message,
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

void McpSession::FailPending(const std::string& why, const McpSend& to_client,
                             const std::vector<std::string>* only) {
  std::vector<JsonValue> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (only != nullptr && std::find(only->begin(), only->end(), it->first) == only->end()) {
        ++it;
        continue;
      }
      ids.push_back(std::move(it->second.first));
      it = pending_.erase(it);
    }
  }
  for (const JsonValue& id : ids)
    to_client(McpErrorMessage(&id, kMcpUnavailable, "Doberman: " + why, nullptr));
}

void McpSession::FromClient(const JsonValue& msg, std::string_view raw, bool may_elicit,
                            const McpSend& to_client, bool* forward_raw,
                            std::string* forward_instead) {
  *forward_raw = true;
  if (msg.type != JsonType::kObject) return;
  const JsonValue* id = msg.Find("id");
  const std::string* method = msg.FindString("method");
  if (method == nullptr && id != nullptr && Elicited(*id, msg, to_client, forward_instead)) {
    *forward_raw = false;  // the answer to our own question: never the server's business
    return;
  }
  if (method == nullptr || id == nullptr) return;  // notifications, responses
  if (*method == "initialize") {
    const JsonValue* params = msg.Find("params");
    const JsonValue* caps = params != nullptr ? params->Find("capabilities") : nullptr;
    const JsonValue* elicitation = caps != nullptr ? caps->Find("elicitation") : nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      client_elicits_ = elicitation != nullptr && elicitation->type == JsonType::kObject;
    }
    Remember(*id, {Pending::Kind::kOther, std::string(), JsonValue()});
    return;
  }
  const JsonValue* params = msg.Find("params");
  const JsonValue& p = params != nullptr ? *params : Empty();
  if (*method == "tools/call") {
    const std::string* name = p.FindString("name");
    if (name == nullptr) {
      *forward_raw = false;
      Decision d;
      d.Raise(DOBERMAN_AUTH, "error:bad_call", "tools/call without a tool name");
      to_client(McpErrorMessage(id, kMcpRefused, Refusal("a tools/call without a name", d), &d));
      return;
    }
    const std::string tool = "mcp__" + judge_.name() + "__" + *name;
    bool withheld = false, elicits = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      withheld = withheld_.count(*name) != 0;
      elicits = client_elicits_;
    }
    const JsonValue* args = p.Find("arguments");
    Decision d = Judge("PreToolUse", tool, args != nullptr ? *args : Empty(), nullptr);
    if (withheld) {
      d.Raise(DOBERMAN_AUTH, "mcp_tool_withheld",
              "the server's description of this tool was flagged or changed, so the tool was "
              "withheld from the client");
    }
    if (d.verdict == DOBERMAN_AUTH && elicits && may_elicit && d.raises == 0) {
      // AUTH means a person must approve, and this client can ask one (MCP elicitation).
      *forward_raw = false;
      Elicit(*id, raw, tool, p, d, to_client);
      return;
    }
    if (d.verdict != DOBERMAN_PASS) {
      *forward_raw = false;
      to_client(McpErrorMessage(id, kMcpRefused, Refusal(("the call of " + tool).c_str(), d), &d));
      return;
    }
    Remember(*id, {Pending::Kind::kCall, tool, p});
  } else if (*method == "tools/list") {
    Remember(*id, {Pending::Kind::kList, std::string(), p});
  } else if (*method == "resources/read") {
    Remember(*id, {Pending::Kind::kResource, "mcp__" + judge_.name() + "__read_resource", p});
  } else {
    Remember(*id, {Pending::Kind::kOther, std::string(), JsonValue()});
  }
}

// Asks the client's user, through `elicitation/create`, whether the AUTH call may go; the call
// waits here until the answer comes back.
void McpSession::Elicit(const JsonValue& call_id, std::string_view raw, const std::string& tool,
                        const JsonValue& params, const Decision& d, const McpSend& to_client) {
  std::string key;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
  to_client(out);
}

// The client's answer to one of our elicitations: approve -> the original call goes to the server
// (and its result is judged as any other); anything else -> the call is refused.
bool McpSession::Elicited(const JsonValue& id, const JsonValue& msg, const McpSend& to_client,
                          std::string* forward_instead) {
  if (id.type != JsonType::kString || id.text.rfind("doberman-elicit-", 0) != 0) return false;
  ElicitState e;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
  to_client(
      McpErrorMessage(&e.call_id, kMcpRefused, Refusal(("the call of " + e.tool).c_str(), d), &d));
  return true;
}

void McpSession::Remember(const JsonValue& id, Pending p) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_[McpIdKey(id)] = {id, std::move(p)};
}

void McpSession::FromServer(const JsonValue& msg, std::string_view raw, const McpSend& to_client,
                            const McpSend& to_server) {
  const JsonValue* id = msg.type == JsonType::kObject ? msg.Find("id") : nullptr;
  const bool response = id != nullptr && msg.Find("method") == nullptr;
  const std::string* method = msg.type == JsonType::kObject ? msg.FindString("method") : nullptr;
  if (id != nullptr && method != nullptr &&
      (*method == "sampling/createMessage" || *method == "elicitation/create")) {
    // The server asks the client's model for text, or its user for input: what it sends is judged
    // as fetched content (an injection, a secret, a request for credentials on its way to the
    // model or the person); refused, it never reaches the client.
    const JsonValue* params = msg.Find("params");
    const bool sampling = *method == "sampling/createMessage";
    const Decision d =
        Judge("PostToolUse", "mcp__" + judge_.name() + (sampling ? "__sampling" : "__elicitation"),
              Empty(), params != nullptr ? params : &Empty());
    if (d.verdict != DOBERMAN_PASS) {
      to_server(McpErrorMessage(
          id, kMcpRefused,
          Refusal(sampling ? "the server's sampling request" : "the server's elicitation", d), &d));
      return;
    }
  }
  if (!response) {
    to_client(raw);  // notifications and the server's own requests
    return;
  }
  std::pair<JsonValue, Pending> entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(McpIdKey(*id));
    if (it == pending_.end()) {
      to_client(raw);
      return;
    }
    entry = std::move(it->second);
    pending_.erase(it);
  }
  const JsonValue* result = msg.Find("result");
  if (result == nullptr) {  // an error answer carries no server content to judge
    to_client(raw);
    return;
  }
  const Pending& p = entry.second;
  if (p.kind == Pending::Kind::kOther) {
    to_client(raw);
    return;
  }
  if (p.kind == Pending::Kind::kList) {
    to_client(FilterToolList(msg, *result, raw));
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
    to_client(
        McpErrorMessage(id, kMcpWithheld, Refusal(("the result of " + p.tool).c_str(), d), &d));
    return;
  }
  to_client(raw);
}

void McpSession::FromServerDocument(const JsonValue& doc, std::string_view raw,
                                    const McpSend& to_client, const McpSend& to_server) {
  if (doc.type != JsonType::kArray) {
    FromServer(doc, raw, to_client, to_server);
    return;
  }
  for (const JsonValue& m : doc.items) {
    std::string one;
    AppendJsonValue(m, &one);
    FromServer(m, one, to_client, to_server);
  }
}

// A tools/list result with each offered tool judged: a description or schema the policy flags, or
// one that differs from what this session first saw, removes the tool from the list.
std::string McpSession::FilterToolList(const JsonValue& msg, const JsonValue& result,
                                       std::string_view raw) {
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
      std::lock_guard<std::mutex> lock(mu_);
      auto [it, first] = seen_.emplace(*name, fingerprint);
      changed = !first && it->second != fingerprint;
    }
    Decision d = Judge("PostToolUse", "mcp__" + judge_.name() + "__" + *name, Empty(), &t);
    if (changed) {
      d.Raise(DOBERMAN_AUTH, "mcp_tool_changed",
              "the server changed this tool's description after the session first saw it");
    }
    if (d.verdict != DOBERMAN_PASS) {
      keep[i] = false;
      removed = true;
      std::lock_guard<std::mutex> lock(mu_);
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

}  // namespace doberman::guard
