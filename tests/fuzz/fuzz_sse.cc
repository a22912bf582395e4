// Fuzz target for the event-stream reader of the streamable-HTTP MCP proxy: any bytes, fed in any
// chunking, must give the same events as when fed whole; no event may hold more than the bound; and
// every event must survive being written (SseEventText) and read again unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sse_reader.h"

namespace {

using doberman::guard::SseEvent;
using doberman::guard::SseEventText;
using doberman::guard::SseReader;

constexpr size_t kMax = 256;

// abort() rather than assert(): the check must also hold in builds that define NDEBUG.
void Check(bool ok) {
  if (!ok) std::abort();
}

bool Same(const SseEvent& a, const SseEvent& b) {
  return a.event == b.event && a.data == b.data && a.id == b.id && a.retry == b.retry &&
         a.has_data == b.has_data && a.has_id == b.has_id && a.too_large == b.too_large;
}

std::vector<SseEvent> Read(std::string_view bytes, size_t chunk, size_t max) {
  SseReader reader(max);
  std::vector<SseEvent> events;
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    Check(reader.Feed(bytes.substr(i, chunk), [&](SseEvent& e) {
      events.push_back(e);
      return true;
    }));
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::vector<SseEvent> whole = Read(bytes, bytes.size() + 1, kMax);
  const std::vector<SseEvent> pieces = Read(bytes, chunk, kMax);
  Check(whole.size() == pieces.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    const SseEvent& e = whole[i];
    Check(Same(e, pieces[i]));
    if (e.too_large) {
      Check(e.data.empty() && e.id.empty() && e.event.empty() && !e.has_data);
      continue;
    }
    Check(e.data.size() + e.id.size() + e.event.size() + e.retry.size() <= kMax);
    // Written and read again (a looser bound: writing adds "data: " prefixes).
    const std::vector<SseEvent> again = Read(SseEventText(e), 7, 8 * kMax);
    Check(again.size() == 1 && Same(again[0], e));
  }
  return 0;
}
