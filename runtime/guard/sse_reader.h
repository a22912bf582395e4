// Reads a text/event-stream (the WHATWG server-sent events format MCP's streamable HTTP transport
// answers with) into events, and writes events back. Lines end with CRLF, LF or CR; a blank line
// ends an event; `data:` lines are joined with "\n"; `:` lines are comments. At most `max_bytes`
// of one event are held: a longer event is reported as too large (no data) and the rest of it is
// skipped, so memory stays bounded whatever the server sends. An event the stream ends inside is
// dropped, as the format says.
#ifndef DOBERMAN_GUARD_SSE_READER_H_
#define DOBERMAN_GUARD_SSE_READER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace doberman::guard {

struct SseEvent {
  std::string event;  // the `event:` field ("" = message)
  std::string data;
  std::string id;
  std::string retry;
  bool has_data = false;
  bool has_id = false;
  bool too_large = false;  // more than max_bytes: fields dropped
};

class SseReader {
 public:
  explicit SseReader(size_t max_bytes) : max_(max_bytes) {}

  // Feeds the next bytes of the stream; calls `on_event` for each event they complete. Returns
  // false as soon as `on_event` does (the reader is then left mid-stream).
  bool Feed(std::string_view bytes, const std::function<bool(SseEvent&)>& on_event);

 private:
  bool EndLine(const std::function<bool(SseEvent&)>& on_event);

  size_t max_;
  std::string line_;
  size_t held_ = 0;      // bytes of the current event held so far
  size_t line_len_ = 0;  // characters of the current line, held or skipped
  bool after_cr_ = false;
  SseEvent event_;
};

// One event as text: `event:`, `id:` and `retry:` when set, the data split into `data:` lines, and
// the blank line that ends it.
std::string SseEventText(const SseEvent& e);
// The same, appended to `out` in one allocation; `id` is left out when null, `data` unless
// has_data.
void AppendSseEvent(std::string_view event, const std::string* id, std::string_view retry,
                    bool has_data, std::string_view data, std::string* out);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_SSE_READER_H_
