// The warm service (contract and wire protocol in guard_service.h).
#include "guard_service.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "json.h"
#include "state_dir.h"
#include "state_store.h"

namespace doberman::guard {
namespace {

// The pack in force: shared by the workers; a reload swaps in another one. Each generation's
// databases stay alive while a worker still decides with them.
struct PackGeneration {
  LoadedPack loaded;  // pack (owned) + the load error when it failed
  uint64_t number = 0;
};

int g_signal_pipe[2] = {-1, -1};

extern "C" void OnServiceSignal(int sig) {
  const char c = sig == SIGHUP ? 'h' : 'q';
  (void)!::write(g_signal_pipe[1], &c, 1);
}

// A unix socket owned by this user: the only thing at the service's path (or its staging name)
// that it may replace.
bool IsOurSocket(const struct stat& st) { return S_ISSOCK(st.st_mode) && st.st_uid == ::geteuid(); }

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string Response(const HookAnswer& a) {
  return "DOBERMAN/1 " + std::to_string(a.exit_code) + " " + std::to_string(a.out.size()) + " " +
         std::to_string(a.err.size()) + "\n" + a.out + a.err;
}

// Reads the request: the header line and the payload to end of stream, within the limits (the
// socket's receive timeout bounds each wait). False when it cannot be read whole.
bool ReadRequest(int fd, Host* host, bool* egress, std::string* payload, std::string* why) {
  std::string data;
  char buf[65536];
  size_t header_end = std::string::npos;
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = errno == EAGAIN || errno == EWOULDBLOCK ? "request timed out" : "request unreadable";
      break;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (header_end == std::string::npos) header_end = data.find('\n');
    if (header_end == std::string::npos && data.size() > 256) {
      *why = "request header too long";
      return false;
    }
    if (data.size() > kMaxPayloadBytes + 256) {
      *why = "hook payload larger than 64 MiB";
      break;
    }
  }
  if (header_end == std::string::npos) {
    if (why->empty()) *why = "request has no header";
    return false;
  }
  const std::string header = data.substr(0, header_end);
  if (header == "DOBERMAN/1 EGRESS") {
    *egress = true;
    if (!why->empty()) return false;  // no host protocol to refuse in: closed, the proxy refuses
    payload->assign(data, header_end + 1, std::string::npos);
    return true;
  }
  const std::string prefix = "DOBERMAN/1 HOOK ";
  if (header.rfind(prefix, 0) != 0) {
    *why = "request header is not DOBERMAN/1 HOOK";
    return false;
  }
  if (!HostFromName(std::string_view(header).substr(prefix.size()), host)) {
    *why = "unknown host";
    return false;
  }
  if (!why->empty()) return true;  // host known: the caller refuses in its protocol
  payload->assign(data, header_end + 1, std::string::npos);
  return true;
}

// An egress question from a proxy: {"session", "url" | ("scheme", "host", "port"), "method",
// "headers": [...], "body_prefix"}. Judged as a fetch of that URL carrying the headers and body as
// arguments (the egress, secret and exfiltration rules), and against the session's record (a secret
// shown earlier in the session is confirmed exfiltration). Answers the `check` line: verdict,
// status, reasons, rules. Anything malformed is AUTH with the reason.
std::string EgressAnswer(const Options& o, std::string_view text, LoadedPack& lp, Memory* memory);

class Service {
 public:
  Service(const Options& o, const ServiceOptions& s) : o_(o), s_(s) {}

  int Run();

 private:
  bool Listen();
  std::shared_ptr<PackGeneration> LoadGeneration();
  void Reload();
  void Worker();
  void WakeWorkers();
  void Serve(int fd, std::unique_ptr<LoadedPack>* view, uint64_t* view_number, Memory* memory);

  const Options& o_;
  const ServiceOptions& s_;
  int listen_fd_ = -1;
  bool activated_ = false;  // the socket came from systemd: not ours to remove
  // Workers accept connections themselves: a request wakes one thread, not the accept loop and
  // then a worker (on this 2-core VM each hand-off cost tens of microseconds of the client's time).
  std::atomic<bool> stopping_{false};
  std::mutex mu_;  // guards current_
  std::shared_ptr<PackGeneration> current_;
  uint64_t generations_ = 0;
  // The decision log is written by one thread in batches (one transaction per batch): a commit per
  // request serialized the workers on the store's write lock (measured: 1,173 requests/s with it,
  // see docs/service.md).
  void Logger();
  bool Enqueue(state::LogRow row);
  // Reloads run on their own thread: loading a pack takes milliseconds, and the accept loop must
  // not stop for them.
  void Reloader();
  void RequestReload();
  std::mutex reload_mu_;
  std::condition_variable reload_cv_;
  bool reload_wanted_ = false;
  bool reload_stopping_ = false;
  std::mutex log_mu_;
  std::condition_variable log_cv_;
  std::vector<state::LogRow> log_queue_;
  bool log_stopping_ = false;
};

void Service::RequestReload() {
  std::lock_guard<std::mutex> lock(reload_mu_);
  reload_wanted_ = true;
  reload_cv_.notify_one();
}

void Service::Reloader() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(reload_mu_);
      reload_cv_.wait(lock, [&] { return reload_stopping_ || reload_wanted_; });
      if (reload_stopping_) return;
      reload_wanted_ = false;  // signals that arrive meanwhile fold into one more reload
    }
    Reload();
  }
}

bool Service::Enqueue(state::LogRow row) {
  std::lock_guard<std::mutex> lock(log_mu_);
  if (log_queue_.size() >= 65536) return false;  // the logger is stuck: the caller writes itself
  log_queue_.push_back(std::move(row));
  log_cv_.notify_one();
  return true;
}

void Service::Logger() {
  std::unique_ptr<state::StateStore> store;
  std::string error, last_error;
  // Opened when the first rows arrive, and again after a failure (a store that was busy or being
  // rebuilt when the service started must not silence the log for the service's lifetime).
  auto open = [&] {
    state::StateDir dir;
    bool rebuilt = false;
    if (state::OpenStateDir(o_.state_dir, &dir, &error))
      store = state::StateStore::Open(dir, state::StoreLimits{}, &rebuilt, &error);
    if (store == nullptr && error != last_error)
      std::fprintf(stderr, "doberman-guard serve: decision log unavailable: %s\n", error.c_str());
    last_error = store == nullptr ? error : std::string();
  };
  for (;;) {
    std::vector<state::LogRow> batch;
    {
      std::unique_lock<std::mutex> lock(log_mu_);
      log_cv_.wait_for(lock, std::chrono::milliseconds(20),
                       [&] { return log_stopping_ || log_queue_.size() >= 256; });
      batch.swap(log_queue_);
      if (batch.empty() && log_stopping_) return;
    }
    if (batch.empty()) continue;
    if (store == nullptr) open();
    if (store != nullptr && !store->AppendLogs(&batch, &error))
      std::fprintf(stderr, "doberman-guard serve: decision log: %s\n", error.c_str());
  }
}

std::shared_ptr<PackGeneration> Service::LoadGeneration() {
  auto g = std::make_shared<PackGeneration>();
  Load(o_, &g->loaded);  // every field: the service answers any payload
  // Load makes a scratch for itself; workers make their own, so this one is only the check that
  // the pack can give one.
  g->number = ++generations_;
  return g;
}

void Service::Reload() {
  std::shared_ptr<PackGeneration> fresh = LoadGeneration();
  if (fresh->loaded.scratch == nullptr || !fresh->loaded.error.empty()) {
    std::fprintf(stderr, "doberman-guard serve: reload refused, the current pack stays: %s\n",
                 fresh->loaded.error.c_str());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  current_ = fresh;
  std::fprintf(stderr, "doberman-guard serve: reloaded %s (generation %llu)\n", o_.pack.c_str(),
               static_cast<unsigned long long>(fresh->number));
}

bool Service::Listen() {
  // systemd socket activation: the listening socket is fd 3 (LISTEN_FDS=1 for this process); the
  // socket unit then owns its path and mode.
  const char* pid = std::getenv("LISTEN_PID");
  const char* fds = std::getenv("LISTEN_FDS");
  if (pid != nullptr && fds != nullptr && std::atol(pid) == ::getpid() && std::atoi(fds) == 1) {
    listen_fd_ = 3;
    ::fcntl(listen_fd_, F_SETFD, FD_CLOEXEC);
    activated_ = true;
    return true;
  }
  const std::string& path = s_.socket;
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0700);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    std::fprintf(stderr, "doberman-guard serve: socket path is empty or too long\n");
    return false;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!IsOurSocket(st)) {
      std::fprintf(stderr, "doberman-guard serve: %s exists and is not our socket\n", path.c_str());
      return false;
    }
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live =
        probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      std::fprintf(stderr, "doberman-guard serve: a service already answers on %s\n", path.c_str());
      return false;
    }
    ::unlink(path.c_str());  // a stale socket of ours
  }
  // Bound and listening under a temporary name first, then renamed into place: a client that
  // finds the path always finds a socket that accepts. Bound at the path itself, the socket
  // exists between bind and listen and refuses connections there; a hook arriving in that window
  // fell back to the one-shot guard (seen in CI: its decision missing from the service's log).
  // A path too long to take the suffix is bound in place, as before.
  const std::string staging = path + ".listening-" + std::to_string(::getpid());
  sockaddr_un staged = addr;
  const bool rename_in = staging.size() < sizeof staged.sun_path;
  if (rename_in) {
    std::memcpy(staged.sun_path, staging.c_str(), staging.size() + 1);
    // Left by an earlier process of ours with this pid that died between bind and rename.
    struct stat left {};
    if (::lstat(staging.c_str(), &left) == 0 && IsOurSocket(left)) ::unlink(staging.c_str());
  }
  const std::string& bound_path = rename_in ? staging : path;
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const mode_t old = ::umask(077);
  const bool bound = listen_fd_ >= 0 &&
                     ::bind(listen_fd_, reinterpret_cast<sockaddr*>(rename_in ? &staged : &addr),
                            sizeof addr) == 0;
  ::umask(old);
  // The backlog is the bounded queue: connections beyond the busy workers wait there; when it is
  // full, a client's connect fails at once and it falls back to the one-shot hook.
  if (!bound || ::chmod(bound_path.c_str(), 0600) != 0 || ::listen(listen_fd_, s_.queue) != 0 ||
      (rename_in && ::rename(staging.c_str(), path.c_str()) != 0)) {
    std::fprintf(stderr, "doberman-guard serve: cannot listen on %s: %s\n", path.c_str(),
                 std::strerror(errno));
    if (bound) ::unlink(bound_path.c_str());
    return false;
  }
  return true;
}

void Service::Serve(int fd, std::unique_ptr<LoadedPack>* view, uint64_t* view_number,
                    Memory* memory) {
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  timeval tv{};
  tv.tv_sec = s_.request_timeout_ms / 1000;
  tv.tv_usec = (s_.request_timeout_ms % 1000) * 1000;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  Host host = Host::kAny;
  bool egress = false;
  std::string payload, why;
  if (!ReadRequest(fd, &host, &egress, &payload, &why)) return;  // the client refuses
  if (!why.empty()) {
    const std::string r = Response(RefuseUnreadable(host, why));
    WriteAll(fd, r.data(), r.size());
    return;
  }
  std::shared_ptr<PackGeneration> gen;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gen = current_;
  }
  // Until this worker's store opens, its answers are raised to AUTH; a view made before then is
  // made again so that its scratch gets the fingerprint key.
  const bool rekey = memory->OpenAgain(o_);
  // This worker's scratch for the pack in force (a reload gives the next request a new one).
  if (*view == nullptr || *view_number != gen->number || rekey) {
    auto view_of = [](const LoadedPack& shared) {
      auto v = std::make_unique<LoadedPack>();
      v->owns_pack = false;
      v->pack = shared.pack;
      v->error = shared.error;
      v->status = shared.status;
      if (v->pack != nullptr && doberman_scratch_create(v->pack, &v->scratch) != DOBERMAN_OK) {
        v->error = "cannot allocate scratch";
        v->status = "DOBERMAN_E_NO_MEMORY";
      }
      return v;
    };
    auto v = view_of(gen->loaded);
    for (const auto& more : gen->loaded.more) {
      v->more.push_back(view_of(*more));
      if (v->more.back()->scratch == nullptr && v->error.empty()) {
        v->error = v->more.back()->error;
        v->status = v->more.back()->status;
      }
    }
    memory->Key(v.get());
    *view = std::move(v);
    *view_number = gen->number;
  }
  if (egress) {
    const std::string answer = EgressAnswer(o_, payload, **view, memory);
    const std::string r = "DOBERMAN/1 0 " + std::to_string(answer.size()) + " 0\n" + answer;
    WriteAll(fd, r.data(), r.size());
    return;
  }
  const HookOutcome outcome = DecideHook(o_, host, payload, view->get(), memory, nullptr);
  const std::string r = Response(outcome.answer);
  WriteAll(fd, r.data(), r.size());
  ::shutdown(fd, SHUT_WR);
  if (outcome.judged && memory->open) {
    const char* name = HostName(host);
    const int64_t latency = MicrosSince(start);
    if (!Enqueue(memory->memory.MakeLogRow(name, outcome.payload, outcome.decision,
                                           Memory::PackLabel(**view), latency))) {
      memory->Log(o_, **view, outcome.payload, outcome.decision, latency, name);
    }
  }
}

void Service::Worker() {
  Memory memory;
  memory.Open(o_);
  std::unique_ptr<LoadedPack> view;
  uint64_t view_number = 0;
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (stopping_.load()) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors or memory: the waiting clients time out and fall back; try again.
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      std::fprintf(stderr, "doberman-guard serve: accept: %s\n", std::strerror(errno));
      return;
    }
    ucred peer{};
    socklen_t len = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != ::geteuid()) {
      ::close(fd);  // another user: never answered
      continue;
    }
    Serve(fd, &view, &view_number, &memory);
    ::close(fd);
  }
}

// Wakes every worker blocked in accept so that it sees stopping_: one connection each to our own
// socket (a socket systemd passed must stay usable for the next activation, so it is never shut
// down), then, for a socket of our own, shutdown, which fails every later accept.
void Service::WakeWorkers() {
  sockaddr_un addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    for (int i = 0; i < s_.workers; ++i) {
      const int c = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (c < 0) break;
      ::connect(c, reinterpret_cast<sockaddr*>(&addr), len);
      ::close(c);
    }
  }
  if (!activated_) ::shutdown(listen_fd_, SHUT_RDWR);
}

int Service::Run() {
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 3;
  struct sigaction sa {};
  sa.sa_handler = OnServiceSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGHUP, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  if (!o_.state_dir.empty()) {
    // Created first: the pack's rollback record lives in it.
    state::StateDir dir;
    std::string error;
    if (!state::OpenStateDir(o_.state_dir, &dir, &error))
      std::fprintf(stderr, "doberman-guard serve: %s\n", error.c_str());
  }
  // A new pack file (written in place, or renamed over it as build tools and package managers do)
  // reloads like SIGHUP. The directory is watched, since a rename replaces the file's inode, and
  // before the first load: a file replaced after the load but before the watch would be missed.
  const size_t slash = o_.pack.rfind('/');
  const std::string pack_dir = slash == std::string::npos ? "." : o_.pack.substr(0, slash);
  const std::string pack_name = slash == std::string::npos ? o_.pack : o_.pack.substr(slash + 1);
  const int watch_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch_fd >= 0 &&
      ::inotify_add_watch(watch_fd, pack_dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
    std::fprintf(stderr, "doberman-guard serve: cannot watch %s (reload with SIGHUP)\n",
                 pack_dir.c_str());
  }
  current_ = LoadGeneration();
  if (current_->loaded.scratch == nullptr || !current_->loaded.error.empty()) {
    // Still serve: every answer then refuses with the reason (the client never falls back to a
    // one-shot hook that would fail the same way, and the operator sees why in the log).
    std::fprintf(stderr, "doberman-guard serve: %s; every request will be refused\n",
                 current_->loaded.error.c_str());
  }
  if (!Listen()) return 3;
  std::fprintf(stderr, "doberman-guard serve: listening on %s (%d workers)\n",
               activated_ ? "the socket systemd passed" : s_.socket.c_str(), s_.workers);
  std::vector<std::thread> workers;
  for (int i = 0; i < s_.workers; ++i) workers.emplace_back([this] { Worker(); });
  std::thread logger;
  if (!o_.state_dir.empty()) logger = std::thread([this] { Logger(); });
  std::thread reloader([this] { Reloader(); });
  bool running = true;
  while (running) {
    // Signals and pack-file changes only; the workers accept the connections.
    pollfd fds[2] = {{g_signal_pipe[0], POLLIN, 0}, {watch_fd, POLLIN, 0}};
    if (::poll(fds, watch_fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR) break;
    if (watch_fd >= 0 && (fds[1].revents & POLLIN)) {
      alignas(inotify_event) char events[4096];
      bool ours = false;
      ssize_t n;
      while ((n = ::read(watch_fd, events, sizeof events)) > 0) {
        for (ssize_t off = 0; off < n;) {
          const auto* e = reinterpret_cast<const inotify_event*>(events + off);
          if (e->len > 0 && pack_name == e->name) ours = true;
          off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        }
      }
      if (ours) RequestReload();
    }
    if (fds[0].revents & POLLIN) {
      char c = 0;
      while (::read(g_signal_pipe[0], &c, 1) == 1) {
        if (c == 'q') running = false;
        if (c == 'h') RequestReload();
      }
    }
  }
  stopping_ = true;
  WakeWorkers();
  for (std::thread& t : workers) t.join();
  {
    std::lock_guard<std::mutex> lock(reload_mu_);
    reload_stopping_ = true;
  }
  reload_cv_.notify_all();
  reloader.join();
  {
    std::lock_guard<std::mutex> lock(log_mu_);
    log_stopping_ = true;
  }
  log_cv_.notify_all();
  if (logger.joinable()) logger.join();  // the rows still queued are written first
  ::close(listen_fd_);
  if (watch_fd >= 0) ::close(watch_fd);
  if (!activated_) ::unlink(s_.socket.c_str());
  std::fprintf(stderr, "doberman-guard serve: stopped\n");
  return 0;
}

}  // namespace

namespace {

std::string EgressAnswer(const Options& o, std::string_view text, LoadedPack& lp, Memory* memory) {
  ParsedPayload payload;
  payload.event = HookEvent::kPreToolUse;
  payload.event_name = "Egress";
  payload.tool = "WebFetch";
  Decision d;
  d.verdict = DOBERMAN_PASS;
  internal::JsonValue json;
  internal::JsonError jerr;
  internal::JsonLimits limits;
  limits.max_bytes = kMaxPayloadBytes;
  if (!internal::ParseJson(text, limits, &json, &jerr) ||
      json.type != internal::JsonType::kObject) {
    d.Raise(DOBERMAN_AUTH, "error:bad_request", "egress request is not a JSON object");
    d.status = "DOBERMAN_E_ARGUMENT";
    return CheckLine(d, nullptr);
  }
  auto text_of = [&](const char* key) {
    const internal::JsonValue* v = json.Find(key);
    return v != nullptr && (v->type == internal::JsonType::kString ||
                            v->type == internal::JsonType::kNumber)
               ? v->text
               : std::string();
  };
  CallInput call;
  call.tool = "WebFetch";
  call.url = text_of("url");
  if (call.url.empty()) {
    const std::string scheme = text_of("scheme"), host = text_of("host"), port = text_of("port");
    if (host.empty()) {
      d.Raise(DOBERMAN_AUTH, "error:bad_request", "egress request names no url and no host");
      d.status = "DOBERMAN_E_ARGUMENT";
      return CheckLine(d, nullptr);
    }
    call.url =
        (scheme.empty() ? "https" : scheme) + "://" + host + (port.empty() ? "" : ":" + port);
  }
  if (const internal::JsonValue* h = json.Find("headers")) CollectStrings(*h, &call.args);
  const std::string body = text_of("body_prefix");
  if (!body.empty()) call.args.push_back(body);
  payload.session = text_of("session");
  payload.any_session = payload.session.empty();  // a proxy that cannot name the session
  payload.calls.push_back(std::move(call));
  d = DecideParsed(lp, payload);
  // A proxy's question is outbound by definition, loopback or not.
  if (d.outbound_calls.empty()) d.outbound_calls.push_back(0);
  // A store that is wanted but cannot be read is an AUTH, never a silent skip: a PASS here would
  // let a recorded secret out.
  if (!memory->RaiseIfUnavailable(o, &d) && memory->open && lp.scratch != nullptr)
    memory->memory.Apply(payload, lp.pack, lp.scratch, &d);
  return CheckLine(d, nullptr);
}

}  // namespace

std::string DefaultSocketPath() {
  if (const char* e = std::getenv("DOBERMAN_SOCKET"); e != nullptr && *e != '\0') return e;
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x != nullptr && *x == '/')
    return std::string(x) + "/doberman/guard.sock";
  return "/tmp/doberman-" + std::to_string(::geteuid()) + "/guard.sock";
}

int RunServe(const Options& o, const ServiceOptions& service) {
  Service s(o, service);
  return s.Run();
}

}  // namespace doberman::guard
