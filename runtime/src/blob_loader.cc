// OpenBlobs: largest blobs first, greedily into two bins (this thread and one helper). Below
// kParallelBytes the thread start-up (tens of microseconds) is not worth it.
#include "blob_loader.h"

#include <algorithm>
#include <memory>
#include <new>
#include <numeric>
#include <system_error>
#include <thread>
#include <vector>

#include "envelope.h"

namespace doberman::internal {
namespace {

constexpr size_t kParallelBytes = 256u << 10;

// One thread's reusable read buffer; not zero-filled (every byte used is read first).
struct ReadBuffer {
  std::unique_ptr<uint8_t[]> bytes;
  size_t capacity = 0;
  uint8_t* Reserve(size_t n) {
    if (n > capacity) {
      bytes.reset(new uint8_t[n]);
      capacity = n;
    }
    return bytes.get();
  }
};

void Open(BlobJob& job, const BlobFetch& fetch, ReadBuffer* buffer) {
  std::span<const uint8_t> blob = job.blob;
  if (fetch) {
    uint8_t* dest = nullptr;
    try {
      dest = buffer->Reserve(blob.size() + 1);
    } catch (const std::bad_alloc&) {
      job.fetched = false;
      return;
    }
    if (!fetch(job.offset, blob.size(), dest)) {
      job.fetched = false;
      return;
    }
    blob = {dest, blob.size()};
  }
  job.digest_ok = BlobMatchesDigest(blob, job.digest);
  if (!job.digest_ok) return;
  job.error =
      hs_deserialize_database(reinterpret_cast<const char*>(blob.data()), blob.size(), &job.db);
}

void OpenAll(std::span<BlobJob> jobs, const std::vector<size_t>& which, const BlobFetch& fetch) {
  ReadBuffer buffer;
  for (size_t i : which) Open(jobs[i], fetch, &buffer);
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
  if (jobs.size() < 2 || total < kParallelBytes) {
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
  std::thread helper;
  try {
    helper = std::thread([jobs, &theirs, &fetch] { OpenAll(jobs, theirs, fetch); });
  } catch (const std::system_error&) {
    OpenAll(jobs, theirs, fetch);  // no thread to be had: do it here
  }
  OpenAll(jobs, mine, fetch);
  if (helper.joinable()) helper.join();
}

}  // namespace doberman::internal
