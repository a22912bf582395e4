// Fuzz target for the journals a one-shot process appends to without the store: the decision log's
// (runtime/state/log_journal.h) and the style baseline's (style_journal.h). First byte even: the
// rest is taken as a journal file as found on disk (the style journal's when bit 1 is set); reading
// it must not crash, and everything it returns must come from bytes of the file. First byte odd:
// the rest, split at newlines, is appended row by row; the journal must then read back exactly
// those rows, in order, undamaged.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "log_journal.h"
#include "state_dir.h"
#include "style_journal.h"

namespace {

using doberman::state::AppendToJournal;
using doberman::state::JournalDigest;
using doberman::state::JournalFold;
using doberman::state::LogRow;
using doberman::state::StateDir;

void Check(bool ok) {
  if (!ok) std::abort();
}

std::string g_root;  // the scratch directory, removed at exit

void RemoveScratch() {
  if (!g_root.empty()) std::system(("rm -rf '" + g_root + "'").c_str());
}

const StateDir& Dir() {
  static StateDir dir = [] {
    char tmpl[] = "/tmp/doberman-fuzz-journal.XXXXXX";
    Check(::mkdtemp(tmpl) != nullptr);
    g_root = tmpl;
    std::atexit(RemoveScratch);
    StateDir d;
    std::string error;
    Check(doberman::state::OpenStateDir(g_root + "/state", &d, &error));
    return d;
  }();
  return dir;
}

std::vector<LogRow> ReadBack(bool* damaged) {
  JournalFold fold;
  std::string error;
  Check(fold.Lock(Dir(), 1000, &error));
  std::vector<LogRow> rows;
  JournalDigest last{};
  if (fold.present()) Check(fold.Read(Dir().key, JournalDigest{}, &rows, damaged, &last, &error));
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = Dir().path + "/log.journal";
  ::unlink(path.c_str());
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 3) == 2) {
    size_t skipped = 0;
    const auto updates = doberman::state::ParseStyleJournal(Dir().key, rest, &skipped);
    Check(updates.size() * 72 + 8 <= rest.size() || updates.empty());
    Check(updates.size() + skipped <= rest.size() / 72 + 1);
    return 0;
  }
  if ((data[0] & 1) == 0) {
    FILE* f = std::fopen(path.c_str(), "wb");
    Check(f != nullptr);
    Check(std::fwrite(rest.data(), 1, rest.size(), f) == rest.size());
    std::fclose(f);
    bool damaged = false;
    for (const LogRow& r : ReadBack(&damaged)) Check(r.json.size() <= rest.size());
    return 0;
  }
  std::vector<std::string> texts;
  for (size_t at = 0; at <= rest.size() && texts.size() < 64;) {
    const size_t nl = rest.find('\n', at);
    const size_t end = nl == std::string::npos ? rest.size() : nl;
    texts.push_back(rest.substr(at, end - at));
    at = end + 1;
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    LogRow row;
    row.at_ms = static_cast<int64_t>(i) + 1;
    row.verdict = static_cast<int>(i % 3);
    row.json = texts[i];
    int64_t after = 0;
    std::string error;
    Check(AppendToJournal(Dir(), row, 1000, &after, &error));
  }
  bool damaged = true;
  const std::vector<LogRow> rows = ReadBack(&damaged);
  Check(!damaged);
  Check(rows.size() == texts.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    Check(rows[i].json == texts[i]);
    Check(rows[i].at_ms == static_cast<int64_t>(i) + 1);
    Check(rows[i].verdict == static_cast<int>(i % 3));
  }
  return 0;
}
