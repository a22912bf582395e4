/* Load on the warm service: N threads, each sending the same hook payload over and over for a fixed
 * time, one connection per request as doberman-hook does; prints requests/s and the p50/p99 latency
 * of a request (connect to last answer byte).
 *
 *   doberman-service-load SOCKET PAYLOAD.json THREADS SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char* g_socket;
static char* g_payload;
static size_t g_size;
static double g_seconds;

struct Result {
  double* ms;
  size_t count, cap;
  size_t failures;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int one_request(void) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", g_socket);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  const char header[] = "DOBERMAN/1 HOOK claude-code\n";
  if (send(fd, header, sizeof header - 1, MSG_NOSIGNAL) < 0 ||
      send(fd, g_payload, g_size, MSG_NOSIGNAL) < 0) {
    close(fd);
    return -1;
  }
  shutdown(fd, SHUT_WR);
  char buf[65536];
  size_t got = 0;
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) got += (size_t)n;
  close(fd);
  return got > 0 && strncmp(buf, "DOBERMAN/1 ", 11) == 0 ? 0 : -1;
}

static void* run(void* arg) {
  struct Result* r = arg;
  const double end = now_s() + g_seconds;
  while (now_s() < end) {
    const double t0 = now_s();
    if (one_request() != 0) {
      r->failures++;
      continue;
    }
    if (r->count == r->cap) {
      r->cap = r->cap ? r->cap * 2 : 1024;
      r->ms = realloc(r->ms, r->cap * sizeof(double));
    }
    r->ms[r->count++] = (now_s() - t0) * 1000.0;
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: doberman-service-load SOCKET PAYLOAD.json THREADS SECONDS\n");
    return 2;
  }
  g_socket = argv[1];
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL) return 2;
  g_payload = malloc(1 << 20);
  g_size = fread(g_payload, 1, 1 << 20, f);
  fclose(f);
  const int threads = atoi(argv[3]);
  g_seconds = atof(argv[4]);
  pthread_t* t = calloc((size_t)threads, sizeof *t);
  struct Result* r = calloc((size_t)threads, sizeof *r);
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, run, &r[i]);
  size_t total = 0, failures = 0;
  for (int i = 0; i < threads; ++i) {
    pthread_join(t[i], NULL);
    total += r[i].count;
    failures += r[i].failures;
  }
  double* all = malloc((total ? total : 1) * sizeof(double));
  size_t k = 0;
  for (int i = 0; i < threads; ++i)
    for (size_t j = 0; j < r[i].count; ++j) all[k++] = r[i].ms[j];
  qsort(all, total, sizeof(double), cmp);
  printf(
      "{\"threads\": %d, \"requests\": %zu, \"failures\": %zu, \"per_second\": %.0f, "
      "\"p50_ms\": %.3f, \"p99_ms\": %.3f}\n",
      threads, total, failures, (double)total / g_seconds, total ? all[total / 2] : 0.0,
      total ? all[(size_t)((double)total * 0.99)] : 0.0);
  return failures == 0 ? 0 : 1;
}
