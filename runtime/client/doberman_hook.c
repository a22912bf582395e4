/* doberman-hook HOST: the thin hook client. A host runs it for every tool call; it forwards the
 * payload on stdin to the warm service (`doberman-guard serve`) and prints the service's answer
 * exactly (stdout, stderr, exit code). When the service is absent, refuses the connection, or does
 * not answer within the time limit, it runs the one-shot `doberman-guard hook HOST` on the same
 * payload instead, so the call is still judged; when even that cannot start, it exits 2 with a
 * message (every supported host blocks on exit 2). It never prints an answer it did not get.
 *
 * Plain C with no C++ runtime, linked statically, so that it starts in a fraction of a millisecond.
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
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAYLOAD (64u << 20)
#define MAX_ANSWER (16u << 20)

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads all of stdin into a growing buffer; NULL (and *too_large) past MAX_PAYLOAD. */
static char* read_stdin(size_t* size, int* too_large) {
  size_t cap = 65536, n = 0;
  char* buf = malloc(cap);
  if (buf == NULL) return NULL;
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_PAYLOAD + 1) {
        *too_large = 1;
        free(buf);
        return NULL;
      }
      cap *= 2;
      char* bigger = realloc(buf, cap);
      if (bigger == NULL) {
        free(buf);
        return NULL;
      }
      buf = bigger;
    }
    ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      free(buf);
      return NULL;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  *size = n;
  return buf;
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

static void socket_path(char* out, size_t size) {
  const char* e = getenv("DOBERMAN_SOCKET");
  const char* x = getenv("XDG_RUNTIME_DIR");
  if (e != NULL && *e != '\0') {
    snprintf(out, size, "%s", e);
  } else if (x != NULL && *x == '/') {
    snprintf(out, size, "%s/doberman/guard.sock", x);
  } else {
    snprintf(out, size, "/tmp/doberman-%u/guard.sock", (unsigned)geteuid());
  }
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
  char path[PATH_MAX];
  socket_path(path, sizeof path);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof addr.sun_path) return -1;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  const long deadline = now_ms() + timeout_ms;
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0 &&
      (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) != 0)) {
    close(fd);
    return -1;
  }
  char header[64];
  int hn = snprintf(header, sizeof header, "DOBERMAN/1 HOOK %s\n", host);
  const char* parts[2] = {header, payload};
  size_t sizes[2] = {(size_t)hn, size};
  for (int i = 0; i < 2; ++i) {
    const char* p = parts[i];
    size_t n = sizes[i];
    while (n > 0) {
      ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
      if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (wait_fd(fd, POLLOUT, deadline) != 0) goto fail;
        continue;
      }
      if (w <= 0) goto fail;
      p += w;
      n -= (size_t)w;
    }
  }
  shutdown(fd, SHUT_WR);
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap);
  if (buf == NULL) goto fail;
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_ANSWER) goto fail_buf;
      cap *= 2;
      char* bigger = realloc(buf, cap);
      if (bigger == NULL) goto fail_buf;
      buf = bigger;
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
  int code = -1;
  unsigned long out_len = 0, err_len = 0;
  if (nl == NULL || nl - buf > 60) {
    free(buf);
    return -1;
  }
  *nl = '\0';
  if (sscanf(buf, "DOBERMAN/1 %d %lu %lu", &code, &out_len, &err_len) != 3 || code < 0 ||
      code > 255) {
    free(buf);
    return -1;
  }
  size_t body = (size_t)(n - (size_t)(nl + 1 - buf));
  if (out_len + err_len != body) {
    free(buf);
    return -1;
  }
  const char* out = nl + 1;
  if (write_all(STDOUT_FILENO, out, out_len) != 0) {
    free(buf);
    _exit(2); /* half an answer may be out: refuse rather than fall back and answer twice */
  }
  write_all(STDERR_FILENO, out + out_len, err_len);
  free(buf);
  return code;
fail_buf:
  free(buf);
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
