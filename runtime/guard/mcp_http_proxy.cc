// The streamable-HTTP transport of the MCP proxy (mcp_http_proxy.h), on cpp-httplib. Each request
// the client makes is judged message by message (McpSession::FromClient) and forwarded by a thread
// of its own that talks to the upstream; that thread hands the answer over one event at a time
// (a queue of one), and the handler judges each event (McpSession::FromServer) before writing it
// to the client. So a stream is never buffered beyond the message being judged, and a client that
// goes away cancels the upstream request.
#include "mcp_http_proxy.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "json.h"
#include "mcp_judge.h"
#include "sse_reader.h"

namespace doberman::guard {
namespace {

using internal::AppendJsonValue;
using internal::JsonType;
using internal::JsonValue;

// How long the upstream may stay silent: a tool call can take minutes; the server's own event
// stream (GET) is open for the whole session and may be idle for hours.
constexpr time_t kCallReadTimeoutS = 600;
constexpr time_t kStreamReadTimeoutS = 24 * 3600;
constexpr time_t kConnectTimeoutS = 10;
constexpr size_t kMaxSessions = 4096;
constexpr int kKeepAliveS = 15;

// The client's request headers the upstream needs; nothing else is passed on (cookies and the
// like stay between the client and the proxy).
constexpr const char* kForwardedRequestHeaders[] = {"Accept",         "Content-Type",
                                                    "Mcp-Session-Id", "Mcp-Protocol-Version",
                                                    "Authorization",  "Last-Event-ID"};
// The upstream's response headers the client needs.
constexpr const char* kForwardedResponseHeaders[] = {"Mcp-Session-Id", "WWW-Authenticate"};

struct Upstream {
  std::string origin;  // scheme://host:port, for httplib::Client
  std::string path;    // the MCP endpoint
};

bool ParseUpstream(const std::string& url, Upstream* u, std::string* why) {
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    *why = "the upstream must be an http:// or https:// URL";
    return false;
  }
  const size_t path_start = url.find('/', scheme_end + 3);
  u->origin = url.substr(0, path_start);
  u->path = path_start == std::string::npos ? "/" : url.substr(path_start);
  if (u->origin.size() <= scheme_end + 3 || u->path.find_first_of("#") != std::string::npos ||
      u->origin.find('@') != std::string::npos) {
    *why = "the upstream URL has no host, or has user information or a fragment";
    return false;
  }
  return true;
}

bool ParseListen(const std::string& listen, std::string* host, int* port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= listen.size()) return false;
  const std::string p = listen.substr(colon + 1);
  if (p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) return false;
  *port = std::stoi(p);
  if (*port > 65535) return false;
  *host = listen.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']')
    *host = host->substr(1, host->size() - 2);
  return true;
}

// A browser page must not reach the proxy through DNS rebinding (MCP's transport rules): a request
// that carries an Origin other than this machine's is refused.
bool OriginAllowed(const httplib::Request& req) {
  if (!req.has_header("Origin")) return true;
  std::string origin = req.get_header_value("Origin");
  const size_t scheme_end = origin.find("://");
  if (scheme_end == std::string::npos) return false;
  std::string host = origin.substr(scheme_end + 3);
  if (!host.empty() && host.front() == '[') {
    host = host.substr(0, host.find(']') + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// One request to the upstream, run by a thread of its own; the handler that started it waits for
// the response's head, then takes its body (JSON, whole and bounded) or its events (one at a time).
struct UpstreamCall {
  std::mutex mu;
  std::condition_variable cv;
  bool head = false;       // status and headers are in
  bool done = false;       // the request is over (answered, broken or cancelled)
  bool cancelled = false;  // the client went away: stop reading the upstream
  bool failed = false;     // no response at all
  std::string error;
  int status = 0;
  httplib::Headers headers;
  bool event_stream = false;
  std::string body;  // JSON answers
  bool body_too_large = false;
  std::deque<SseEvent> events;        // at most one waiting
  httplib::Client* client = nullptr;  // while the request runs: Cancel() shuts its socket

  void Cancel() {
    std::lock_guard<std::mutex> lock(mu);
    cancelled = true;
    if (client != nullptr) client->stop();
    cv.notify_all();
  }
};

// Connections to the upstream kept open between requests (a new TCP connection per call cost
// 0.5-1 ms here). Only one idle for less than kIdleReuseS is reused: servers close idle connections
// after a few seconds (Node's default is 5), and a request is never retried on another connection
// (a tools/call may not be safe to send twice).
class ClientPool {
 public:
  struct Idle {
    std::unique_ptr<httplib::Client> client;
    std::chrono::steady_clock::time_point since;
  };
  std::unique_ptr<httplib::Client> Take(const std::string& origin) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    while (!idle_.empty()) {
      Idle i = std::move(idle_.back());
      idle_.pop_back();
      if (now - i.since < std::chrono::seconds(kIdleReuseS)) return std::move(i.client);
    }
    auto client = std::make_unique<httplib::Client>(origin);
    client->set_connection_timeout(kConnectTimeoutS);
    client->set_write_timeout(60);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);  // headers and body go out as separate writes: no Nagle delay
    return client;
  }
  void Give(std::unique_ptr<httplib::Client> client) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < kMaxIdle)
      idle_.push_back({std::move(client), std::chrono::steady_clock::now()});
  }

 private:
  static constexpr int kIdleReuseS = 2;
  static constexpr size_t kMaxIdle = 16;
  std::mutex mu_;
  std::vector<Idle> idle_;
};

ClientPool& Pool() {
  static ClientPool* pool = new ClientPool();  // never destroyed: detached threads may outlive main
  return *pool;
}

void RunUpstream(const std::shared_ptr<UpstreamCall>& call, const Upstream& u,
                 const std::string& method, const httplib::Headers& headers,
                 const std::string& body, size_t max_bytes, time_t read_timeout_s) {
  std::unique_ptr<httplib::Client> owned = Pool().Take(u.origin);
  httplib::Client& client = *owned;
  client.set_read_timeout(read_timeout_s);
  httplib::Request req;
  req.method = method;
  req.path = u.path;
  req.headers = headers;
  req.body = body;
  if (!body.empty() && !req.has_header("Content-Type"))
    req.set_header("Content-Type", "application/json");
  SseReader reader(max_bytes);
  req.response_handler = [&](const httplib::Response& r) {
    std::lock_guard<std::mutex> lock(call->mu);
    call->status = r.status;
    call->headers = r.headers;
    call->event_stream = StartsWith(r.get_header_value("Content-Type"), "text/event-stream");
    call->head = true;
    call->cv.notify_all();
    return !call->cancelled;
  };
  req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    if (call->event_stream) {
      return reader.Feed(std::string_view(data, len), [&](SseEvent& e) {
        std::unique_lock<std::mutex> lock(call->mu);
        call->cv.wait(lock, [&] { return call->events.empty() || call->cancelled; });
        if (call->cancelled) return false;
        call->events.push_back(std::move(e));
        call->cv.notify_all();
        return true;
      });
    }
    std::lock_guard<std::mutex> lock(call->mu);
    if (call->body.size() + len > max_bytes) {
      call->body_too_large = true;
      return false;
    }
    call->body.append(data, len);
    return !call->cancelled;
  };
  {
    std::lock_guard<std::mutex> lock(call->mu);
    if (call->cancelled) {
      call->done = true;
      call->cv.notify_all();
      return;
    }
    call->client = &client;
  }
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool ok = client.send(req, res, error);
  std::lock_guard<std::mutex> lock(call->mu);
  call->client = nullptr;
  if (!ok && !call->head) {
    call->failed = true;
    call->error = httplib::to_string(error);
  }
  // Reused only after a whole answer that did not ask to close.
  if (ok && !call->cancelled && res.get_header_value("Connection") != "close")
    Pool().Give(std::move(owned));
  call->done = true;
  call->cv.notify_all();
}

// The requests to the upstream under way, so that stopping the proxy can cancel them (a server's
// event stream may otherwise stay open for hours).
class Calls {
 public:
  void Add(const std::shared_ptr<UpstreamCall>& call) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) call->Cancel();
    calls_[call.get()] = call;
  }
  void Remove(const UpstreamCall* call) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.erase(call);
  }
  void CancelAll() {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [key, weak] : calls_) {
      if (auto call = weak.lock()) call->Cancel();
    }
  }

 private:
  std::mutex mu_;
  bool stopping_ = false;
  std::map<const UpstreamCall*, std::weak_ptr<UpstreamCall>> calls_;
};

Calls& ActiveCalls() {
  static Calls* calls = new Calls();  // never destroyed: detached threads may outlive main
  return *calls;
}

std::shared_ptr<UpstreamCall> StartUpstream(const Upstream& u, const std::string& method,
                                            httplib::Headers headers, std::string body,
                                            size_t max_bytes, time_t read_timeout_s) {
  auto call = std::make_shared<UpstreamCall>();
  ActiveCalls().Add(call);
  std::thread([call, u, method, headers = std::move(headers), body = std::move(body), max_bytes,
               read_timeout_s] {
    RunUpstream(call, u, method, headers, body, max_bytes, read_timeout_s);
    ActiveCalls().Remove(call.get());
  }).detach();
  std::unique_lock<std::mutex> lock(call->mu);
  call->cv.wait(lock, [&] { return call->head || call->done; });
  return call;
}

// The MCP sessions the proxy has seen, by the upstream's Mcp-Session-Id ("" for a server that
// keeps none). Each has its own pending requests, tool descriptions and session-memory id.
class Sessions {
 public:
  Sessions(McpJudge& judge, std::string name) : judge_(judge), name_(std::move(name)) {}

  std::shared_ptr<McpSession> Find(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_id_.find(id);
    if (it != by_id_.end()) return it->second;
    auto s = NewLocked();
    Bind(id, s);
    return s;
  }
  std::shared_ptr<McpSession> New() {
    std::lock_guard<std::mutex> lock(mu_);
    return NewLocked();
  }
  void Remember(const std::string& id, const std::shared_ptr<McpSession>& s) {
    std::lock_guard<std::mutex> lock(mu_);
    Bind(id, s);
  }
  void Drop(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    by_id_.erase(id);
  }

 private:
  std::shared_ptr<McpSession> NewLocked() {
    return std::make_shared<McpSession>(
        judge_,
        "mcp-http-" + name_ + "-" + std::to_string(::getpid()) + "-" + std::to_string(++count_),
        "mcp-proxy");
  }
  void Bind(const std::string& id, const std::shared_ptr<McpSession>& s) {
    if (by_id_.size() >= kMaxSessions && by_id_.count(id) == 0) by_id_.erase(by_id_.begin());
    by_id_[id] = s;
  }

  McpJudge& judge_;
  std::string name_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<McpSession>> by_id_;
  unsigned long long count_ = 0;
};

// JSON answers for the client: one message as itself, several (or any for a batch) as an array.
std::string JsonAnswers(const std::vector<std::string>& answers, bool batch) {
  if (answers.size() == 1 && !batch) return answers.front();
  std::string out = "[";
  for (size_t i = 0; i < answers.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += answers[i];
  }
  out.push_back(']');
  return out;
}

std::string DataEvent(std::string_view message) {
  std::string text;
  AppendSseEvent("message", nullptr, {}, true, message, &text);
  return text;
}

class HttpProxy {
 public:
  HttpProxy(const Options& o, const McpHttpOptions& ho, Upstream upstream)
      : ho_(ho), upstream_(std::move(upstream)), judge_(o, ho.name), sessions_(judge_, ho.name) {}

  std::string Load() { return judge_.Load(); }

  void Serve(httplib::Server& server) {
    server.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      if (Admit(req, &res)) Post(req, res);
    });
    server.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      if (Admit(req, &res)) Get(req, res);
    });
    server.Delete(".*", [this](const httplib::Request& req, httplib::Response& res) {
      if (Admit(req, &res)) Delete(req, res);
    });
  }

 private:
  // Only the MCP endpoint, and only from this machine's pages.
  bool Admit(const httplib::Request& req, httplib::Response* res) {
    if (!OriginAllowed(req)) {
      res->status = 403;
      res->set_content("Doberman: a request from another origin was refused\n", "text/plain");
      return false;
    }
    if (req.path != upstream_.path) {
      res->status = 404;
      res->set_content("Doberman: the MCP endpoint is " + upstream_.path + "\n", "text/plain");
      return false;
    }
    return true;
  }

  static httplib::Headers ForwardedHeaders(const httplib::Request& req) {
    httplib::Headers h;
    for (const char* name : kForwardedRequestHeaders) {
      if (req.has_header(name)) h.emplace(name, req.get_header_value(name));
    }
    return h;
  }

  static void CopyResponseHeaders(const UpstreamCall& call, httplib::Response* res) {
    for (const char* name : kForwardedResponseHeaders) {
      auto it = call.headers.find(name);
      if (it != call.headers.end()) res->set_header(name, it->second);
    }
  }

  // Sends one message to the upstream on its own (a refusal of the server's own request), with the
  // session's headers; the answer (202) carries nothing for anyone.
  McpSend ToServer(const httplib::Request& req) {
    httplib::Headers h = ForwardedHeaders(req);
    h.erase("Last-Event-ID");
    h.erase("Accept");
    h.emplace("Accept", "application/json, text/event-stream");
    h.erase("Content-Type");
    h.emplace("Content-Type", "application/json");
    return [this, h](std::string_view message) {
      httplib::Client client(upstream_.origin);
      client.set_connection_timeout(kConnectTimeoutS);
      client.set_read_timeout(30);
      client.Post(upstream_.path.c_str(), h, std::string(message), "application/json");
    };
  }

  void Post(const httplib::Request& req, httplib::Response& res) {
    JsonValue msg;
    internal::JsonError error;
    if (!ParseMcpMessage(req.body, ho_.max_message_bytes, &msg, &error)) {
      // Unreadable or ambiguous (duplicate keys): never forwarded unjudged.
      res.status = 400;
      res.set_content(McpErrorMessage(nullptr, kMcpParseError,
                                      "Doberman: a message that could not be read (" +
                                          error.message + ") was not forwarded",
                                      nullptr),
                      "application/json");
      return;
    }
    const bool batch = msg.type == JsonType::kArray;
    bool initialize = false;
    auto is_initialize = [](const JsonValue& m) {
      const std::string* method = m.type == JsonType::kObject ? m.FindString("method") : nullptr;
      return method != nullptr && *method == "initialize";
    };
    if (batch) {
      for (const JsonValue& m : msg.items) initialize = initialize || is_initialize(m);
    } else {
      initialize = is_initialize(msg);
    }
    const std::string session_id = req.get_header_value("Mcp-Session-Id");
    // An initialize starts a session of its own, known by the id the upstream gives it.
    std::shared_ptr<McpSession> session =
        initialize && session_id.empty() ? sessions_.New() : sessions_.Find(session_id);

    // Judge the client's messages: refusals are answered here, the rest is forwarded.
    auto answers = std::make_shared<std::vector<std::string>>();
    const McpSend collect = [answers](std::string_view m) { answers->emplace_back(m); };
    std::string forward;
    std::vector<std::string> forwarded_ids;  // requests the upstream must answer
    auto judge_one = [&](const JsonValue& m, std::string_view raw, std::string* out) {
      bool forward_raw = true;
      std::string instead;
      session->FromClient(m, raw, false, collect, &forward_raw, &instead);
      if (!forward_raw && instead.empty()) return false;
      *out = forward_raw ? std::string(raw) : instead;
      const JsonValue* id = m.type == JsonType::kObject ? m.Find("id") : nullptr;
      if (id != nullptr && m.Find("method") != nullptr) forwarded_ids.push_back(McpIdKey(*id));
      return true;
    };
    if (batch) {
      // Forwarded whole when every message passes, else what passed as a smaller batch.
      std::string rest = "[";
      bool all = true, any = false;
      for (const JsonValue& m : msg.items) {
        std::string one, out;
        AppendJsonValue(m, &one);
        if (judge_one(m, one, &out)) {
          if (any) rest.push_back(',');
          rest += out;
          any = true;
        } else {
          all = false;
        }
      }
      rest.push_back(']');
      if (any) forward = all ? req.body : rest;
    } else {
      std::string out;
      if (judge_one(msg, req.body, &out)) forward = out;
    }
    if (forward.empty()) {
      if (answers->empty()) {
        res.status = 202;
      } else {
        res.set_content(JsonAnswers(*answers, batch), "application/json");
      }
      return;
    }

    auto call = StartUpstream(upstream_, "POST", ForwardedHeaders(req), forward,
                              ho_.max_message_bytes, kCallReadTimeoutS);
    std::unique_lock<std::mutex> lock(call->mu);
    if (call->failed) {
      lock.unlock();
      session->FailPending("the MCP server could not be reached (" + call->error + ")", collect,
                           &forwarded_ids);
      if (answers->empty()) {
        res.status = 502;
        res.set_content("Doberman: the MCP server could not be reached\n", "text/plain");
      } else {
        res.set_content(JsonAnswers(*answers, batch), "application/json");
      }
      return;
    }
    CopyResponseHeaders(*call, &res);
    if (initialize && call->status / 100 == 2) {
      auto it = call->headers.find("Mcp-Session-Id");
      sessions_.Remember(it != call->headers.end() ? it->second : std::string(), session);
    }
    if (call->event_stream && call->status == 200) {
      lock.unlock();
      StreamEvents(call, session, std::move(answers), forwarded_ids, ToServer(req), &res);
      return;
    }
    // A JSON answer (or none): read whole (bounded), judged message by message.
    call->cv.wait(lock, [&] { return call->done; });
    const int status = call->status;
    const std::string body = std::move(call->body);
    const bool too_large = call->body_too_large;
    lock.unlock();
    const McpSend to_server = ToServer(req);
    if (status / 100 == 2) {
      JsonValue reply;
      if (!body.empty() && !too_large &&
          ParseMcpMessage(body, ho_.max_message_bytes, &reply, &error)) {
        session->FromServerDocument(reply, body, collect, to_server);
      }
      session->FailPending(body.empty()
                               ? "the MCP server did not answer"
                               : "the MCP server's answer could not be read; it was not forwarded",
                           collect, &forwarded_ids);
      if (answers->empty()) {
        res.status = status;
      } else {
        res.status = 200;
        res.set_content(JsonAnswers(*answers, batch), "application/json");
      }
      return;
    }
    // An HTTP error (an unknown session, authentication): its status goes to the client, so it can
    // start over or log in; its body only when it is a JSON-RPC error (no server content).
    const McpSend discard = [](std::string_view) {};
    session->FailPending("", discard, &forwarded_ids);
    res.status = status;
    JsonValue reply;
    if (!too_large && ParseMcpMessage(body, ho_.max_message_bytes, &reply, &error) &&
        reply.type == JsonType::kObject && reply.Find("result") == nullptr &&
        reply.Find("method") == nullptr) {
      res.set_content(body, "application/json");
    } else {
      res.set_content("Doberman: the MCP server answered HTTP " + std::to_string(status) + "\n",
                      "text/plain");
    }
  }

  // The upstream's events, each judged before it is written; `first`: answers the proxy gives
  // itself, written before them. When the stream ends, requests of this POST it did not answer get
  // an error.
  void StreamEvents(const std::shared_ptr<UpstreamCall>& call,
                    const std::shared_ptr<McpSession>& session,
                    std::shared_ptr<std::vector<std::string>> first,
                    std::vector<std::string> forwarded_ids, McpSend to_server,
                    httplib::Response* res) {
    res->status = 200;
    res->set_header("Cache-Control", "no-cache");
    const size_t max_bytes = ho_.max_message_bytes;
    res->set_chunked_content_provider(
        "text/event-stream",
        [call, session, first, forwarded_ids, to_server, max_bytes](size_t,
                                                                    httplib::DataSink& sink) {
          bool client_gone = false;
          const McpSend to_client = [&](std::string_view m) {
            const std::string text = DataEvent(m);
            if (!client_gone && !sink.write(text.data(), text.size())) client_gone = true;
          };
          for (const std::string& m : *first) to_client(m);
          first->clear();
          SseEvent e;
          {
            std::unique_lock<std::mutex> lock(call->mu);
            const auto ready = [&] {
              return !call->events.empty() || call->done || call->cancelled;
            };
            if (!call->cv.wait_for(lock, std::chrono::seconds(kKeepAliveS), ready)) {
              // A comment now and then: the only way to learn that a client of an idle stream
              // went away (the write fails), and to cancel its upstream request.
              lock.unlock();
              static constexpr char kKeepAlive[] = ": keep-alive\n\n";
              if (!sink.write(kKeepAlive, sizeof kKeepAlive - 1)) {
                call->Cancel();
                return false;
              }
              return true;
            }
            if (call->events.empty()) {
              lock.unlock();
              session->FailPending("the MCP server's stream ended before it answered", to_client,
                                   &forwarded_ids);
              sink.done();
              return !client_gone;
            }
            e = std::move(call->events.front());
            call->events.pop_front();
            call->cv.notify_all();
          }
          JudgeEvent(e, *session, to_server, max_bytes, &sink, &client_gone);
          if (client_gone) call->Cancel();
          return !client_gone;
        },
        [call](bool) { call->Cancel(); });
  }

  // One event of the upstream's stream: its messages judged and written (refused ones replaced);
  // an event without data (a resumption id, a retry delay) is written as it came.
  static void JudgeEvent(const SseEvent& e, McpSession& session, const McpSend& to_server,
                         size_t max_bytes, httplib::DataSink* sink, bool* client_gone) {
    if (e.too_large) return;  // never forwarded; its request is failed when the stream ends
    if (!e.has_data || e.data.empty()) {
      const std::string text = SseEventText(e);
      if (!sink->write(text.data(), text.size())) *client_gone = true;
      return;
    }
    JsonValue msg;
    internal::JsonError error;
    if (!ParseMcpMessage(e.data, max_bytes, &msg, &error)) return;  // unreadable: not forwarded
    // The event's id is kept on what is written for it, so a client can resume after it.
    const McpSend with_id = [&](std::string_view m) {
      std::string text;
      AppendSseEvent("message", e.has_id ? &e.id : nullptr, {}, true, m, &text);
      if (!*client_gone && !sink->write(text.data(), text.size())) *client_gone = true;
    };
    session.FromServerDocument(msg, e.data, with_id, to_server);
  }

  // The server's own stream (requests and notifications for the client), judged event by event.
  void Get(const httplib::Request& req, httplib::Response& res) {
    std::shared_ptr<McpSession> session = sessions_.Find(req.get_header_value("Mcp-Session-Id"));
    auto call = StartUpstream(upstream_, "GET", ForwardedHeaders(req), std::string(),
                              ho_.max_message_bytes, kStreamReadTimeoutS);
    std::unique_lock<std::mutex> lock(call->mu);
    if (call->failed) {
      res.status = 502;
      res.set_content("Doberman: the MCP server could not be reached\n", "text/plain");
      return;
    }
    CopyResponseHeaders(*call, &res);
    if (call->event_stream && call->status == 200) {
      lock.unlock();
      StreamEvents(call, session, std::make_shared<std::vector<std::string>>(), {}, ToServer(req),
                   &res);
      return;
    }
    res.status = call->status;  // 405: the server offers no stream of its own
    lock.unlock();
    call->Cancel();
  }

  void Delete(const httplib::Request& req, httplib::Response& res) {
    const std::string session_id = req.get_header_value("Mcp-Session-Id");
    auto call = StartUpstream(upstream_, "DELETE", ForwardedHeaders(req), std::string(),
                              ho_.max_message_bytes, kConnectTimeoutS);
    std::unique_lock<std::mutex> lock(call->mu);
    call->cv.wait(lock, [&] { return call->done; });
    res.status = call->failed ? 502 : call->status;
    if (res.status / 100 == 2) sessions_.Drop(session_id);
  }

  const McpHttpOptions& ho_;
  Upstream upstream_;
  McpJudge judge_;
  Sessions sessions_;
};

}  // namespace

int RunMcpHttpProxy(const Options& o, const McpHttpOptions& ho) {
  Upstream upstream;
  std::string why;
  if (!ParseUpstream(ho.upstream, &upstream, &why)) {
    std::fprintf(stderr, "doberman-guard mcp-proxy: %s: %s\n", ho.upstream.c_str(), why.c_str());
    return 2;
  }
  std::string host;
  int port = 0;
  if (!ParseListen(ho.listen, &host, &port)) {
    std::fprintf(stderr, "doberman-guard mcp-proxy: --listen wants HOST:PORT, not %s\n",
                 ho.listen.c_str());
    return 2;
  }
  // SIGTERM and SIGINT stop the server from a thread of their own (not from a signal handler);
  // blocked before any other thread starts, so every thread inherits the mask.
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  HttpProxy proxy(o, ho, upstream);
  const std::string load_error = proxy.Load();
  if (!load_error.empty()) {
    // Still serve: every call is then refused (AUTH, pack unavailable), which the client sees.
    std::fprintf(stderr, "doberman-guard mcp-proxy: %s\n", load_error.c_str());
  }
  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  server.set_payload_max_length(ho.max_message_bytes);
  server.set_tcp_nodelay(true);  // each event is its own write: no Nagle delay before the next
  proxy.Serve(server);
  if (port == 0) {
    port = server.bind_to_any_port(host);
    if (port < 0) port = 0;
  } else if (!server.bind_to_port(host, port)) {
    port = 0;
  }
  if (port == 0) {
    std::fprintf(stderr, "doberman-guard mcp-proxy: cannot listen on %s\n", ho.listen.c_str());
    return 125;
  }
  std::fprintf(stderr, "doberman-guard mcp-proxy: listening on http://%s:%d%s for %s\n",
               host.find(':') != std::string::npos ? ("[" + host + "]").c_str() : host.c_str(),
               port, upstream.path.c_str(), ho.upstream.c_str());
  std::thread stopper([&server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    ActiveCalls().CancelAll();
    server.stop();
  });
  stopper.detach();
  server.listen_after_bind();
  return 0;
}

}  // namespace doberman::guard
