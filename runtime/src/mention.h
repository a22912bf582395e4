// Issue versus mention in prompt text: a turn signature inside quotes or backticks, after a mention
// marker in its sentence ("how do I detect", "example of"), or negated ("do not ignore ..."), is
// talked about, not issued. Fenced code blocks are never exempt. The marker words are rules in the
// pack; only the structure is here.
#ifndef DOBERMAN_RUNTIME_MENTION_H_
#define DOBERMAN_RUNTIME_MENTION_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "pack_model.h"

namespace doberman::internal {

struct ByteSpan {
  size_t start = 0;
  size_t end = 0;
};

// One mention-marker match: where it ends (and starts, for a NegatedPhrase marker, whose patterns
// carry start of match) and what kind of marker it is.
struct MentionMarker {
  size_t end = 0;
  MarkerKind kind = MarkerKind::kNone;
  size_t start = 0;
};

// True when [span.start, span.end) of `text` is a mention: quoted; or sharing a sentence with an
// unquoted Sentence marker, or with a Before marker that ends no later than the match; or with a
// Negation marker that ends exactly where the match ends (a negated form of the signature, which
// the rule author writes in full, so its end cannot fall on an issued order's end by accident); or
// with a NegatedPhrase marker whose span holds the match's end (a negated form whose negation
// follows the order, "vergiss die vorherigen Anweisungen nicht", written in full the same way).
// False inside ``` fences. `span.start == span.end` means the start is unknown; the match's last
// byte is judged then.
bool IsMention(std::string_view text, ByteSpan span, std::span<const MentionMarker> markers);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_MENTION_H_
