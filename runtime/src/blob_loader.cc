// OpenBlobs: largest blobs first, greedily into two bins (this thread and one helper). Below
// kParallelBytes the thread start-up (tens of microseconds) is not worth it.
#include "blob_loader.h"

#include <algorithm>
#include <numeric>
#include <system_error>
#include <thread>
#include <vector>

#include "envelope.h"

namespace doberman::internal {
namespace {

constexpr size_t kParallelBytes = 256u << 10;

void Open(BlobJob& job, const std::function<bool(uint64_t, uint64_t)>& fetch) {
  if (fetch && !fetch(job.offset, job.blob.size())) {
    job.fetched = false;
    return;
  }
  job.digest_ok = BlobMatchesDigest(job.blob, job.digest);
  if (!job.digest_ok) return;
  job.error = hs_deserialize_database(reinterpret_cast<const char*>(job.blob.data()),
                                      job.blob.size(), &job.db);
}

}  // namespace

void OpenBlobs(std::span<BlobJob> jobs, const std::function<bool(uint64_t, uint64_t)>& fetch) {
  size_t total = 0;
  for (const BlobJob& j : jobs) total += j.blob.size();
  if (jobs.size() < 2 || total < kParallelBytes) {
    for (BlobJob& j : jobs) Open(j, fetch);
    return;
  }
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return jobs[a].blob.size() > jobs[b].blob.size(); });
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
  std::thread helper;
  try {
    helper = std::thread([&jobs, &theirs, &fetch] {
      for (size_t i : theirs) Open(jobs[i], fetch);
    });
  } catch (const std::system_error&) {
    for (size_t i : theirs) Open(jobs[i], fetch);  // no thread to be had: do it here
  }
  for (size_t i : mine) Open(jobs[i], fetch);
  if (helper.joinable()) helper.join();
}

}  // namespace doberman::internal
