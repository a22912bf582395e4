// Post-match validators for secret-shaped matches: entropy and length floors over the token around
// the match, the placeholder filter, and the hash/UUID/identifier exemptions. Pure functions on
// bytes.
#ifndef DOBERMAN_RUNTIME_VALIDATORS_H_
#define DOBERMAN_RUNTIME_VALIDATORS_H_

#include <cstddef>
#include <string_view>

#include "pack.h"

namespace doberman::internal {

// Shannon entropy in bits per byte.
double ShannonEntropy(std::string_view s);

// The value a secret-shaped match carries: for `NAME=value` / `name: "value"` shapes the part after
// the last `=` or `:` (quotes stripped), otherwise the match itself, widened to the whole run of
// token characters [A-Za-z0-9+/=_-] around it so that entropy is measured on the full token. `start
// == end` means the start is unknown (no SOM): the match is then the token run ending at `end`,
// which a '#' ends unless the same quote encloses both (`"Rt4#kW9z"` is one value).
std::string_view ExtractValue(std::string_view text, size_t start, size_t end);

// Every value `text` carries, bounded exactly as ExtractValue bounds a secret hit's value (so that
// a value recorded from a hit and the same value seen later fingerprint alike): for each run of
// token characters, the value that ends where the run ends (and, for a quoted literal with a '#',
// the piece after the '#' as well), and, when that value is a URL path, its last segment too. Calls
// `fn(context, value)` for each of at least `min_length` bytes, left to right, with repeats; stops
// and returns false as soon as `fn` does. Linear in the text (ExtractValue called at every run end
// would rescan up to 4 KiB backwards each time).
bool ForEachCarriedValue(std::string_view text, size_t min_length,
                         bool (*fn)(void* context, std::string_view value), void* context);

bool LooksLikePlaceholder(std::string_view value);
bool LooksLikeHashOrUuid(std::string_view value);
bool LooksLikeIdentifierOrPath(std::string_view value);

// True when the match at [start, end) in `text` survives every validator in `spec`. `value_end`,
// when given, receives the end of the value judged, so callers can skip later matches inside it.
bool PassesValidators(const ValidatorSpec& spec, std::string_view text, size_t start, size_t end,
                      size_t* value_end = nullptr);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_VALIDATORS_H_
