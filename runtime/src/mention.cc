// Quote and sentence structure around one match, computed on demand (only for capped rules that
// hit), by a bounded walk of the text: no tables, no allocation.
#include "mention.h"

namespace doberman::internal {
namespace {

bool IsSentenceEnd(char c) { return c == '.' || c == '?' || c == '!' || c == '\n'; }
bool IsWordChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// Walks the text from the start tracking which quote (if any) is open; returns whether `pos` falls
// inside a quoted region and whether it falls inside a ``` fence.
void QuoteStateAt(std::string_view t, size_t pos, size_t end, bool* quoted, bool* fenced) {
  bool in_fence = false;
  char open = 0;  // '"', '`', '\'', or 'u' for curly double quotes, 'v' for curly single quotes
  size_t open_at = 0;
  bool span_start_quoted = false;
  for (size_t i = 0; i < t.size() && i < end; ++i) {
    if (i == pos) span_start_quoted = open != 0;
    unsigned char c = static_cast<unsigned char>(t[i]);
    if (t.compare(i, 3, "```") == 0) {
      in_fence = !in_fence;
      open = 0;
      i += 2;
      continue;
    }
    if (in_fence) continue;
    if (open == 0) {
      if (c == '"' || c == '`') {
        open = static_cast<char>(c);
        open_at = i;
      } else if (c == '\'' && (i == 0 || !IsWordChar(static_cast<unsigned char>(t[i - 1])))) {
        open = '\'';  // an apostrophe inside a word (don't) never opens a quote
        open_at = i;
      } else if (t.compare(i, 3, "\xE2\x80\x9C") == 0) {
        open = 'u';
        i += 2;
      } else if (t.compare(i, 3, "\xE2\x80\x98") == 0) {
        open = 'v';
        i += 2;
      }
    } else {
      bool closes = (open == '"' && c == '"') || (open == '`' && c == '`') ||
                    (open == '\'' && c == '\'' &&
                     (i + 1 >= t.size() || !IsWordChar(static_cast<unsigned char>(t[i + 1])))) ||
                    (open == 'u' && t.compare(i, 3, "\xE2\x80\x9D") == 0) ||
                    (open == 'v' && t.compare(i, 3, "\xE2\x80\x99") == 0);
      if (closes) {
        if (open == 'u' || open == 'v') i += 2;
        open = 0;
      }
    }
  }
  (void)open_at;
  // Quoted only when the whole span sits inside one region that also closes after it.
  *quoted = span_start_quoted && open != 0;
  *fenced = in_fence;
}

}  // namespace

bool IsMention(std::string_view text, ByteSpan span, std::span<const size_t> marker_ends) {
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
  for (size_t m : marker_ends) {
    if (m > sentence_start && m <= sentence_end + 1) return true;
  }
  return false;
}

}  // namespace doberman::internal
