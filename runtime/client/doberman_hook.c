/* doberman-hook HOST: the thin hook client. A host runs it for every tool call; it forwards the
 * payload on stdin to the warm service (`doberman-guard serve`) and prints the service's answer
 * exactly (stdout, stderr, exit code). When the service is absent, refuses the connection, or does
 * not answer within the time limit, it runs the one-shot `doberman-guard hook HOST` on the same
 * payload instead, so the call is still judged; when even that cannot start, it exits 2 with a
 * message (every supported host blocks on exit 2). It never prints an answer it did not get.
 *
 * Plain C with no C++ runtime, linked statically (with musl where installed), so that it starts in
 * a fraction of a millisecond. On this kind of VM a page fault costs tens of microseconds, more
 * than the service's whole decision, so the common path touches as few pages as it can: the payload
 * and the answer share one static buffer (the heap only for payloads past 64 KiB), no stdio
 * formatting, and the clock is read with a system call rather than through the vDSO, whose first
 * use faults in three pages.
 *
 * Environment:
 *   DOBERMAN_SOCKET           the service's socket (default $XDG_RUNTIME_DIR/doberman/guard.sock,
 *                             else /tmp/doberman-UID/guard.sock)
 *   DOBERMAN_CLIENT_TIMEOUT_MS  how long to wait for the service (default 3000)
 *   DOBERMAN_GUARD            the one-shot guard for the fallback (default: doberman-guard next to
 *                             this program, else on PATH); it gets this process's arguments and
 *                             environment (DOBERMAN_PACK, DOBERMAN_PUBKEY, DOBERMAN_STATE_DIR ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAYLOAD (64u << 20)
#define MAX_ANSWER (16u << 20)

/* The payload, then the answer after it, for payloads and answers that fit (nearly all do). */
static char g_buf[65536];

static long now_ms(void) {
  struct timespec ts;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Grows `buf` (capacity for `n` bytes used) to `want` bytes: onto the heap when it is still the
 * fixed buffer `fixed`, which is left as it is. NULL when memory runs out (`buf` is then
 * unchanged). */
static char* grow(char* buf, const char* fixed, size_t n, size_t want) {
  char* bigger = buf == fixed ? malloc(want) : realloc(buf, want);
  if (bigger != NULL && buf == fixed) memcpy(bigger, fixed, n);
  return bigger;
}

/* Reads all of stdin: into g_buf when it fits, else into a growing heap buffer; NULL (and
 * *too_large) past MAX_PAYLOAD. */
static char* read_stdin(size_t* size, int* too_large) {
  size_t cap = sizeof g_buf, n = 0;
  char* buf = g_buf;
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_PAYLOAD + 1) {
        *too_large = 1;
        return NULL;
      }
      cap *= 2;
      char* bigger = grow(buf, g_buf, n, cap);
      if (bigger == NULL) return NULL;
      buf = bigger;
    }
    ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return NULL;
    if (r == 0) break;
    n += (size_t)r;
  }
  *size = n;
  return buf;
}

/* Appends the string `src` to `dst` (capacity `cap`, length *n); 0 when it fit. */
static int append(char* dst, size_t cap, size_t* n, const char* src) {
  size_t len = strlen(src);
  if (*n + len >= cap) return -1;
  memcpy(dst + *n, src, len + 1);
  *n += len;
  return 0;
}

/* Reads a decimal number at *p (advancing it); -1 when there is none or it is too large. */
static long parse_number(const char** p, const char* end) {
  long v = 0;
  const char* q = *p;
  if (q == end || *q < '0' || *q > '9') return -1;
  for (; q < end && *q >= '0' && *q <= '9'; ++q) {
    if (v > (1L << 40)) return -1;
    v = v * 10 + (*q - '0');
  }
  *p = q;
  return v;
}

static int write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The service's socket path; -1 when it does not fit `size`. */
static int socket_path(char* out, size_t size) {
  const char* e = getenv("DOBERMAN_SOCKET");
  const char* x = getenv("XDG_RUNTIME_DIR");
  size_t n = 0;
  out[0] = '\0';
  if (e != NULL && *e != '\0') return append(out, size, &n, e);
  if (x != NULL && *x == '/')
    return append(out, size, &n, x) || append(out, size, &n, "/doberman/guard.sock") ? -1 : 0;
  char uid[24];
  size_t k = sizeof uid;
  uid[--k] = '\0';
  unsigned v = (unsigned)geteuid();
  do uid[--k] = (char)('0' + v % 10);
  while ((v /= 10) != 0 && k > 0);
  return append(out, size, &n, "/tmp/doberman-") || append(out, size, &n, uid + k) ||
                 append(out, size, &n, "/guard.sock")
             ? -1
             : 0;
}

/* Waits for `fd` to be ready for `events` until `deadline`; 0 when ready. */
static int wait_fd(int fd, short events, long deadline) {
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) return -1;
    struct pollfd p = {fd, events, 0};
    int r = poll(&p, 1, (int)left);
    if (r < 0 && errno == EINTR) continue;
    return r == 1 ? 0 : -1;
  }
}

/* Asks the service. On success prints its answer and returns its exit code; -1 when the service
 * gave no complete answer (nothing has been printed then). */
static int ask_service(const char* host, const char* payload, size_t size, long timeout_ms) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (socket_path(addr.sun_path, sizeof addr.sun_path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  const long deadline = now_ms() + timeout_ms;
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0 &&
      (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) != 0)) {
    close(fd);
    return -1;
  }
  char header[64];
  size_t hn = 0;
  if (append(header, sizeof header, &hn, "DOBERMAN/1 HOOK ") ||
      append(header, sizeof header, &hn, host) || append(header, sizeof header, &hn, "\n"))
    goto fail;
  /* Header and payload in one message: one wake-up of the service instead of two. */
  struct iovec iov[2] = {{header, hn}, {(void*)payload, size}};
  int first = 0;
  while (first < 2) {
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov + first;
    msg.msg_iovlen = (size_t)(2 - first);
    ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (wait_fd(fd, POLLOUT, deadline) != 0) goto fail;
      continue;
    }
    if (w <= 0) goto fail;
    size_t done = (size_t)w; /* a partial send: step over what went out */
    while (first < 2 && done >= iov[first].iov_len) done -= iov[first++].iov_len;
    if (first < 2) {
      iov[first].iov_base = (char*)iov[first].iov_base + done;
      iov[first].iov_len -= done;
    }
  }
  shutdown(fd, SHUT_WR);
  /* The answer goes after the payload in g_buf while it fits (the payload is still needed if the
   * service fails and the one-shot hook must judge it). */
  char* const spare = payload == g_buf ? g_buf + size : g_buf;
  size_t cap = (size_t)(g_buf + sizeof g_buf - spare), n = 0;
  char* buf = spare;
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_ANSWER) goto fail_buf;
      size_t want = cap < 4096 ? 8192 : cap * 2;
      char* bigger = grow(buf, spare, n, want);
      if (bigger == NULL) goto fail_buf;
      buf = bigger;
      cap = want;
    }
    ssize_t r = recv(fd, buf + n, cap - n, 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (wait_fd(fd, POLLIN, deadline) != 0) goto fail_buf;
      continue;
    }
    if (r < 0) goto fail_buf;
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  /* "DOBERMAN/1 <code> <out> <err>\n" then exactly out + err bytes. */
  char* nl = memchr(buf, '\n', n);
  static const char kPrefix[] = "DOBERMAN/1 ";
  const char* p = buf;
  long code = -1, out_len = -1, err_len = -1;
  if (nl != NULL && nl - buf <= 60 && (size_t)(nl - buf) > sizeof kPrefix - 1 &&
      memcmp(buf, kPrefix, sizeof kPrefix - 1) == 0) {
    p += sizeof kPrefix - 1;
    code = parse_number(&p, nl);
    if (code >= 0 && p < nl && *p++ == ' ') out_len = parse_number(&p, nl);
    if (out_len >= 0 && p < nl && *p++ == ' ') err_len = parse_number(&p, nl);
  }
  if (code < 0 || code > 255 || out_len < 0 || err_len < 0 || p != nl ||
      (size_t)out_len + (size_t)err_len != (size_t)(n - (size_t)(nl + 1 - buf))) {
    if (buf != spare) free(buf);
    return -1;
  }
  const char* out = nl + 1;
  if (write_all(STDOUT_FILENO, out, (size_t)out_len) != 0) {
    _exit(2); /* half an answer may be out: refuse rather than fall back and answer twice */
  }
  write_all(STDERR_FILENO, out + out_len, (size_t)err_len);
  if (buf != spare) free(buf);
  return (int)code;
fail_buf:
  if (buf != spare) free(buf);
fail:
  close(fd);
  return -1;
}

/* The one-shot guard on the same payload: exec'd with the payload on a memfd as its stdin. */
static void run_one_shot(char** argv, const char* payload, size_t size) {
  int mfd = memfd_create("doberman-payload", MFD_CLOEXEC);
  if (mfd < 0 || write_all(mfd, payload, size) != 0 || lseek(mfd, 0, SEEK_SET) != 0 ||
      dup2(mfd, STDIN_FILENO) < 0) {
    return;
  }
  char guard[PATH_MAX];
  const char* env = getenv("DOBERMAN_GUARD");
  if (env != NULL && *env != '\0') {
    snprintf(guard, sizeof guard, "%s", env);
  } else {
    ssize_t len = readlink("/proc/self/exe", guard, sizeof guard - 32);
    if (len > 0) {
      guard[len] = '\0';
      char* slash = strrchr(guard, '/');
      if (slash != NULL) strcpy(slash + 1, "doberman-guard");
    } else {
      snprintf(guard, sizeof guard, "doberman-guard");
    }
  }
  char* args[64];
  int k = 0;
  args[k++] = guard;
  args[k++] = "hook";
  for (int i = 1; argv[i] != NULL && k < 62; ++i) args[k++] = argv[i];
  args[k] = NULL;
  if (strchr(guard, '/') != NULL) {
    execv(guard, args);
  } else {
    execvp(guard, args);
  }
  /* Not next to us: try PATH. */
  args[0] = "doberman-guard";
  execvp("doberman-guard", args);
}

static void refuse(const char* why) {
  fprintf(stderr, "Doberman BLOCK: %s; the call is refused (fail closed)\n", why);
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "claude-code") != 0 && strcmp(argv[1], "codex") != 0 &&
                   strcmp(argv[1], "cursor") != 0)) {
    fputs("usage: doberman-hook claude-code|codex|cursor [doberman-guard hook options]\n", stderr);
    refuse("doberman-hook is misconfigured (bad arguments)");
    return 2;
  }
  size_t size = 0;
  int too_large = 0;
  char* payload = read_stdin(&size, &too_large);
  if (payload == NULL) {
    refuse(too_large ? "hook payload larger than 64 MiB" : "cannot read the hook payload");
    return 2;
  }
  long timeout = 3000;
  const char* t = getenv("DOBERMAN_CLIENT_TIMEOUT_MS");
  if (t != NULL && *t != '\0') {
    char* end = NULL;
    long v = strtol(t, &end, 10);
    if (*end == '\0' && v > 0 && v <= 600000) timeout = v;
  }
  int code = ask_service(argv[1], payload, size, timeout);
  if (code >= 0) return code;
  run_one_shot(argv, payload, size);
  refuse("neither the Doberman service nor doberman-guard could be reached");
  return 2;
}
