// OpenBlobs: largest blobs first, greedily into two bins (this thread and one helper). Below
// kParallelBytes the thread start-up (tens of microseconds) is not worth it.
#include "blob_loader.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include "envelope.h"
#include "lz4_block.h"
#include "scratch_record.h"

namespace doberman::internal {
namespace {

constexpr size_t kParallelBytes = 256u << 10;

// One thread's reusable buffer (its first job is its largest, so it is mapped once).
struct Buffer {
  PageMemory memory;
  uint8_t* Reserve(size_t n) {
    if (n > memory.size()) memory = PageMemory(n);
    return memory.data();
  }
};

struct ThreadBuffers {
  Buffer read;     // the stored blob, from the file
  Buffer decoded;  // Hyperscan's serialized database, decoded from the stored blob
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

// From the blob; a database decoded from its blob has its image written to `images`.
void Open(BlobJob& job, const BlobFetch& fetch, ThreadBuffers* buffers, const ImageCache* images) {
  std::span<const uint8_t> blob = job.blob;
  if (fetch) {
    uint8_t* dest = buffers->read.Reserve(blob.size() + 1);
    if (dest == nullptr || !fetch(job.offset, blob.size(), dest)) {
      job.fetched = false;
      return;
    }
    blob = {dest, blob.size()};
  }
  job.digest_ok = BlobMatchesDigest(blob, job.digest);
  if (!job.digest_ok) return;
  if (job.decoded_size != 0) {
    uint8_t* dest = buffers->decoded.Reserve(job.decoded_size);
    if (dest == nullptr) {
      job.error = HS_NOMEM;
      return;
    }
    const std::span<uint8_t> raw{dest, job.decoded_size};
    if (!DecodeLz4Block(blob, raw)) {
      job.undecodable = true;
      return;
    }
    blob = raw;
  }
  job.error = Deserialize(blob, job);
  if (job.error == HS_SUCCESS && images != nullptr)
    images->Store(job.digest, job.db, job.memory.size());
}

// Opens the jobs in `which` and sizes `*scratch` (slot `slot`) for each database opened.
void OpenAll(std::span<BlobJob> jobs, const std::vector<size_t>& which, const BlobFetch& fetch,
             const ImageCache* images, uint8_t slot, hs_scratch_t** scratch) {
  ThreadBuffers buffers;
  for (size_t i : which) {
    BlobJob& job = jobs[i];
    Open(job, fetch, &buffers, images);
    if (job.error != HS_SUCCESS) continue;
    job.error = hs_alloc_scratch(job.db, scratch);
    job.scratch_slot = slot;
  }
}

// Maps the images `images` has and sizes slot 0's scratch for them, on this thread (a mapping
// costs less than starting a thread). A scratch record for exactly these images (scratch_record.h)
// gives the scratch as a clone; without one it is sized per image by hs_alloc_scratch, whose
// checksum pass refuses a damaged image, and the record is written for the next process. Returns
// the jobs still to open.
std::vector<size_t> MapImages(std::span<BlobJob> jobs, const ImageCache* images,
                              hs_scratch_t** scratch, bool* cloned) {
  std::vector<size_t> rest, mapped;
  for (size_t i = 0; i < jobs.size(); ++i) {
    BlobJob& job = jobs[i];
    if (images != nullptr) {
      // The serialized size the signed tables give (the stored size for an uncompressed blob);
      // deserializing adds Hyperscan's header and alignment padding, well under a page.
      const uint64_t serialized = job.decoded_size != 0 ? job.decoded_size : job.blob.size();
      job.image = images->Find(job.digest, serialized + 4096);
    }
    (job.image.db() != nullptr ? mapped : rest).push_back(i);
  }
  if (mapped.empty()) return rest;
  std::vector<std::span<const uint8_t>> digests;
  for (size_t i : mapped) digests.push_back(jobs[i].digest);
  const ScratchRecordKey key = KeyOfImages(digests);
  const std::string record = ScratchRecordFileName(key);
  const int64_t now = std::time(nullptr);
  *scratch = CloneFromScratchRecord(images->ReadRecord(record, ScratchRecordBytes()), key, now);
  *cloned = *scratch != nullptr;
  bool all_sized = true;
  for (size_t i : mapped) {
    BlobJob& job = jobs[i];
    if (*cloned || hs_alloc_scratch(job.image.db(), scratch) == HS_SUCCESS) {
      job.db = job.image.db();
      job.digest_ok = true;  // the image was found by the signed digest
      job.error = HS_SUCCESS;
      job.scratch_slot = 0;
      continue;
    }
    // Hyperscan refused the image (its checksum, platform or alignment): drop it; the database is
    // opened from its blob as if there had been none.
    images->Remove(job.digest);
    job.image = MappedImage();
    rest.push_back(i);
    all_sized = false;
  }
  if (!*cloned && all_sized) images->StoreRecord(record, EncodeScratchRecord(key, *scratch, now));
  return rest;
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
  const ImageCache* images;
  hs_scratch_t** scratch;
};

void* RunHelper(void* arg) {
  const auto* w = static_cast<const HelperWork*>(arg);
  OpenAll(w->jobs, *w->which, *w->fetch, w->images, 1, w->scratch);
  return nullptr;
}

}  // namespace

bool OpenBlobs(std::span<BlobJob> jobs, const BlobFetch& fetch, const ImageCache* images,
               ScratchPrototypes* prototypes) {
  *prototypes = {nullptr, nullptr};
  bool cloned = false;
  const std::vector<size_t> rest = MapImages(jobs, images, &(*prototypes)[0], &cloned);
  // A job's work grows with the database's size: decoding and Hyperscan's copy and checksum pass
  // over every byte of it, hashing over the (smaller) stored blob.
  auto work_of = [&](size_t i) {
    return jobs[i].decoded_size != 0 ? jobs[i].decoded_size : jobs[i].blob.size();
  };
  size_t total = 0;
  for (size_t i : rest) total += work_of(i);
  // Largest first, so that a thread's buffers are allocated once.
  std::vector<size_t> order = rest;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return work_of(a) > work_of(b); });
  cpu_set_t helper_cpus;
  if (order.size() < 2 || total < kParallelBytes || !OtherCpus(&helper_cpus)) {
    OpenAll(jobs, order, fetch, images, 0, &(*prototypes)[0]);
    return cloned;
  }
  std::vector<size_t> mine, theirs;
  size_t mine_bytes = 0, their_bytes = 0;
  for (size_t i : order) {
    if (mine_bytes <= their_bytes) {
      mine.push_back(i);
      mine_bytes += work_of(i);
    } else {
      theirs.push_back(i);
      their_bytes += work_of(i);
    }
  }
  HelperWork work{jobs, &theirs, &fetch, images, &(*prototypes)[1]};
  pthread_t helper;
  pthread_attr_t attr;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setaffinity_np(&attr, sizeof helper_cpus, &helper_cpus) == 0 &&
              pthread_create(&helper, &attr, RunHelper, &work) == 0;
    pthread_attr_destroy(&attr);
  }
  OpenAll(jobs, mine, fetch, images, 0, &(*prototypes)[0]);
  if (started) {
    pthread_join(helper, nullptr);
  } else {
    OpenAll(jobs, theirs, fetch, images, 0, &(*prototypes)[0]);  // no thread to be had: do it here
  }
  return cloned;
}

}  // namespace doberman::internal
