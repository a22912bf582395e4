// Issue versus mention in prompt text: a turn signature inside quotes or backticks, or in the same
// sentence as a mention marker ("how do I detect", "example of"), is talked about, not issued.
// Fenced code blocks are never exempt. The marker words are rules in the pack; only the structure
// is here.
#ifndef DOBERMAN_RUNTIME_MENTION_H_
#define DOBERMAN_RUNTIME_MENTION_H_

#include <cstddef>
#include <span>
#include <string_view>

namespace doberman::internal {

struct ByteSpan {
  size_t start = 0;
  size_t end = 0;
};

// True when [span.start, span.end) of `text` is a mention: quoted, or sharing a sentence with an
// unquoted one of `marker_ends` (end offsets of mention-marker matches). False inside ``` fences.
// `span.start == span.end` means the start is unknown; the match's last byte is judged then.
bool IsMention(std::string_view text, ByteSpan span, std::span<const size_t> marker_ends);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_MENTION_H_
