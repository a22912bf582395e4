// Memory for pack loading, populated in one system call. A hook process loads about a megabyte of
// databases once and exits; taking each of those pages by a separate page fault (first the read
// buffer, then Hyperscan's copy) was a large part of its system time. Blocks come from malloc, so a
// process that loads again reuses pages it already has and pays nothing for them.
#ifndef DOBERMAN_RUNTIME_PAGE_MEMORY_H_
#define DOBERMAN_RUNTIME_PAGE_MEMORY_H_

#include <cstddef>
#include <cstdint>

namespace doberman::internal {

// Populates the whole pages inside [data, data + size) for writing, in one system call, when the
// range is large enough to be worth it (a read buffer about to be filled, say).
void PopulateForWriting(uint8_t* data, size_t size);

class PageMemory {
 public:
  PageMemory() = default;
  // At least `size` bytes, 64-byte aligned (more than Hyperscan asks of a database); on failure the
  // object stays empty and data() is null. size 0 allocates nothing.
  explicit PageMemory(size_t size);
  PageMemory(PageMemory&& other) noexcept;
  PageMemory& operator=(PageMemory&& other) noexcept;
  PageMemory(const PageMemory&) = delete;
  PageMemory& operator=(const PageMemory&) = delete;
  ~PageMemory();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_PAGE_MEMORY_H_
