// The loaded, verified, immutable pack: Hyperscan databases per scope plus the decoded rule tables
// the decider walks. Built once by LoadPack; shared read-only by every thread afterwards.
#ifndef DOBERMAN_RUNTIME_PACK_H_
#define DOBERMAN_RUNTIME_PACK_H_

#include <hs/hs_runtime.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blob_loader.h"
#include "doberman/doberman.h"
#include "encoded_runs.h"
#include "envelope.h"
#include "pack_model.h"
#include "shell_normalizer.h"
#include "unicode_fold.h"

namespace doberman::internal {

struct RuleInfo {
  // Views into Pack::rule_text, each followed by a NUL (the C API hands them out as C strings).
  std::string_view id, family, reason, message;
  bool secret_family = false;  // family == "secret": the hit's span is a value (RecordMatch), and
                               // it counts in a script being written (EvaluateUnit)
  uint32_t scopes = 0;
  doberman_verdict verdict = DOBERMAN_AUTH;
  uint8_t tier = 0;
  std::vector<uint32_t> tags;
  std::vector<WhenInstr> when;
  ValidatorSpec validators;
  bool decode = false;
  uint32_t origins = kAllOrigins;
  doberman_verdict mention_cap = DOBERMAN_BLOCK;
  MarkerKind mention_marker = MarkerKind::kNone;
  bool has_patterns = false;
  uint32_t any_count = 0, all_count = 0, none_count = 0, excuse_count = 0;
  std::vector<uint32_t> patterns;  // indices into Pack::patterns
};

struct PatternInfo {
  uint32_t rule = 0;
  Role role = Role::kAny;
  bool som = false;
  // Its rule has excuse patterns: the match is kept for them (decider.cc, NoteExcusable).
  bool excusable = false;
  // An any pattern's: the conditional databases holding patterns of its rule (a bit each,
  // PackDatabase::condition_bit), which a unit it matches must be scanned with too.
  uint32_t conditions_to_scan = 0;
};

// One deserialized Hyperscan database. Patterns are grouped by the exact set of scopes their rule
// serves, so a unit is scanned only with patterns that can apply to it.
struct PackDatabase {
  hs_database_t* db = nullptr;  // lives in `memory`, or in `image` (from the image cache)
  PageMemory memory;
  MappedImage image;
  uint8_t scratch_slot = 0;           // which of Pack::scratch_prototypes was sized for it
  std::vector<uint32_t> pattern_ids;  // Hyperscan id -> pattern index
  uint32_t scopes = 0;                // bit per scope served
  bool conditional = false;           // scanned only after a pattern that names it matched
  uint32_t condition_bit = 0;  // a conditional database's bit in PatternInfo::conditions_to_scan
  // A content database of gated rules only (content_gates.h): scanned in a call only when one of
  // these rules' `when` holds over the rules settled before content. Empty: always scanned.
  std::vector<uint32_t> gate_rules;
  uint32_t gate_index = 0;  // its slot in Scratch::gate_state
  // The origins its rules read (the union of RuleInfo::origins): a prompt unit of another origin
  // skips it, since the match callback would drop every match.
  uint32_t origins = 0;
  PackDatabase() = default;
  PackDatabase(const PackDatabase&) = delete;
  PackDatabase& operator=(const PackDatabase&) = delete;
  ~PackDatabase() = default;
};

// What a unit of one scope is scanned with: every database serving the scope, in pack order.
struct ScopeDb {
  std::vector<const PackDatabase*>
      dbs;  // not owned (Pack::databases); several scopes may share one
  std::vector<const PackDatabase*> condition_dbs;  // scanned only when a trigger asks for them
  bool has_decode_rules = false;  // some rule in this scope counts matches in decoded runs
  bool empty() const { return dbs.empty(); }
};

// Hyperscan scratch sized while loading, one per loading thread (see blob_loader.h); every thread
// that decides clones them.
inline constexpr size_t kScratchSlots = 2;
struct HsScratchFree {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using HsScratchPtr = std::unique_ptr<hs_scratch_t, HsScratchFree>;

struct Pack {
  EnvelopeHeader header;
  std::string name, version, description, hs_version, platform;
  std::vector<RuleInfo> rules;
  // The rules' id, family, reason and message, NUL-terminated, one block for all of them: a hook
  // process decodes every rule on every call, and one allocation replaces two thousand.
  std::unique_ptr<char[]> rule_text;
  std::vector<PatternInfo> patterns;
  std::vector<std::string> tags;
  std::array<ScopeDb, kScopeCount> scopes;
  // Bit per scope whose every database was loaded (LoadOptions::scopes).
  uint32_t loaded_scopes = 0;
  std::vector<std::unique_ptr<PackDatabase>> databases;
  // Null: no database in that slot, or taken (below).
  mutable std::array<HsScratchPtr, kScratchSlots> scratch_prototypes;
  // Slot 0 was cloned from the image cache's scratch record for the mapped images
  // (scratch_record.h) instead of being sized for each of them.
  bool scratch_from_record = false;
  // A handle loaded for one call's fields (a one-shot process) has one scratch: the first one
  // created takes the prototypes instead of cloning them (a clone is a second zero-filled copy of
  // every slot); any later one sizes its own from the databases.
  bool adopt_prototypes = false;
  mutable std::atomic<bool> prototypes_adopted{false};
  std::unique_ptr<ShellNormalizer> shell;
  Limits limits;
  std::vector<uint32_t> when_rules;  // rules with a `when:` program, in evaluation order
  // Per rule: whether it fires is settled before the content is scanned (content_gates.h).
  std::vector<uint8_t> settled_before_content;
  uint32_t gate_count = 0;  // databases with gate_rules
};

struct LoadOptions {
  std::span<const doberman_public_key> trusted;
  const char* state_path = nullptr;
  int64_t now_unix = 0;
  // Databases serving none of these scopes are neither hashed nor loaded.
  uint32_t scopes = kAllScopes;
  // When set, the blob area of `bytes` is not read: fetch_blob(offset, size, dest) copies that
  // range of the blob area to `dest` (private memory) and returns false on failure. Only databases
  // this handle loads are fetched, each right before its digest is checked.
  BlobFetch fetch_blob;
  // Deserialized databases from an earlier process (image_cache.h); null: decode every one.
  const ImageCache* images = nullptr;
};

// The scopes a call's fields are scanned in (bit (1u << doberman_field) per field).
uint32_t ScopesForFields(uint32_t fields);

// Bit (1u << doberman_field) per field of `call` that holds text: the fields deciding it scans.
uint32_t FieldsOfCall(const doberman_call& call);

// Loads a pack from `bytes`, which the pack does not keep: tables are decoded into owned strings
// and Hyperscan copies each database. The caller must hold `bytes` in private memory for the call
// (a shared mapping could change between a blob's digest check and its use). See
// doberman_pack_load_memory for the order of checks.
doberman_status LoadPack(std::span<const uint8_t> bytes, const LoadOptions& options,
                         std::unique_ptr<Pack>* out, std::string* error);

// Fuzzing hazard: verifies and decodes a bare FlatBuffers payload with no signature and no
// Hyperscan databases. Never reachable from the public API; exists so fuzzers can reach the table
// decoder that the signature otherwise shields.
doberman_status FUZZING_ONLY_DecodePayload(std::span<const uint8_t> payload, std::string* error);

// Fuzzing hazard: a whole envelope with the signature check skipped, through table decoding and the
// database blob bounds and digest checks (a blob reaches Hyperscan only when its digest matches,
// which a fuzzer cannot forge). Never reachable from the public API.
doberman_status FUZZING_ONLY_LoadUnsigned(std::span<const uint8_t> bytes, std::string* error);

// The platform variant the current CPU runs best: "avx512", "avx2" or "generic".
std::span<const char* const> PreferredPlatforms();

}  // namespace doberman::internal

// The opaque C handle is the internal Pack.
struct doberman_pack : doberman::internal::Pack {};

#endif  // DOBERMAN_RUNTIME_PACK_H_
