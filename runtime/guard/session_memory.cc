// Session memory for doberman-guard (contract in session_memory.h).
#include "session_memory.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "json.h"
#include "log_journal.h"
#include "log_row.h"
#include "style_journal.h"
#include "value_memory.h"

namespace doberman::guard {
namespace {

using state::Fingerprint;
using state::RecordedValue;
using state::ValueKind;

// The texts of one call that can carry a value off the machine (or, for tool output, into the
// model): every field it fills.
std::vector<const std::string*> TextsOf(const CallInput& c) {
  std::vector<const std::string*> out;
  for (const std::string* s : {&c.command, &c.url, &c.content, &c.path}) {
    if (!s->empty()) out.push_back(s);
  }
  for (const std::string& a : c.args) out.push_back(&a);
  for (const CallInput::Segment& seg : c.prompt) out.push_back(&seg.text);
  return out;
}

// The values carried by every call, with their tags, at most state::kMaxCarriedValues. False when
// there were more: the caller raises.
bool CarriedValues(const std::vector<CallInput>& calls, doberman_scratch* scratch,
                   std::vector<RecordedValue>* out) {
  bool complete = true;
  for (const CallInput& c : calls) {
    for (const std::string* text : TextsOf(c))
      complete = state::CarriedValues(scratch, *text, state::kMaxCarriedValues, out) && complete;
  }
  return complete;
}

// Fingerprints of the values the calls numbered `only` carry, only those `filter` lets through
// when there is one (state::CarriedValues), at most state::kMaxCarriedValues. False when there
// were more: the caller raises.
bool CarriedFingerprints(const std::vector<CallInput>& calls, const std::vector<size_t>& only,
                         doberman_scratch* scratch, const state::TagFilter* filter,
                         std::vector<Fingerprint>* out) {
  bool complete = true;
  size_t counted = 0;
  for (size_t i : only) {
    for (const std::string* text : TextsOf(calls[i])) {
      complete =
          state::CarriedValues(scratch, *text, state::kMaxCarriedValues, filter, &counted, out) &&
          complete;
    }
  }
  return complete;
}

// Typed and pasted prompt segments are searched for secrets as prompts (state::ShownAs says why),
// tool output as content.
bool SearchedAsPrompt(const CallInput::Segment& seg) {
  return seg.origin == DOBERMAN_ORIGIN_TYPED || seg.origin == DOBERMAN_ORIGIN_PASTED;
}

// The secrets shown to the model by every call's content and prompt segments.
bool ShownSecrets(const std::vector<CallInput>& calls, const doberman_pack* pack,
                  doberman_scratch* scratch, std::vector<RecordedValue>* out) {
  bool complete = true;
  for (const CallInput& c : calls) {
    if (!c.content.empty())
      complete = state::ShownSecrets(pack, scratch, c.tool, c.content, {}, out) && complete;
    for (const CallInput::Segment& seg : c.prompt) {
      complete = state::ShownSecrets(pack, scratch, c.tool, seg.text,
                                     {SearchedAsPrompt(seg), seg.origin}, out) &&
                 complete;
    }
  }
  return complete;
}

bool Acts(HookEvent e) { return e == HookEvent::kPreToolUse || e == HookEvent::kPermissionRequest; }

}  // namespace

void SessionMemory::AddShownSecrets(const ParsedPayload& payload, const doberman_pack* pack,
                                    doberman_scratch* scratch, Decision* d) const {
  if (!is_open() || !ShowsText(payload.event)) return;
  std::vector<RecordedValue> found;
  if (!ShownSecrets(payload.calls, pack, scratch, &found)) {
    d->Raise(DOBERMAN_AUTH, "values_unrecorded",
             "the shown text could not be searched for secrets completely");
  }
  for (const RecordedValue& v : found) {
    const Fingerprint& f = v.fingerprint;
    if (std::find(d->secret_values.begin(), d->secret_values.end(), f) == d->secret_values.end())
      d->secret_values.push_back(f);
  }
}

bool ShownTextNeedsContent(const ParsedPayload& payload) {
  if (!ShowsText(payload.event)) return false;
  for (const CallInput& c : payload.calls) {
    if (!c.content.empty()) return true;
    for (const CallInput::Segment& seg : c.prompt) {
      if (!SearchedAsPrompt(seg)) return true;
    }
  }
  return false;
}

bool ShowsText(HookEvent e) {
  return e == HookEvent::kPostToolUse || e == HookEvent::kPostToolUseFailure ||
         e == HookEvent::kReadFile || e == HookEvent::kUserPromptSubmit;
}

bool SessionMemory::Open(const std::string& dir, bool* rebuilt, std::string* error, bool lazy) {
  *rebuilt = false;
  lazy_ = false;
  if (!state::OpenStateDir(dir, &dir_, error)) return false;
  uint64_t db_inode = 0;
  if (lazy && state::StateStore::LooksCurrent(dir_, &db_inode) &&
      hints_.OpenForRead(dir_.path, db_inode)) {
    db_inode_ = db_inode;
    lazy_ = true;
    return true;
  }
  store_ = state::StateStore::Open(dir_, state::StoreLimits{}, rebuilt, error);
  return store_ != nullptr;
}

state::StateStore* SessionMemory::Store(Decision* d) {
  if (store_ != nullptr) return store_.get();
  bool rebuilt = false;
  std::string error;
  store_ = state::StateStore::Open(dir_, state::StoreLimits{}, &rebuilt, &error);
  if (store_ == nullptr) {
    if (d != nullptr) Unavailable(error, d);
    return nullptr;
  }
  if (rebuilt && d != nullptr) {
    d->Raise(DOBERMAN_AUTH, "state_rebuilt",
             "the session store was corrupt and has been rebuilt; what it recorded is lost");
  }
  return store_.get();
}

Fingerprint SessionMemory::SessionOf(const ParsedPayload& payload) const {
  return sessions_.Of(dir_.key, payload.session);
}

namespace {

// The prompt turn as the turn rules read it: folded (lower case, single spaces, look-alikes
// mapped).
std::string FoldedPrompt(const doberman_pack* pack, const std::string& text) {
  std::string folded;
  doberman_canonical_views(
      pack, DOBERMAN_FIELD_PROMPT, {text.data(), text.size()}, {nullptr, 0},
      [](void* ctx, size_t, doberman_string v) {
        auto* out = static_cast<std::string*>(ctx);
        if (!out->empty()) out->push_back(' ');
        out->append(v.data, v.size);
      },
      &folded);
  return folded;
}

}  // namespace

void SessionMemory::Unavailable(const std::string& error, Decision* d) {
  d->Raise(DOBERMAN_AUTH, "error:state_unavailable",
           "the session store failed (" + error + "); a person must look at this call");
}

void SessionMemory::JudgeTurn(const ParsedPayload& payload, const doberman_pack* pack,
                              const Fingerprint& session, int64_t now, Decision* d) {
  std::string error;
  std::string all, typed;
  for (const CallInput& c : payload.calls) {
    for (const CallInput::Segment& seg : c.prompt) {
      all += seg.text + "\n";
      if (seg.origin == DOBERMAN_ORIGIN_TYPED) typed += seg.text + "\n";
    }
  }
  // Repeat record: a turn close to one blocked minutes ago is challenged once, then blocked. A
  // closed store is opened only when some blocked turn may still be in the window (the hints'
  // bound) or this one is to be recorded; the sketch (128 keyed hashes and the folded text) is
  // made only then.
  std::optional<state::Sketch> made;
  auto sketch = [&]() -> const state::Sketch& {
    if (!made) made = state::SketchOf(dir_.key, FoldedPrompt(pack, all));
    return *made;
  };
  if (d->verdict != DOBERMAN_BLOCK &&
      (store_ != nullptr || hints_.last_blocked_turn() >= now - kRepeatWindowSeconds)) {
    if (Store(d) == nullptr) return;
    bool found = false;
    int challenges = 0, original = 0;
    if (!store_->MatchBlockedTurn(session, sketch(), now, kRepeatWindowSeconds, kRepeatSimilarity,
                                  &found, &challenges, &original, &error)) {
      return Unavailable(error, d);
    }
    if (found && challenges == 0) {
      d->Raise(DOBERMAN_AUTH, "repeat_challenge",
               "this turn is close to one blocked in this session minutes ago; a person must "
               "confirm it");
    } else if (found) {
      d->Raise(DOBERMAN_BLOCK, "repeat_block",
               "this turn resubmits, again, one blocked in this session minutes ago");
    }
  }
  if (d->verdict == DOBERMAN_BLOCK &&
      (Store(d) == nullptr || !store_->RecordBlockedTurn(session, sketch(), DOBERMAN_BLOCK, now,
                                                         kRepeatWindowSeconds, &error))) {
    if (store_ != nullptr) Unavailable(error, d);
    return;
  }
  // Stylometry: the person's own typing, against their baseline once it has enough turns.
  if (typed.empty()) return;
  const Fingerprint entity =
      state::KeyedFingerprint(dir_.key, "entity", "uid:" + std::to_string(::geteuid()));
  const state::StyleFeatures features = state::StyleOf(typed);
  const bool sensitive = (d->seen_tags & (kTagSensitiveIntent | kTagSecretExport | kTagInjection |
                                          kTagInjectionHeuristic)) != 0;
  // The baseline is read only for a turn that asks for something sensitive (the only turn its
  // check can raise).
  if (sensitive) {
    state::StyleBaseline baseline;
    if (!ReadStyle(entity, &baseline, d)) return;
    if (baseline.turns >= kStyleMinTurns && baseline.MaxZ(features) > kStyleOutlierZ) {
      d->Raise(DOBERMAN_AUTH, "style_outlier",
               "written unlike this person's usual turns, and asks for something sensitive");
    }
  }
  if (d->verdict != DOBERMAN_BLOCK) RecordStyle({entity, features}, d);
}

bool SessionMemory::ReadStyle(const Fingerprint& entity, state::StyleBaseline* out, Decision* d) {
  std::string error;
  const int timeout_ms = state::StoreLimits{}.busy_timeout_ms;
  const uint64_t inode = store_ != nullptr ? store_->DbInode() : db_inode_;
  if (inode != 0 && state::ReadStyleBaseline(dir_, inode, entity, timeout_ms, out, &error))
    return true;
  if (!error.empty()) return (Unavailable(error, d), false);
  // No base written for this store and boot: the fold writes one, for the next reader.
  if (Store(d) == nullptr) return false;
  size_t skipped = 0;
  if (!store_->FoldStyleUpdates(&skipped, &error) || !store_->LoadStyle(entity, out, &error))
    return (Unavailable(error, d), false);
  return true;
}

void SessionMemory::RecordStyle(const state::StyleUpdate& update, Decision* d) {
  std::string error;
  const int timeout_ms = state::StoreLimits{}.busy_timeout_ms;
  if (state::AppendStyleUpdate(dir_, update, timeout_ms, &error)) return;
  if (Store(d) == nullptr) return;
  size_t skipped = 0;
  if (!store_->FoldStyleUpdates(&skipped, &error) ||
      !state::AppendStyleUpdate(dir_, update, timeout_ms, &error)) {
    Unavailable(error, d);
  }
}

void SessionMemory::Apply(const ParsedPayload& payload, const doberman_pack* pack,
                          doberman_scratch* scratch, Decision* d, bool judge_turns) {
  if (!is_open()) return;
  const int64_t now = std::time(nullptr);
  const Fingerprint session = SessionOf(payload);
  std::string error;
  if (ShowsText(payload.event)) {
    // What the model is shown: its secrets are remembered as secrets; when a rule flagged the
    // content (an injection, say), every value it carries is remembered as untrusted.
    std::vector<RecordedValue> secrets;
    for (const auto& f : d->secret_values) secrets.push_back({f, 0, false});
    const bool scanned = ShownSecrets(payload.calls, pack, scratch, &secrets);
    for (const RecordedValue& v : secrets) {
      const Fingerprint& f = v.fingerprint;
      if (std::find(d->secret_values.begin(), d->secret_values.end(), f) == d->secret_values.end())
        d->secret_values.push_back(f);
    }
    if (!secrets.empty() &&
        (Store(d) == nullptr ||
         !store_->RecordValues(session, secrets, ValueKind::kSecret, now, &error))) {
      if (store_ != nullptr) Unavailable(error, d);
      return;
    }
    if (!scanned) {
      d->Raise(DOBERMAN_AUTH, "values_unrecorded",
               "the shown text could not be searched for secrets completely");
    }
    if (d->flagged) {
      std::vector<RecordedValue> carried;
      const bool complete = CarriedValues(payload.calls, scratch, &carried);
      if (!carried.empty() &&
          (Store(d) == nullptr ||
           !store_->RecordValues(session, carried, ValueKind::kUntrusted, now, &error))) {
        if (store_ != nullptr) Unavailable(error, d);
        return;
      }
      if (!complete) {
        d->Raise(DOBERMAN_AUTH, "values_unrecorded",
                 "flagged content carries more values than the session record takes");
      }
    }
    if (!judge_turns) return;
    // Handoff: a turn or tool output flagged as a possible injection raises the next actions.
    if ((d->raised_tags & (kTagInjection | kTagInjectionHeuristic)) != 0) {
      if (Store(d) == nullptr) return;
      if (!store_->StartHandoff(session, now + kHandoffSeconds, kHandoffActions, &error))
        return Unavailable(error, d);
    }
    if (payload.event == HookEvent::kUserPromptSubmit) JudgeTurn(payload, pack, session, now, d);
    return;
  }
  if (!Acts(payload.event)) return;
  bool handoff = false;
  // A closed store is opened only when some handoff may still be active (the hints' bound).
  if (store_ != nullptr || hints_.handoff_until() >= now) {
    if (Store(d) == nullptr) return;
    if (!store_->TakeHandoff(session, now, &handoff, &error)) return Unavailable(error, d);
  }
  if (handoff && !d->outbound_calls.empty()) {
    d->Raise(DOBERMAN_AUTH, "handoff_flagged_turn",
             "sends data off the machine right after a turn flagged as a possible injection");
  }
  if (d->outbound_calls.empty()) return;
  // A session named by the payload is held in memory by a long-lived process (the service): its
  // tags then spare the fingerprints of values it cannot hold.
  std::vector<Fingerprint> carried;
  bool complete = true;
  if (store_ == nullptr) {
    // Left closed: the hints say which values it may hold; none of them means none is recorded.
    complete = CarriedFingerprints(payload.calls, d->outbound_calls, scratch, nullptr, &carried);
    const bool maybe = std::any_of(carried.begin(), carried.end(),
                                   [&](const Fingerprint& f) { return hints_.MayHold(f); });
    if (!maybe) {
      carried.clear();
    } else if (Store(d) == nullptr) {
      return;
    }
  } else {
    const state::TagFilter* filter = nullptr;
    if (!payload.any_session && !store_->PrepareLookup(session, &filter, &error))
      return Unavailable(error, d);
    complete = CarriedFingerprints(payload.calls, d->outbound_calls, scratch, filter, &carried);
  }
  ValueKind worst = ValueKind::kNone;
  const bool looked =
      carried.empty() ||
      (payload.any_session ? store_->LookupValuesInAnySession(carried, now, &worst, &error)
                           : store_->LookupValues(session, carried, now, &worst, &error));
  if (!looked) return Unavailable(error, d);
  if (worst == ValueKind::kSecret) {
    d->Raise(DOBERMAN_BLOCK, "confirmed_exfil",
             payload.any_session
                 ? "sends off the machine a secret value an agent session was shown earlier"
                 : "sends off the machine a secret value this session was shown earlier");
  } else if (worst == ValueKind::kUntrusted) {
    d->Raise(DOBERMAN_AUTH, "untrusted_echo",
             "sends off the machine a value taken from content a rule flagged as untrusted");
  }
  if (!complete) {
    d->Raise(DOBERMAN_AUTH, "values_unchecked",
             "the call carries more values than the session record can check");
  }
}

std::string LogRowJson(const std::string& host_name, const ParsedPayload& payload,
                       const Decision& d, const std::string& session_hex,
                       const std::string& pack_label, int64_t latency_us) {
  state::LogFields f;
  f.host = host_name;
  f.event = payload.event_name;
  f.tool = payload.tool;
  f.session = session_hex;
  f.verdict = doberman_verdict_name(d.verdict);
  f.status = d.status;
  f.reasons = d.reasons;
  f.rules = d.rules;
  for (const auto& v : d.secret_values) f.values.push_back(state::Hex(v.data(), v.size()));
  f.pack = pack_label;
  f.decided_by = d.DecidedBy();
  f.latency_us = latency_us;
  return state::LogRowJson(f);
}

state::LogRow SessionMemory::MakeLogRow(const std::string& host_name, const ParsedPayload& payload,
                                        const Decision& d, const std::string& pack_label,
                                        int64_t latency_us) const {
  state::LogRow row;
  row.session = SessionOf(payload);
  row.verdict = static_cast<int>(d.verdict);
  row.json = LogRowJson(host_name, payload, d, state::Hex(row.session), pack_label, latency_us);
  return row;
}

bool SessionMemory::Log(const std::string& host_name, const ParsedPayload& payload,
                        const Decision& d, const std::string& pack_label, int64_t latency_us,
                        std::string* error) {
  if (!is_open()) return true;
  state::LogRow row = MakeLogRow(host_name, payload, d, pack_label, latency_us);
  if (store_ != nullptr) return store_->AppendLog(&row, error);
  // The store is still closed: the row goes to the journal, which whoever opens the store next
  // folds in. A journal grown past the bound is folded here; a row it refused goes to the store.
  int64_t size = 0;
  std::string journal_error;
  const bool journaled = state::AppendToJournal(dir_, row, state::StoreLimits{}.busy_timeout_ms,
                                                &size, &journal_error);
  if (journaled && size < kFoldJournalBytes) return true;
  if (Store(nullptr) == nullptr) {
    *error =
        journaled ? "the log journal could not be folded: the store did not open" : journal_error;
    return journaled;
  }
  return journaled ? store_->FoldJournal(error) : store_->AppendLog(&row, error);
}

}  // namespace doberman::guard
