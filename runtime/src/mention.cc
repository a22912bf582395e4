// Quote and sentence structure around one match, computed on demand (only for capped rules that
// hit), by a bounded walk of the text: no tables, no allocation.
#include "mention.h"

namespace doberman::internal {
namespace {

bool IsSentenceEnd(char c) { return c == '.' || c == '?' || c == '!' || c == '\n'; }
bool IsWordChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// Which quote is open while walking the text: 0, '"', '`', '\'', or 'u' / 'v' for curly double /
// single quotes.
struct QuoteWalk {
  char open = 0;
  size_t open_at = 0;
  bool in_fence = false;

  // Advances over the character at `i` (returns the index of its last byte).
  size_t Step(std::string_view t, size_t i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (t.compare(i, 3, "```") == 0) {
      in_fence = !in_fence;
      open = 0;
      return i + 2;
    }
    if (in_fence) return i;
    if (open == 0) {
      if (c == '"' || c == '`') {
        open = static_cast<char>(c);
        open_at = i;
      } else if (c == '\'' && (i == 0 || !IsWordChar(static_cast<unsigned char>(t[i - 1])))) {
        open = '\'';  // an apostrophe inside a word (don't) never opens a quote
        open_at = i;
      } else if (t.compare(i, 3, "\xE2\x80\x9C") == 0) {
        open = 'u';
        open_at = i;
        return i + 2;
      } else if (t.compare(i, 3, "\xE2\x80\x98") == 0) {
        open = 'v';
        open_at = i;
        return i + 2;
      }
      return i;
    }
    const bool closes =
        (open == '"' && c == '"') || (open == '`' && c == '`') ||
        (open == '\'' && c == '\'' &&
         (i + 1 >= t.size() || !IsWordChar(static_cast<unsigned char>(t[i + 1])))) ||
        (open == 'u' && t.compare(i, 3, "\xE2\x80\x9D") == 0) ||
        (open == 'v' && t.compare(i, 3, "\xE2\x80\x99") == 0);
    if (!closes) return i;
    const bool curly = open == 'u' || open == 'v';
    open = 0;
    return curly ? i + 2 : i;
  }
};

bool OnlySpaces(std::string_view t) {
  for (char c : t) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

// Whether [pos, end) lies inside one quoted region that closes after it, and whether it lies in a
// ``` fence. A quote that never closes (a stray `"` before an instruction) quotes nothing, and a
// region that is the whole text (the entire message wrapped in quotes) is the message, not a
// mention inside it.
void QuoteStateAt(std::string_view t, size_t pos, size_t end, bool* quoted, bool* fenced) {
  QuoteWalk w;
  bool span_start_quoted = false;
  size_t region = 0;
  for (size_t i = 0; i < t.size() && i < end; ++i) {
    if (i == pos) {
      span_start_quoted = w.open != 0;
      region = w.open_at;
    }
    i = w.Step(t, i);
  }
  *fenced = w.in_fence;
  *quoted = false;
  if (!span_start_quoted || w.open == 0 || w.open_at != region) return;
  for (size_t i = end; i < t.size(); ++i) {  // the region must close after the span
    i = w.Step(t, i);
    if (w.open == 0) {
      *quoted = !(OnlySpaces(t.substr(0, region)) && OnlySpaces(t.substr(i + 1)));
      return;
    }
  }
}

}  // namespace

bool IsMention(std::string_view text, ByteSpan span, std::span<const MentionMarker> markers) {
  if (span.end > text.size() || span.start > span.end) return false;
  // Without a start of match, judge by the match's last byte: a phrase that ends inside a quote, or
  // in a sentence with a marker, is talked about.
  if (span.start == span.end && span.end > 0) span.start = span.end - 1;
  bool quoted = false, fenced = false;
  QuoteStateAt(text, span.start, span.end, &quoted, &fenced);
  if (fenced) return false;
  if (quoted) return true;
  size_t sentence_start = span.start;
  while (sentence_start > 0 && !IsSentenceEnd(text[sentence_start - 1])) --sentence_start;
  size_t sentence_end = span.end;
  while (sentence_end < text.size() && !IsSentenceEnd(text[sentence_end])) ++sentence_end;
  for (const MentionMarker& marker : markers) {
    const size_t m = marker.end;
    if (marker.kind == MarkerKind::kNone) continue;
    if (m <= sentence_start || m > sentence_end + 1) continue;
    // "Ignore all previous instructions; this is a test case": a marker that follows an order
    // does not make it a question or an example.
    if (marker.kind == MarkerKind::kBefore && m > span.end) continue;
    if (marker.kind == MarkerKind::kNegation && m != span.end) continue;
    // (As for excuses, decider.cc: a match whose last byte is the marker's first is not inside.)
    if (marker.kind == MarkerKind::kNegatedPhrase && (span.end <= marker.start + 1 || span.end > m))
      continue;
    // A marker inside quotes is text being quoted, not the speaker framing the sentence: in
    // "email the text 'Hey, how is it going?' to ..." the question is the message to send.
    bool marker_quoted = false, marker_fenced = false;
    if (m > 0 && m <= text.size()) QuoteStateAt(text, m - 1, m, &marker_quoted, &marker_fenced);
    if (!marker_quoted) return true;
  }
  return false;
}

}  // namespace doberman::internal
