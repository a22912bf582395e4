// OpenBlobs: largest blobs first, greedily into two bins (this thread and one helper). Below
// kParallelBytes the thread start-up (tens of microseconds) is not worth it.
#include "blob_loader.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "envelope.h"

namespace doberman::internal {
namespace {

constexpr size_t kParallelBytes = 256u << 10;

// One thread's reusable read buffer (its first job is its largest, so it is mapped once).
struct ReadBuffer {
  PageMemory memory;
  uint8_t* Reserve(size_t n) {
    if (n > memory.size()) memory = PageMemory(n);
    return memory.data();
  }
};

// Deserializes into populated pages of our own (hs_deserialize_database would malloc and then
// fault them in one by one); the job owns the memory.
hs_error_t Deserialize(std::span<const uint8_t> blob, BlobJob& job) {
  const char* bytes = reinterpret_cast<const char*>(blob.data());
  size_t size = 0;
  hs_error_t e = hs_serialized_database_size(bytes, blob.size(), &size);
  if (e != HS_SUCCESS) return e;
  PageMemory memory(size);
  if (memory.data() == nullptr) return HS_NOMEM;
  auto* db = reinterpret_cast<hs_database_t*>(memory.data());
  e = hs_deserialize_database_at(bytes, blob.size(), db);
  if (e != HS_SUCCESS) return e;
  job.memory = std::move(memory);
  job.db = db;
  return HS_SUCCESS;
}

void Open(BlobJob& job, const BlobFetch& fetch, ReadBuffer* buffer) {
  std::span<const uint8_t> blob = job.blob;
  if (fetch) {
    uint8_t* dest = buffer->Reserve(blob.size() + 1);
    if (dest == nullptr || !fetch(job.offset, blob.size(), dest)) {
      job.fetched = false;
      return;
    }
    blob = {dest, blob.size()};
  }
  job.digest_ok = BlobMatchesDigest(blob, job.digest);
  if (!job.digest_ok) return;
  job.error = Deserialize(blob, job);
}

void OpenAll(std::span<BlobJob> jobs, const std::vector<size_t>& which, const BlobFetch& fetch) {
  ReadBuffer buffer;
  for (size_t i : which) Open(jobs[i], fetch, &buffer);
}

// The CPUs the helper may run on: those this process may use, except the one this thread is on.
// Left to the scheduler, the new thread was often queued on its parent's CPU while the other one
// idled (an idle CPU is only pulled in by a later balancing tick), and the two halves ran one after
// the other: in a hook process, 2.4-2.9 ms for a Bash call's databases instead of about half that.
// False when there is no other CPU: then a second thread would only add its start-up.
bool OtherCpus(cpu_set_t* set) {
  CPU_ZERO(set);
  if (sched_getaffinity(0, sizeof *set, set) != 0) return false;
  const int here = sched_getcpu();
  if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, set);
  return CPU_COUNT(set) > 0;
}

struct HelperWork {
  std::span<BlobJob> jobs;
  const std::vector<size_t>* which;
  const BlobFetch* fetch;
};

void* RunHelper(void* arg) {
  const auto* w = static_cast<const HelperWork*>(arg);
  OpenAll(w->jobs, *w->which, *w->fetch);
  return nullptr;
}

}  // namespace

void OpenBlobs(std::span<BlobJob> jobs, const BlobFetch& fetch) {
  size_t total = 0;
  for (const BlobJob& j : jobs) total += j.blob.size();
  // Largest first, so that a thread's read buffer is allocated once.
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return jobs[a].blob.size() > jobs[b].blob.size(); });
  cpu_set_t helper_cpus;
  if (jobs.size() < 2 || total < kParallelBytes || !OtherCpus(&helper_cpus)) {
    OpenAll(jobs, order, fetch);
    return;
  }
  std::vector<size_t> mine, theirs;
  size_t mine_bytes = 0, their_bytes = 0;
  for (size_t i : order) {
    if (mine_bytes <= their_bytes) {
      mine.push_back(i);
      mine_bytes += jobs[i].blob.size();
    } else {
      theirs.push_back(i);
      their_bytes += jobs[i].blob.size();
    }
  }
  HelperWork work{jobs, &theirs, &fetch};
  pthread_t helper;
  pthread_attr_t attr;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setaffinity_np(&attr, sizeof helper_cpus, &helper_cpus) == 0 &&
              pthread_create(&helper, &attr, RunHelper, &work) == 0;
    pthread_attr_destroy(&attr);
  }
  OpenAll(jobs, mine, fetch);
  if (started) {
    pthread_join(helper, nullptr);
  } else {
    OpenAll(jobs, theirs, fetch);  // no thread to be had: do it here
  }
}

}  // namespace doberman::internal
