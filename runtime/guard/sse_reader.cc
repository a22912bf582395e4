// Server-sent events (sse_reader.h), after the WHATWG "event stream interpretation": one field per
// line, `name: value` (one space after the colon dropped), unknown fields ignored.
#include "sse_reader.h"

namespace doberman::guard {

bool SseReader::Feed(std::string_view bytes, const std::function<bool(SseEvent&)>& on_event) {
  size_t i = 0;
  while (i < bytes.size()) {
    const char c = bytes[i];
    if (c == '\n' && after_cr_) {  // the LF of a CRLF: the line already ended at the CR
      after_cr_ = false;
      ++i;
      continue;
    }
    after_cr_ = c == '\r';
    if (c == '\r' || c == '\n') {
      ++i;
      if (!EndLine(on_event)) return false;
      continue;
    }
    // The rest of the line, up to the next line end, in one piece.
    size_t end = i;
    while (end < bytes.size() && bytes[end] != '\n' && bytes[end] != '\r') ++end;
    const size_t n = end - i;
    line_len_ += n;
    if (!event_.too_large) {
      if (held_ + n > max_) {  // drop what is held of this event and skip to its end
        event_ = SseEvent();
        event_.too_large = true;
        line_.clear();
      } else {
        held_ += n;
        line_.append(bytes.data() + i, n);
      }
    }
    i = end;
  }
  return true;
}

bool SseReader::EndLine(const std::function<bool(SseEvent&)>& on_event) {
  const bool blank = line_len_ == 0;
  line_len_ = 0;
  if (blank) {
    // Blank lines between events, and an event that carries nothing (`event:` with no value): not
    // events, so that every event reported survives being written and read again.
    if (!event_.too_large && !event_.has_data && !event_.has_id && event_.event.empty() &&
        event_.retry.empty()) {
      event_ = SseEvent();
      held_ = 0;
      return true;
    }
    SseEvent done = std::move(event_);
    event_ = SseEvent();
    held_ = 0;
    return on_event(done);
  }
  if (event_.too_large) return true;  // a line of an event being skipped
  std::string_view l(line_);
  if (l.front() == ':') {  // a comment (keep-alive)
    line_.clear();
    return true;
  }
  const size_t colon = l.find(':');
  std::string_view name = l.substr(0, colon);
  std::string_view value =
      colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (name == "data") {
    if (event_.has_data) event_.data.push_back('\n');
    event_.data.append(value);
    event_.has_data = true;
  } else if (name == "event") {
    event_.event.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) {
      event_.id.assign(value);
      event_.has_id = true;
    }
  } else if (name == "retry") {
    if (!value.empty() && value.find_first_not_of("0123456789") == std::string_view::npos) {
      event_.retry.assign(value);
    }
  }
  line_.clear();
  return true;
}

std::string SseEventText(const SseEvent& e) {
  std::string out;
  AppendSseEvent(e.event, e.has_id ? &e.id : nullptr, e.retry, e.has_data, e.data, &out);
  return out;
}

void AppendSseEvent(std::string_view event, const std::string* id, std::string_view retry,
                    bool has_data, std::string_view data, std::string* out) {
  size_t lines = 1;
  for (const char c : data) lines += c == '\n';
  out->reserve(out->size() + event.size() + retry.size() + 32 + (id ? id->size() : 0) +
               data.size() + lines * 7);
  if (!event.empty()) out->append("event: ").append(event).push_back('\n');
  if (id != nullptr) out->append("id: ").append(*id).push_back('\n');
  if (!retry.empty()) out->append("retry: ").append(retry).push_back('\n');
  if (has_data) {
    size_t start = 0;
    for (;;) {
      const size_t nl = data.find('\n', start);
      out->append("data: ");
      out->append(
          data.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
      out->push_back('\n');
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }
  out->push_back('\n');
}

}  // namespace doberman::guard
