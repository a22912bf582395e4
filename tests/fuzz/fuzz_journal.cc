// Fuzz target for the journals a one-shot process appends to without the store: the decision log's
// (runtime/state/log_journal.h) and the style baseline's (style_journal.h). First byte even: the
// rest is taken as a journal file as found on disk (the style journal's when bit 1 is set); reading
// it must not crash, and everything it returns must come from bytes of the file; a style update
// appended to it must then read back as its last update, after those it held. First byte 6 mod 8:
// the rest is a style base (104-byte people) written by a fold, and a person's baseline read back
// must be exactly what was written, then exactly that plus an appended update. First byte odd:
// the rest, split at newlines, is appended row by row; the journal must then read back exactly
// those rows, in order, undamaged.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

namespace style = doberman::state;

void Write(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  Check(f != nullptr);
  Check(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
}

bool Same(const style::StyleBaseline& a, const style::StyleBaseline& b) {
  return a.turns == b.turns &&
         std::memcmp(a.mean.data(), b.mean.data(), sizeof(double) * a.mean.size()) == 0 &&
         std::memcmp(a.m2.data(), b.m2.data(), sizeof(double) * a.m2.size()) == 0;
}

void StyleAsFound(const std::string& bytes) {
  const std::string path = Dir().path + "/style.journal";
  const style::StyleJournalContents j = style::ParseStyleJournal(Dir().key, bytes);
  Check(j.updates.size() * 72 + 12 <= bytes.size() || j.updates.empty());
  Check(j.updates.size() + j.skipped <= bytes.size() / 72 + 2);
  Check(j.base.size() <= style::kMaxStyleBaseEntities);
  Write(path, bytes);
  style::StyleBaseline b;
  std::string error;
  (void)style::ReadStyleBaseline(Dir(), 1, style::Fingerprint{}, 1000, &b, &error);
  const style::StyleUpdate u{style::Fingerprint{7}, {1, 2, 3, 4, 5}};
  if (!style::AppendStyleUpdate(Dir(), u, 1000, &error)) {
    Check(j.updates.size() + j.skipped >= style::kMaxStyleUpdates);  // only a full one refuses
    return;
  }
  std::string now;
  FILE* f = std::fopen(path.c_str(), "rb");
  Check(f != nullptr);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) now.append(buf, n);
  std::fclose(f);
  const style::StyleJournalContents after = style::ParseStyleJournal(Dir().key, now);
  Check(!after.updates.empty() && after.updates.back().entity == u.entity);
  // What it held is still there, unless it was not a journal of ours (started again).
  Check(after.updates.size() == j.updates.size() + 1 || after.updates.size() == 1);
}

void StyleBase(const std::string& bytes) {
  const std::string path = Dir().path + "/style.journal";
  ::unlink(path.c_str());
  std::vector<style::EntityBaseline> base;
  constexpr size_t kEntry = 16 + 8 + 80;
  for (size_t at = 0; at + kEntry <= bytes.size(); at += kEntry) {
    style::EntityBaseline e;
    std::memcpy(e.entity.data(), bytes.data() + at, 16);
    std::memcpy(&e.baseline.turns, bytes.data() + at + 16, 8);
    std::memcpy(e.baseline.mean.data(), bytes.data() + at + 24, 40);
    std::memcpy(e.baseline.m2.data(), bytes.data() + at + 64, 40);
    if (e.baseline.turns < 0) e.baseline.turns = 0;
    for (double& x : e.baseline.mean) x = std::isfinite(x) ? x : 0;
    for (double& x : e.baseline.m2) x = std::isfinite(x) ? x : 0;
    base.push_back(e);
  }
  size_t skipped = 0;
  std::string error;
  Check(style::FoldStyleJournal(
      Dir(), 42, 1000,
      [&](const std::vector<style::StyleUpdate>& updates, std::vector<style::EntityBaseline>* out) {
        Check(updates.empty());
        *out = base;
        return true;
      },
      &skipped, &error));
  const style::Fingerprint who = base.empty() ? style::Fingerprint{} : base.back().entity;
  style::StyleBaseline want;  // the last entry for an entity named twice
  for (const auto& e : base) {
    if (e.entity == who) want = e.baseline;
  }
  style::StyleBaseline got;
  const bool read = style::ReadStyleBaseline(Dir(), 42, who, 1000, &got, &error);
  Check(read == (base.size() <= style::kMaxStyleBaseEntities));
  Check(!style::ReadStyleBaseline(Dir(), 43, who, 1000, &got, &error));  // another database
  if (!read) return;
  Check(style::ReadStyleBaseline(Dir(), 42, who, 1000, &got, &error));
  Check(Same(got, want));
  const style::StyleUpdate u{who, {1, 2, 3, 4, 5}};
  Check(style::AppendStyleUpdate(Dir(), u, 1000, &error));
  want.Add(u.features);
  Check(style::ReadStyleBaseline(Dir(), 42, who, 1000, &got, &error));
  Check(Same(got, want));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = Dir().path + "/log.journal";
  ::unlink(path.c_str());
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 7) == 6) {
    StyleBase(rest);
    return 0;
  }
  if ((data[0] & 3) == 2) {
    StyleAsFound(rest);
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
