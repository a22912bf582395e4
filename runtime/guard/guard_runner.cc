// Loading, parsing and deciding one payload (API in guard_runner.h).
#include "guard_runner.h"

#include "pack_loading.h"

#include <algorithm>
#include <cstdio>

#include "json.h"

namespace doberman::guard {

namespace {

void LoadOne(const Options& o, const std::string& path, LoadedPack* lp, uint32_t fields) {
  PackLoadResult r = LoadPackWithKeys(path, o.pubkeys, o.state, fields, o.image_cache);
  if (r.pack == nullptr) {
    lp->error = r.error;
    lp->status = r.status;
    return;
  }
  lp->pack = r.pack;
  if (doberman_scratch_create(lp->pack, &lp->scratch) != DOBERMAN_OK) {
    lp->error = "cannot allocate scratch";
    lp->status = "DOBERMAN_E_NO_MEMORY";
  }
}

// Folds another pack's decision into `d`: the maximum verdict, every reason, rule and hit, and
// what session memory needs.
void Merge(const Decision& more, Decision* d) {
  d->verdict = std::max(d->verdict, more.verdict);
  if (d->status == "DOBERMAN_OK") d->status = more.status;
  for (const std::string& r : more.reasons) {
    if (std::find(d->reasons.begin(), d->reasons.end(), r) == d->reasons.end())
      d->reasons.push_back(r);
  }
  for (const std::string& m : more.messages) {
    if (std::find(d->messages.begin(), d->messages.end(), m) == d->messages.end())
      d->messages.push_back(m);
  }
  for (const std::string& r : more.rules) {
    if (std::find(d->rules.begin(), d->rules.end(), r) == d->rules.end()) d->rules.push_back(r);
  }
  d->hits.insert(d->hits.end(), more.hits.begin(), more.hits.end());
  for (size_t c : more.outbound_calls) {
    if (std::find(d->outbound_calls.begin(), d->outbound_calls.end(), c) == d->outbound_calls.end())
      d->outbound_calls.push_back(c);
  }
  for (const auto& v : more.secret_values) {
    if (std::find(d->secret_values.begin(), d->secret_values.end(), v) == d->secret_values.end())
      d->secret_values.push_back(v);
  }
  d->flagged = d->flagged || more.flagged;
  d->raised_tags |= more.raised_tags;
  d->only_proxy_enforceable = d->only_proxy_enforceable && more.only_proxy_enforceable;
  d->raises += more.raises;
  d->seen_tags |= more.seen_tags;
}

}  // namespace

void Load(const Options& o, LoadedPack* lp, uint32_t fields) {
  LoadOne(o, o.pack, lp, fields);
  for (const std::string& path : o.more_packs) {
    lp->more.push_back(std::make_unique<LoadedPack>());
    LoadOne(o, path, lp->more.back().get(), fields);
    // Fail closed as a whole: a pack that cannot be trusted makes every decision refuse.
    if (lp->more.back()->scratch == nullptr && lp->error.empty()) {
      lp->error = lp->more.back()->error;
      lp->status = lp->more.back()->status;
    }
  }
}

std::string PackName(const LoadedPack& lp) {
  doberman_pack_info info{};
  info.struct_size = sizeof info;
  if (lp.pack == nullptr || doberman_pack_get_info(lp.pack, &info) != DOBERMAN_OK) return "none";
  return std::string(info.name) + " " + info.version + " r" + std::to_string(info.revision);
}

bool TurnGateOff(const Options& o, const ParsedPayload& payload) {
  return !o.turn_gate && payload.event == HookEvent::kUserPromptSubmit;
}

int64_t MicrosSince(const timespec& start) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000;
}

Decision DecideParsed(const LoadedPack& lp, const ParsedPayload& payload) {
  if (lp.scratch == nullptr || !lp.error.empty()) {
    Decision d;
    d.verdict = DOBERMAN_PASS;
    d.Raise(DOBERMAN_AUTH, "error:pack_unavailable", lp.error);
    d.status = lp.status;
    return d;
  }
  Decision d = doberman::guard::DecidePayload(lp.pack, lp.scratch, payload);
  if (lp.more.empty()) return d;
  d.pack_verdicts.emplace_back(PackName(lp), d.verdict);
  for (const auto& more : lp.more) {
    const Decision m = DecidePayload(more->pack, more->scratch, payload);
    d.pack_verdicts.emplace_back(PackName(*more), m.verdict);
    Merge(m, &d);
  }
  return d;
}

Decision DecideText(std::string_view text, const LoadedPack& lp, ParsedPayload* payload) {
  Decision d;
  d.verdict = DOBERMAN_PASS;
  if (!ParsePayloadText(text, Host::kAny, payload, &d)) return d;
  return DecideParsed(lp, *payload);
}

// The fields a payload's calls fill in, as doberman_load_options.fields bits.
uint32_t FieldsOf(const ParsedPayload& payload) {
  uint32_t fields = 0;
  std::vector<doberman_string> args;
  std::vector<doberman_prompt_segment> prompt;
  for (const auto& c : payload.calls) {
    const doberman_call call = c.View(&args, &prompt);
    fields |= doberman_call_fields(&call);
  }
  // A payload with no field at all still needs a pack to answer from: load the tool databases.
  return fields != 0 ? fields : 1u << DOBERMAN_FIELD_TOOL;
}

HookOutcome DecideHook(const Options& o, Host host, std::string_view text, LoadedPack* lp,
                       Memory* memory,
                       void (*load_for)(const Options&, const ParsedPayload&, LoadedPack*,
                                        Memory*)) {
  HookOutcome out;
  out.decision.verdict = DOBERMAN_PASS;
  if (!ParsePayloadText(text, host, &out.payload, &out.decision)) {
    out.answer = RefuseUnreadable(host, out.decision.Explanation());
    return out;
  }
  if (out.payload.event != HookEvent::kNothingToJudge) {
    out.judged = true;
    if (load_for != nullptr) load_for(o, out.payload, lp, memory);
    if (TurnGateOff(o, out.payload)) {
      out.decision = Decision{};
      out.decision.verdict = DOBERMAN_PASS;
    } else {
      out.decision = DecideParsed(*lp, out.payload);
    }
    // Fail closed: a pack we cannot trust, or a check that failed, denies instead of asking.
    if (out.decision.status != "DOBERMAN_OK") out.decision.verdict = DOBERMAN_BLOCK;
    // The broker may take over an AUTH that is only about where a connection goes; session memory
    // judges after it (raise-only), so a recorded secret still stops the call.
    if (o.broker_ok) ApplyBroker(o.broker, out.payload, &out.decision);
    memory->Apply(o, *lp, out.payload, &out.decision);
  }
  AnswerOptions options;
  options.turn_auth_blocks = o.turn_auth_blocks;
  out.answer = AnswerHook(host, out.payload, out.decision, options);
  return out;
}

}  // namespace doberman::guard
