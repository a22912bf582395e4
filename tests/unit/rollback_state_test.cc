// The rollback record under concurrency: many loaders recording different pack names at once must
// all be kept (no lost update between read and rename), the highest revision per name wins, and an
// older revision is refused afterwards. Threads stand in for hook processes: each call opens its
// own lock file descriptor, so flock serializes them exactly as it does processes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rollback_state.h"

namespace {

// A fresh directory under /tmp, removed with everything in it when the test ends.
struct ScratchDir {
  ScratchDir() {
    char tmpl[] = "/tmp/doberman-state-XXXXXX";
    const char* d = mkdtemp(tmpl);
    path = d ? d : "";
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path;
};

std::map<std::string, uint64_t> ReadBack(const std::string& path) {
  std::map<std::string, uint64_t> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name;
    uint64_t rev = 0;
    ss >> name >> rev;
    out[name] = rev;
  }
  return out;
}

TEST(RollbackState, ConcurrentRecordsAreNeverLost) {
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  ASSERT_FALSE(dir.empty());
  for (int trial = 0; trial < 5; ++trial) {
    const std::string path = dir + "/revisions" + std::to_string(trial);
    constexpr int kThreads = 16;
    // A loader that waited out the lock's patience refuses (DOBERMAN_E_STATE, fail closed) and the
    // next call tries again; on a loaded machine (fsync under the lock, 80 writers in a row) that
    // happens, so each record is retried. What must never happen is another answer, or a record
    // that was accepted and is missing afterwards.
    constexpr int kAttempts = 20;
    std::atomic<int> wrong_answers{0};
    std::atomic<int> never_recorded{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) {
        }
        for (uint64_t rev = 1; rev <= 5; ++rev) {
          doberman_status s = DOBERMAN_E_STATE;
          for (int attempt = 0; attempt < kAttempts && s == DOBERMAN_E_STATE; ++attempt) {
            std::string error;
            s = doberman::internal::CheckAndRecordRevision(path.c_str(), "pack" + std::to_string(t),
                                                           rev, &error);
          }
          if (s == DOBERMAN_E_STATE) ++never_recorded;
          if (s != DOBERMAN_OK && s != DOBERMAN_E_STATE) ++wrong_answers;
        }
      });
    }
    go = true;
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(wrong_answers.load(), 0) << "trial " << trial;
    EXPECT_EQ(never_recorded.load(), 0) << "trial " << trial;
    const auto state = ReadBack(path);
    EXPECT_EQ(state.size(), static_cast<size_t>(kThreads)) << "trial " << trial;
    for (const auto& [name, rev] : state) EXPECT_EQ(rev, 5u) << name;
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  std::string error;
  EXPECT_EQ(
      doberman::internal::CheckAndRecordRevision((dir + "/revisions0").c_str(), "pack3", 4, &error),
      DOBERMAN_E_ROLLBACK);
  EXPECT_NE(error.find("rollback"), std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}

TEST(RollbackState, CorruptOrNonRegularStateFailsClosed) {
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  const std::string path = dir + "/revisions";
  std::ofstream(path) << "this is not a state line at all\n";
  std::string error;
  EXPECT_EQ(doberman::internal::CheckAndRecordRevision(path.c_str(), "p", 1, &error),
            DOBERMAN_E_STATE);
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(doberman::internal::CheckAndRecordRevision(fifo.c_str(), "p", 1, &error),
            DOBERMAN_E_STATE);
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
