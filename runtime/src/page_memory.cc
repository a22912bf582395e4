// PageMemory: aligned_alloc, then madvise(MADV_POPULATE_WRITE) over the whole pages inside the
// block (Linux 5.14 and later; pages already present cost a page-table walk). Where the kernel does
// not know the advice the pages simply fault in as they are touched.
#include "page_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace doberman::internal {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kPopulateBytes = 64u << 10;  // below this, a few faults cost less than the call

void PopulatePages(uint8_t* data, size_t size) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = (begin + size) & ~(page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
}

}  // namespace

void PopulateForWriting(uint8_t* data, size_t size) {
  if (size >= kPopulateBytes) PopulatePages(data, size);
}

PageMemory::PageMemory(size_t size) {
  if (size == 0) return;
  const size_t rounded = (size + kAlignment - 1) & ~(kAlignment - 1);
  data_ = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded));
  if (data_ == nullptr) return;
  size_ = size;
  PopulateForWriting(data_, size);
}

PageMemory::PageMemory(PageMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

PageMemory& PageMemory::operator=(PageMemory&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

PageMemory::~PageMemory() { Release(); }

void PageMemory::Release() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace doberman::internal
