// The scratch sized while loading (one prototype per loading thread) must suffice for every
// database scanned with it: Hyperscan refuses a scan with a scratch too small for its database, and
// the decider would then fail closed on every call. Checked on the default pack, loaded on two
// threads when this process may use two CPUs, and on one thread otherwise.
#include <gtest/gtest.h>
#include <sched.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "decider.h"
#include "default_test_pack.h"
#include "key_file.h"
#include "pack.h"

namespace doberman::internal {
namespace {

size_t ScratchBytes(const hs_scratch_t* s) {
  size_t n = 0;
  EXPECT_EQ(hs_scratch_size(s, &n), HS_SUCCESS);
  return n;
}

TEST(ScratchPrototypes, EachDatabaseFitsTheScratchOfItsSlot) {
  std::string error;
  const std::unique_ptr<Pack> pack = LoadDefaultTestPack(&error);
  ASSERT_NE(pack, nullptr) << error;
  ASSERT_GT(pack->databases.size(), 1u);

  std::vector<size_t> per_slot(kScratchSlots, 0);
  for (const auto& db : pack->databases) {
    ASSERT_LT(db->scratch_slot, kScratchSlots);
    const hs_scratch_t* prototype = pack->scratch_prototypes[db->scratch_slot].get();
    ASSERT_NE(prototype, nullptr) << "a database's slot has no scratch";
    ++per_slot[db->scratch_slot];
    // Sizing a copy for this database again must not have to grow it.
    hs_scratch_t* copy = nullptr;
    ASSERT_EQ(hs_clone_scratch(prototype, &copy), HS_SUCCESS);
    const size_t before = ScratchBytes(copy);
    ASSERT_EQ(hs_alloc_scratch(db->db, &copy), HS_SUCCESS);
    EXPECT_EQ(ScratchBytes(copy), before) << "the prototype was too small for this database";
    hs_free_scratch(copy);
  }
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  if (CPU_COUNT(&cpus) >= 2) {
    // The default pack's databases are well past the size at which loading uses a helper thread
    // (this would also fail if the thread could not be started: then everything is in slot 0).
    EXPECT_GT(per_slot[0], 0u);
    EXPECT_GT(per_slot[1], 0u);
  } else {
    EXPECT_EQ(per_slot[1], 0u);
  }

  // And a scratch made from the prototypes decides.
  Scratch scratch(*pack);
  ASSERT_EQ(CloneHsScratch(scratch), DOBERMAN_OK);
  const char* command = "rm -rf /";
  doberman_call call{};
  call.struct_size = sizeof call;
  call.tool = {"Bash", 4};
  call.command = {command, 8};
  doberman_result result{};
  ASSERT_EQ(Decide(scratch, call, &result), DOBERMAN_OK);
  EXPECT_EQ(result.verdict, DOBERMAN_BLOCK);
}

}  // namespace
}  // namespace doberman::internal
