// Session memory for doberman-guard: what the agent's tools showed it is remembered (as keyed
// fingerprints, per session) and judged again when a later action tries to send it off the machine;
// every decision is logged, redacted and hash-chained. The store is runtime/state; this file is the
// policy: what is recorded when, what a match raises, and the log row. Raise-only: nothing here can
// lower a verdict, and a store that cannot be read or written raises to AUTH.
#ifndef DOBERMAN_GUARD_SESSION_MEMORY_H_
#define DOBERMAN_GUARD_SESSION_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "doberman/doberman.h"
#include "guard_output.h"
#include "hook_payload.h"
#include "ledger_hints.h"
#include "state_dir.h"
#include "state_store.h"

namespace doberman::guard {

// Repeat record: a blocked turn is remembered this long; a turn this similar (estimated Jaccard of
// word 3-shingles) to one of them is a resubmission.
inline constexpr int64_t kRepeatWindowSeconds = 600;
inline constexpr double kRepeatSimilarity = 0.5;
// Handoff: after a flagged turn, the session's next actions (at most this many, within this time)
// that send data off the machine need a person's approval.
inline constexpr int64_t kHandoffSeconds = 600;
inline constexpr int kHandoffActions = 5;
// Stylometry: inert until this many released turns; an outlier is this many standard deviations
// from the baseline on some feature.
inline constexpr int64_t kStyleMinTurns = 100;
inline constexpr double kStyleOutlierZ = 4.0;
// A one-shot process that journals its log row folds the journal into the store once it is this
// long (about a thousand rows), so that no reader has much to fold.
inline constexpr int64_t kFoldJournalBytes = 256 << 10;

// Events whose text is shown to the model (tool output, files about to be read, prompts): their
// secrets are recorded.
bool ShowsText(HookEvent event);

// Whether recording the secrets `payload` shows decides text as written content (tool output,
// files), so that a one-shot process must load the content databases; typed and pasted prompt
// turns are searched with the prompt databases their decision loads anyway.
bool ShownTextNeedsContent(const ParsedPayload& payload);

class SessionMemory {
 public:
  // Opens the state directory and its store. False with `error` when it cannot be trusted or
  // opened; `rebuilt` when the store was corrupt and has been recreated (earlier records are lost).
  // `lazy` (a one-shot hook process): when the store's header is current and its hints file
  // usable (state::LedgerHints), the store itself is opened only once a call needs it - a value
  // the hints may hold, a possible handoff, something to record, a prompt turn - and the log row
  // goes to the journal (state/log_journal.h). Opening SQLite is most of session memory's cost
  // in a process that decides one call.
  bool Open(const std::string& dir, bool* rebuilt, std::string* error, bool lazy = false);

  // The key fingerprints are made with: the scratch must use it so that hits' fingerprints match
  // the ledger's.
  const uint8_t* key() const { return dir_.key.data(); }
  const std::string& dir() const { return dir_.path; }

  // After a payload is decided: records what its tool output (or prompt) showed and judges its
  // outbound calls against the session's record, raising `d`. Secrets in shown text are found by
  // deciding that text once more as written content (the secret rules' scope) with `pack`; that
  // decision only feeds the record, never the verdict.
  // With `judge_turns` false (DOBERMAN_TURN_GATE=off) prompt turns are only recorded: no repeat
  // record, style baseline or handoff.
  void Apply(const ParsedPayload& payload, const doberman_pack* pack, doberman_scratch* scratch,
             Decision* d, bool judge_turns = true);

  // Adds to `d->secret_values` the secrets `pack` finds in the payload's shown text (a further pack
  // of several; Apply then records them with the first pack's).
  void AddShownSecrets(const ParsedPayload& payload, const doberman_pack* pack,
                       doberman_scratch* scratch, Decision* d) const;

  // Drops the store's connection (before fork: a SQLite connection must not cross it).
  void Close() { store_.reset(); }

  // Appends the decision's redacted row to the log. A failure raises nothing (the answer is
  // already decided) but is returned so the caller can report it on stderr.
  bool Log(const std::string& host_name, const ParsedPayload& payload, const Decision& d,
           const std::string& pack_label, int64_t latency_us, std::string* error);

  // The decision's log row, for a caller that writes rows in batches (the service).
  state::LogRow MakeLogRow(const std::string& host_name, const ParsedPayload& payload,
                           const Decision& d, const std::string& pack_label,
                           int64_t latency_us) const;
  bool is_open() const { return store_ != nullptr || lazy_; }
  // The store and its directory (key included), for policies kept in files of their own
  // (broker_history.h); null when not open.
  state::StateStore* store() { return store_.get(); }
  const state::StateDir& state_dir() const { return dir_; }

  // The fingerprint a session id is stored under. Const, but it keeps the last one in a cache:
  // like the store, one SessionMemory serves one thread at a time (each service worker has its
  // own).
  state::Fingerprint SessionOf(const ParsedPayload& payload) const;

 private:
  // A store failure: the call is raised to AUTH with the reason.
  static void Unavailable(const std::string& error, Decision* d);
  // The store, opened now if it was left closed (`lazy`). Null after raising `d` (when given) to
  // AUTH; a store rebuilt on this opening raises `d` too.
  state::StateStore* Store(Decision* d);
  void JudgeTurn(const ParsedPayload& payload, const doberman_pack* pack,
                 const state::Fingerprint& session, int64_t now, Decision* d);
  // The person's style baseline: from the journal while its base is current (no store opened),
  // else folded through the store. False after raising `d`.
  bool ReadStyle(const state::Fingerprint& entity, state::StyleBaseline* out, Decision* d);
  // Journals a released turn's style; a full journal is folded through the store first.
  void RecordStyle(const state::StyleUpdate& update, Decision* d);

  state::StateDir dir_;
  uint64_t db_inode_ = 0;  // of the store's database, when it looked current at Open
  std::unique_ptr<state::StateStore> store_;
  bool lazy_ = false;                               // opened lazily: the store may still be closed
  state::LedgerHints hints_;                        // lazily opened: what the closed store can hold
  mutable state::LastSessionFingerprint sessions_;  // a cache: SessionOf stays const
};

// The redacted row of one decision (no seq or time: the store adds those): host, event, tool,
// session fingerprint, verdict, reasons, rules, value fingerprints, pack, latency.
std::string LogRowJson(const std::string& host_name, const ParsedPayload& payload,
                       const Decision& d, const std::string& session_hex,
                       const std::string& pack_label, int64_t latency_us);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_SESSION_MEMORY_H_
