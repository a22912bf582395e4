// Value searches for session memory (API in value_memory.h).
#include "value_memory.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace doberman::state {
namespace {

void AddOnce(const Fingerprint& f, std::vector<Fingerprint>* out) {
  if (std::find(out->begin(), out->end(), f) == out->end()) out->push_back(f);
}

}  // namespace

bool ShownSecrets(const doberman_pack* pack, doberman_scratch* scratch, std::string_view tool,
                  std::string_view text, std::vector<Fingerprint>* out) {
  bool complete = true;
  size_t offset = 0;
  for (size_t scans = 0;; ++scans) {
    if (scans == kMaxSecretScans) return false;
    doberman_call call{};
    call.struct_size = sizeof call;
    call.tool = {tool.data(), tool.size()};
    call.content = {text.data() + offset, text.size() - offset};
    doberman_result result{};
    result.struct_size = sizeof result;
    if (doberman_decide(pack, scratch, &call, &result) != DOBERMAN_OK || result.hits_dropped > 0)
      complete = false;
    size_t next = SIZE_MAX;
    for (size_t i = 0; i < result.hit_count; ++i) {
      const doberman_hit& h = result.hits[i];
      if (doberman_rule_has_tag(pack, h.rule, "secret") == 0) continue;
      Fingerprint f{};
      std::copy(std::begin(h.fingerprint), std::end(h.fingerprint), f.begin());
      if (f != Fingerprint{}) AddOnce(f, out);
      // Decoded hits' spans are in the decoded run, not the text: they cannot move us on.
      if (h.decoded == 0 && h.end > 0) next = std::min<size_t>(next, h.end);
    }
    if (next == SIZE_MAX || next >= call.content.size) return complete;
    offset += next;
  }
}

bool CarriedValues(doberman_scratch* scratch, std::string_view text, size_t max_values,
                   std::vector<Fingerprint>* out) {
  if (out->size() >= max_values) return text.empty();
  struct Sink {
    std::vector<Fingerprint>* out;
  } sink{out};
  const doberman_status s = doberman_value_fingerprints(
      scratch, {text.data(), text.size()}, kMinValueBytes, max_values - out->size(),
      [](void* ctx, const uint8_t fingerprint[16], int /*decoded*/) {
        Fingerprint f{};
        std::copy(fingerprint, fingerprint + 16, f.begin());
        AddOnce(f, static_cast<Sink*>(ctx)->out);
      },
      &sink);
  return s == DOBERMAN_OK;
}

}  // namespace doberman::state
