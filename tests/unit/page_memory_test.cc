// PageMemory: alignment, ownership moves, and that a large block's pages are resident when the
// constructor returns (the point of it: one populate call instead of a fault per page).
#include "page_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <utility>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace doberman::internal {
namespace {

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// Whole pages of [data, data+size) that are not resident.
size_t MissingPages(const uint8_t* data, size_t size) {
  const size_t page = PageSize();
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = (begin + size) & ~(page - 1);
  std::vector<unsigned char> resident((last - first) / page);
  if (mincore(reinterpret_cast<void*>(first), last - first, resident.data()) != 0) return SIZE_MAX;
  size_t missing = 0;
  for (unsigned char r : resident) missing += (r & 1) == 0;
  return missing;
}

bool KernelPopulates() {
  const size_t size = 4 * PageSize();
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = madvise(p, size, MADV_POPULATE_WRITE) == 0;
  munmap(p, size);
  return ok;
}

TEST(PageMemory, EmptyWhenSizeIsZero) {
  PageMemory m(0);
  EXPECT_EQ(m.data(), nullptr);
  EXPECT_EQ(m.size(), 0u);
}

TEST(PageMemory, AlignedAndWritableToTheLastByte) {
  for (size_t size : {size_t{1}, size_t{63}, size_t{4097}, size_t{300000}}) {
    PageMemory m(size);
    ASSERT_NE(m.data(), nullptr);
    EXPECT_EQ(m.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % 64, 0u);
    std::memset(m.data(), 0xab, size);
    EXPECT_EQ(m.data()[size - 1], 0xab);
  }
}

TEST(PageMemory, MovesOwnership) {
  PageMemory a(1000);
  uint8_t* p = a.data();
  PageMemory b(std::move(a));
  EXPECT_EQ(a.data(),
            nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the test
  EXPECT_EQ(b.data(), p);
  PageMemory c(10);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 1000u);
}

TEST(PageMemory, LargeBlocksArriveResident) {
  if (!KernelPopulates()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";
  // A fresh mapping (past malloc's mmap threshold), so nothing is resident unless populated.
  PageMemory m(8u << 20);
  ASSERT_NE(m.data(), nullptr);
  EXPECT_EQ(MissingPages(m.data(), m.size()), 0u);
}

}  // namespace
}  // namespace doberman::internal
