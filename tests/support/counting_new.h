// Heap allocations counted while a test asks: the decision's hot path promises none once warm.
// Link tests/support/counting_new.cc into the test binary; it replaces the global operator new.
#ifndef DOBERMAN_TESTS_SUPPORT_COUNTING_NEW_H_
#define DOBERMAN_TESTS_SUPPORT_COUNTING_NEW_H_

namespace doberman::test {

void StartCountingAllocations();
long StopCountingAllocations();  // the allocations since the start

}  // namespace doberman::test

#endif  // DOBERMAN_TESTS_SUPPORT_COUNTING_NEW_H_
