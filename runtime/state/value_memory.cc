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

void AddOnce(const RecordedValue& v, std::vector<RecordedValue>* out) {
  for (RecordedValue& w : *out) {
    if (w.fingerprint != v.fingerprint) continue;
    if (!w.tagged && v.tagged) w = v;
    return;
  }
  out->push_back(v);
}

Fingerprint Copy(const uint8_t fingerprint[16]) {
  Fingerprint f{};
  std::copy(fingerprint, fingerprint + 16, f.begin());
  return f;
}

}  // namespace

bool ShownSecrets(const doberman_pack* pack, doberman_scratch* scratch, std::string_view tool,
                  std::string_view text, ShownAs as, std::vector<RecordedValue>* out) {
  bool complete = true;
  size_t offset = 0;
  for (size_t scans = 0;; ++scans) {
    if (scans == kMaxSecretScans) return false;
    const doberman_string rest = {text.data() + offset, text.size() - offset};
    doberman_call call{};
    call.struct_size = sizeof call;
    call.tool = {tool.data(), tool.size()};
    doberman_prompt_segment segment{rest, as.origin};
    if (as.prompt) {
      call.prompt = &segment;
      call.prompt_count = 1;
    } else {
      call.content = rest;
    }
    const doberman_field field = as.prompt ? DOBERMAN_FIELD_PROMPT : DOBERMAN_FIELD_CONTENT;
    doberman_result result{};
    result.struct_size = sizeof result;
    if (doberman_decide(pack, scratch, &call, &result) != DOBERMAN_OK || result.hits_dropped > 0)
      complete = false;
    size_t next = SIZE_MAX;
    for (size_t i = 0; i < result.hit_count; ++i) {
      const doberman_hit& h = result.hits[i];
      if (doberman_rule_has_tag(pack, h.rule, "secret") == 0) continue;
      RecordedValue v;
      v.fingerprint = Copy(h.fingerprint);
      if (v.fingerprint == Fingerprint{}) continue;
      // The span is the value itself when the hit is in the text as written: its tag is then
      // the tag of those bytes, checked by the fingerprint they give (a span in another view of
      // the text gives another fingerprint and the value stays untagged).
      if (h.decoded == 0 && h.field == field && h.unit == 0 && h.start < h.end &&
          h.end <= rest.size) {
        uint64_t tag = 0;
        uint8_t check[16];
        if (doberman_value_tag(scratch, {rest.data + h.start, h.end - h.start}, &tag, check) ==
                DOBERMAN_OK &&
            Copy(check) == v.fingerprint) {
          v.tag = tag;
          v.tagged = true;
        }
      }
      AddOnce(v, out);
      // Decoded hits' spans are in the decoded run, not the text: they cannot move us on.
      if (h.decoded == 0 && h.end > 0) next = std::min<size_t>(next, h.end);
    }
    if (next == SIZE_MAX || next >= rest.size) return complete;
    offset += next;
  }
}

bool CarriedValues(doberman_scratch* scratch, std::string_view text, size_t max_values,
                   std::vector<RecordedValue>* out) {
  if (out->size() >= max_values) return text.empty();
  const doberman_status s = doberman_value_tags(
      scratch, {text.data(), text.size()}, kMinValueBytes, max_values - out->size(), nullptr,
      [](void* ctx, uint64_t tag, const uint8_t fingerprint[16], int /*decoded*/) {
        AddOnce(RecordedValue{Copy(fingerprint), tag, true},
                static_cast<std::vector<RecordedValue>*>(ctx));
      },
      out);
  return s == DOBERMAN_OK;
}

bool CarriedValues(doberman_scratch* scratch, std::string_view text, size_t max_values,
                   const TagFilter* filter, size_t* counted, std::vector<Fingerprint>* out) {
  if (filter == nullptr) {  // every value fingerprinted: the bound is on the distinct ones
    *counted = out->size();
    if (out->size() >= max_values) return text.empty();
    const doberman_status s = doberman_value_fingerprints(
        scratch, {text.data(), text.size()}, kMinValueBytes, max_values - out->size(),
        [](void* ctx, const uint8_t fingerprint[16], int /*decoded*/) {
          AddOnce(Copy(fingerprint), static_cast<std::vector<Fingerprint>*>(ctx));
        },
        out);
    *counted = out->size();
    return s == DOBERMAN_OK;
  }
  if (*counted >= max_values) return text.empty();
  struct Sink {
    const TagFilter* filter;
    size_t seen;
    std::vector<Fingerprint>* out;
  } sink{filter, 0, out};
  const doberman_status s = doberman_value_tags(
      scratch, {text.data(), text.size()}, kMinValueBytes, max_values - *counted,
      [](void* ctx, uint64_t tag) {
        auto* k = static_cast<Sink*>(ctx);
        ++k->seen;
        return k->filter->MayHold(tag) ? 1 : 0;
      },
      [](void* ctx, uint64_t, const uint8_t fingerprint[16], int /*decoded*/) {
        AddOnce(Copy(fingerprint), static_cast<Sink*>(ctx)->out);
      },
      &sink);
  *counted += sink.seen;
  return s == DOBERMAN_OK;
}

}  // namespace doberman::state
