// The two value searches session memory is built on, on the runtime's public API: the secrets a
// text shown to the model carries (every occurrence, as keyed fingerprints) and the values a text
// sent off the machine carries. Shared by doberman-guard and the C ABI for embedders
// (doberman/doberman_memory.h) so that both judge alike.
#ifndef DOBERMAN_STATE_VALUE_MEMORY_H_
#define DOBERMAN_STATE_VALUE_MEMORY_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "doberman/doberman.h"
#include "state_dir.h"
#include "state_store.h"

namespace doberman::state {

// Values shorter than this are not recorded or matched: too many ordinary words would collide.
inline constexpr size_t kMinValueBytes = 8;
// Bound on the values one payload (or one call, through the C ABI) is judged or recorded by; more
// are judged on the first ones and the caller raises to AUTH (the rest went unchecked).
inline constexpr size_t kMaxCarriedValues = 512;
// A decision reports one place per rule, so a shown text is decided again after the earliest
// secret found, at most this many times.
inline constexpr size_t kMaxSecretScans = 256;

// How a shown text is decided when searched for secrets. A typed or pasted prompt segment is
// decided as a prompt of its origin: every secret rule also reads the prompt_text scope for those
// origins, and the prompt's databases are the ones its turn already loaded, where deciding it as
// content would load the content scope's (half a millisecond of a one-shot hook) to find the same
// values. Tool output is decided as content: the secret rules do not judge tool_fetched prompt
// text.
struct ShownAs {
  bool prompt = false;
  doberman_origin origin = DOBERMAN_ORIGIN_TYPED;
};

// Appends (without repeats) the secrets in `text`: the text decided as `as` says by `tool`, hits
// of rules tagged `secret`, each with its tag when its span is the value itself (a hit inside a
// decoded run is recorded untagged). `scratch` must carry the state key. False when a decision
// failed or the scan bound was reached: the caller must raise, since values may be missing.
bool ShownSecrets(const doberman_pack* pack, doberman_scratch* scratch, std::string_view tool,
                  std::string_view text, ShownAs as, std::vector<RecordedValue>* out);

// Appends (without repeats) the values `text` carries, with their tags, while `out` holds fewer
// than `max_values`. False when there were more (or the scratch refused): the caller raises.
bool CarriedValues(doberman_scratch* scratch, std::string_view text, size_t max_values,
                   std::vector<RecordedValue>* out);

// The same as fingerprints only, for a lookup: with a `filter` (StateStore::PrepareLookup), only
// the values whose tag it accepts, the others being absent from the session anyway. `counted` is
// the number of values seen so far across calls for one payload (the bound applies to them all).
bool CarriedValues(doberman_scratch* scratch, std::string_view text, size_t max_values,
                   const TagFilter* filter, size_t* counted, std::vector<Fingerprint>* out);

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_VALUE_MEMORY_H_
