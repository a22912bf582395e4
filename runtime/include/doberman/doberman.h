/* doberman.h: the stable C ABI of libdoberman_runtime. Loads a signed pack and decides
 * PASS/AUTH/BLOCK for one agent action (a tool call or a prompt turn) in microseconds.
 *
 * Contract, everywhere:
 *  - Fail closed: every function that decides writes a verdict, and on any non-OK status that
 * verdict is AUTH or higher, never PASS.
 *  - Raise-only: the verdict is the maximum over every rule that fired; nothing lowers it.
 *  - No secret leaves through this API: results carry rule ids, reason codes, byte spans and keyed
 *    fingerprints, never matched text.
 *  - Threads: a doberman_pack is immutable after load and may be shared by any number of threads; a
 *    doberman_scratch belongs to one thread at a time. Nothing here logs or prints.
 *  - Structs that may grow start with `uint32_t struct_size`; set it to sizeof(the struct) you
 * compiled with.
 *  - Status and enum values are append-only: never renumbered.
 */
#ifndef DOBERMAN_DOBERMAN_H_
#define DOBERMAN_DOBERMAN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOBERMAN_ABI_VERSION 1

typedef enum doberman_status {
  DOBERMAN_OK = 0,
  DOBERMAN_E_ARGUMENT = 1,         /* a NULL pointer, a bad struct_size, an invalid enum value */
  DOBERMAN_E_IO = 2,               /* the pack file cannot be read */
  DOBERMAN_E_TRUNCATED = 3,        /* shorter than its envelope says, or than any envelope */
  DOBERMAN_E_MAGIC = 4,            /* not a Doberman pack */
  DOBERMAN_E_ENVELOPE_VERSION = 5, /* an envelope version this runtime does not know */
  DOBERMAN_E_UNKNOWN_KEY = 6,      /* signed by a key that is not pinned */
  DOBERMAN_E_SIGNATURE = 7,        /* the Ed25519 signature does not verify */
  DOBERMAN_E_STRUCTURE =
      8, /* signed, but the payload fails FlatBuffers verification or cross-checks */
  DOBERMAN_E_HS_VERSION = 9,      /* compiled by another Hyperscan version */
  DOBERMAN_E_HS_PLATFORM = 10,    /* no database variant runs on this CPU */
  DOBERMAN_E_HS_DESERIALIZE = 11, /* Hyperscan refused a database */
  DOBERMAN_E_EXPIRED = 12,        /* past its signed expiry */
  DOBERMAN_E_ROLLBACK = 13,       /* revision lower than the last one accepted on this host */
  DOBERMAN_E_STATE = 14,          /* the rollback state file cannot be read or written */
  DOBERMAN_E_NO_MEMORY = 15,
  DOBERMAN_E_SCAN = 16,  /* Hyperscan reported an error while scanning */
  DOBERMAN_E_LIMIT = 17, /* an input bound was exceeded (size, segments, depth, decoded runs) */
  DOBERMAN_E_UNPARSEABLE = 18, /* a shell command could not be parsed (unbalanced quoting) */
  DOBERMAN_E_INTERNAL = 19,
  DOBERMAN_E_NO_PACK = 20, /* decide called without a loaded pack */
  DOBERMAN_E_NOT_LOADED =
      21 /* the call has a field whose databases this pack handle did not load */
} doberman_status;

typedef enum doberman_verdict {
  DOBERMAN_PASS = 0,
  DOBERMAN_AUTH = 1, /* a person must approve */
  DOBERMAN_BLOCK = 2
} doberman_verdict;

/* Where a prompt segment came from. Untrusted origins may be held to stricter rules. */
typedef enum doberman_origin {
  DOBERMAN_ORIGIN_TYPED = 0,
  DOBERMAN_ORIGIN_PASTED = 1,
  DOBERMAN_ORIGIN_TOOL_FETCHED = 2
} doberman_origin;

/* Which field of the call a hit was found in. */
typedef enum doberman_field {
  DOBERMAN_FIELD_TOOL = 0,
  DOBERMAN_FIELD_COMMAND = 1,
  DOBERMAN_FIELD_PATH = 2,
  DOBERMAN_FIELD_CONTENT = 3,
  DOBERMAN_FIELD_URL = 4,
  DOBERMAN_FIELD_ARGS = 5,
  DOBERMAN_FIELD_PROMPT = 6,
  DOBERMAN_FIELD_NONE = 7 /* a rule that fired from its `when:` expression alone */
} doberman_field;

typedef struct doberman_pack doberman_pack;
typedef struct doberman_scratch doberman_scratch;

typedef struct doberman_public_key {
  uint8_t bytes[32]; /* Ed25519 public key */
} doberman_public_key;

typedef struct doberman_load_options {
  uint32_t struct_size;
  const doberman_public_key* trusted_keys; /* pinned keys; at least one */
  size_t trusted_key_count;
  /* File recording the highest revision accepted per pack name on this host; NULL disables the
   * rollback check. Created 0600 when missing. */
  const char* state_path;
  int64_t now_unix; /* 0: the current time */
  /* Appended in 0.2 (read only when struct_size covers it). Bit (1u << doberman_field) per field
   * this handle will be asked about; 0 means every field. A one-shot process (a hook) that knows
   * its call loads, hashes and deserializes only the databases those fields need; a call with any
   * other non-empty field then gets DOBERMAN_E_NOT_LOADED and at least AUTH. */
  uint32_t fields;
  /* Appended in 0.3. A directory of deserialized databases ("images") shared by the processes of
   * this user: a database is mapped from its image there, found by the signed digest of its stored
   * bytes, instead of being decoded; one decoded from the pack has its image written there. Created
   * 0700 when missing; ignored (every database decoded) when it or a parent is owned by another
   * user or writable by group or others. Worth it for one-shot processes; NULL: no cache. The
   * directory is trusted as the user's own files are (docs/architecture.md, "The image cache"). */
  const char* image_cache_dir;
} doberman_load_options;

/* Loads and verifies a pack: envelope bounds and magic, Ed25519 signature over the header and rule
 * tables (before any parsing), FlatBuffers verification with limits, Hyperscan version and
 * platform, then for each database needed its BLAKE2b-256 digest (named in the signed tables)
 * before Hyperscan deserializes it, expiry, rollback. On success *out owns the pack (free with
 * doberman_pack_free). On failure *out is NULL and, when error_buf is not NULL, a one-line message
 * is written there. */
doberman_status doberman_pack_load_file(const char* path, const doberman_load_options* options,
                                        doberman_pack** out, char* error_buf,
                                        size_t error_buf_size);
doberman_status doberman_pack_load_memory(const uint8_t* data, size_t size,
                                          const doberman_load_options* options, doberman_pack** out,
                                          char* error_buf, size_t error_buf_size);
void doberman_pack_free(doberman_pack* pack);

typedef struct doberman_pack_info {
  uint32_t struct_size;
  const char* name;
  const char* version;
  uint64_t revision;
  int64_t created_unix;
  int64_t expires_unix; /* 0: never */
  uint32_t rule_count;
  uint32_t pattern_count;
  const char* hs_version;
  const char* platform; /* the database variant loaded on this CPU */
} doberman_pack_info;
/* Strings stay valid while the pack lives. */
doberman_status doberman_pack_get_info(const doberman_pack* pack, doberman_pack_info* info);

/* One line describing this runtime: its version, the pack envelope versions it reads, the Hyperscan
 * version it scans with and its build type, e.g. "0.1.0; packs: envelope 2-3; Hyperscan 5.4.0
 * 2023-02-08; RelWithDebInfo". A static string, never NULL. */
const char* doberman_runtime_version(void);

/* Rule metadata by index (as found in doberman_hit.rule). NULL when out of range. */
const char* doberman_rule_id(const doberman_pack* pack, uint32_t rule);
const char* doberman_rule_reason(const doberman_pack* pack, uint32_t rule);
const char* doberman_rule_message(const doberman_pack* pack, uint32_t rule);

/* Per-thread working memory. Not thread-safe: one scratch per thread. Reused across calls; it grows
 * to the largest input seen and then stays, so warm calls do not allocate. */
doberman_status doberman_scratch_create(const doberman_pack* pack, doberman_scratch** out);
void doberman_scratch_free(doberman_scratch* scratch);

typedef struct doberman_string {
  const char* data;
  size_t size;
} doberman_string;

typedef struct doberman_prompt_segment {
  doberman_string text;
  doberman_origin origin;
} doberman_prompt_segment;

/* One agent action. Every field is optional (data NULL or size 0 means absent); strings need not be
 * NUL-terminated and are not retained after doberman_decide returns. */
typedef struct doberman_call {
  uint32_t struct_size;
  doberman_string tool;    /* tool name: Bash, Write, WebFetch, mcp__server__tool */
  doberman_string command; /* shell command line */
  doberman_string path;    /* target file path */
  doberman_string cwd;     /* working directory, to make `path` relative */
  doberman_string content; /* written content */
  doberman_string url;
  const doberman_string* args; /* MCP argument strings (keys and values) */
  size_t arg_count;
  const doberman_prompt_segment* prompt;
  size_t prompt_count;
} doberman_call;

typedef struct doberman_hit {
  uint32_t rule;            /* index: doberman_rule_id(pack, rule) */
  doberman_verdict verdict; /* this rule's contribution after tier and mention caps */
  doberman_field field;
  uint32_t unit;           /* which segment / arg / prompt segment within the field */
  uint64_t start, end;     /* byte span in the unit as matched (start == end when unknown) */
  uint8_t fingerprint[16]; /* keyed BLAKE2b of the matched bytes; zero when no span */
  uint8_t decoded;         /* 1: found inside a decoded base64/hex/percent run */
} doberman_hit;

typedef struct doberman_result {
  uint32_t struct_size;
  doberman_verdict verdict;
  doberman_status status;   /* DOBERMAN_OK, or why the verdict was raised to at least AUTH */
  const doberman_hit* hits; /* owned by the scratch; valid until its next use */
  size_t hit_count;
  size_t hits_dropped; /* hits beyond the scratch's capacity (the verdict still counts them) */
} doberman_result;

/* Decides one call. Always writes result->verdict (AUTH when the status is not OK). */
doberman_status doberman_decide(const doberman_pack* pack, doberman_scratch* scratch,
                                const doberman_call* call, doberman_result* result);

const char* doberman_status_name(doberman_status status);    /* "DOBERMAN_E_SIGNATURE" */
const char* doberman_verdict_name(doberman_verdict verdict); /* "PASS", "AUTH", "BLOCK" */

/* Sets the 32-byte key used for hit fingerprints in this scratch (default: random per scratch, so
 * fingerprints are comparable only within one process). */
doberman_status doberman_scratch_set_fingerprint_key(doberman_scratch* scratch,
                                                     const uint8_t key[32]);

/* ---- Appended in 0.3: what a host adapter needs besides deciding, so that adapters
 * (doberman-guard among them) use this header only. */

/* Reads a public key file (the "doberman public key (ed25519) v1" text dobermanc keygen writes).
 * Refuses anything but a regular file of at most 4 KiB, and never waits on a FIFO or device. On
 * failure a one-line message naming the path is written to error_buf (when not NULL). */
doberman_status doberman_public_key_read_file(const char* path, doberman_public_key* out,
                                              char* error_buf, size_t error_buf_size);

/* The doberman_load_options.fields bits `call` needs: (1u << field) for each non-empty field. A
 * one-shot process that knows its call loads only those databases. 0 for a NULL call. */
uint32_t doberman_call_fields(const doberman_call* call);

/* For rule authors and tools: the canonical views that rules match for one text, each passed to
 * `fn` in order (`unit` counts from 0). DOBERMAN_FIELD_COMMAND: the canonical shell segments
 * (status DOBERMAN_E_UNPARSEABLE or DOBERMAN_E_LIMIT when normalization stopped early; the segments
 * up to there are still passed); DOBERMAN_FIELD_PROMPT: the folded text; DOBERMAN_FIELD_PATH: the
 * canonical path, relative to `cwd` when inside it. Other fields: DOBERMAN_E_ARGUMENT. Views are
 * valid only during the call to `fn`. */
typedef void (*doberman_view_fn)(void* context, size_t unit, doberman_string view);
doberman_status doberman_canonical_views(const doberman_pack* pack, doberman_field field,
                                         doberman_string text, doberman_string cwd,
                                         doberman_view_fn fn, void* context);

/* ---- Appended in 0.4: what session memory needs (a ledger of values seen, matched later). */

/* 1 when rule `rule` carries the tag `tag` ("egress", "secret" ...), 0 when not or on a bad
 * argument. */
int doberman_rule_has_tag(const doberman_pack* pack, uint32_t rule, const char* tag);

/* Keyed fingerprints of the values `text` carries, computed exactly as a hit's fingerprint (the
 * scratch's key, the value bounded as a secret hit's value is), so that a value recorded from a hit
 * can be recognised when it appears again: one value per run of token characters
 * ([A-Za-z0-9+/=_-]) of at least `min_length` bytes, in the text and in one decoded layer of its
 * base64, hex and percent-encoded runs (`decoded` is then 1). Calls `fn` once per distinct
 * fingerprint, at most `max_values` times; DOBERMAN_E_LIMIT when the text carried more (or more
 * encoded runs than the pack allows): the caller must then fail closed. The values themselves are
 * never passed out. */
typedef void (*doberman_fingerprint_fn)(void* context, const uint8_t fingerprint[16], int decoded);
doberman_status doberman_value_fingerprints(doberman_scratch* scratch, doberman_string text,
                                            size_t min_length, size_t max_values,
                                            doberman_fingerprint_fn fn, void* context);

/* ---- Appended in 0.5: a cheap first look before the fingerprints. */

/* The same values as doberman_value_fingerprints, each first given a 64-bit tag: SipHash-2-4 under
 * a key derived from the scratch's fingerprint key (keyed, like the fingerprint, so a tag says
 * nothing without the key), about twenty times cheaper than the fingerprint. `filter` (NULL: accept
 * all) is asked once per distinct value with its tag; only values it accepts get their fingerprint
 * computed and are passed to `fn` with tag and fingerprint. A ledger that keeps each recorded
 * value's tag can so skip the fingerprints of every value it cannot hold. Values are counted
 * against `max_values` whether accepted or not (DOBERMAN_E_LIMIT past it, as there). Distinct
 * values are told apart by tag: two values whose 64-bit tags collide count as one. */
typedef int (*doberman_tag_filter_fn)(void* context, uint64_t tag);
typedef void (*doberman_tagged_value_fn)(void* context, uint64_t tag, const uint8_t fingerprint[16],
                                         int decoded);
doberman_status doberman_value_tags(doberman_scratch* scratch, doberman_string text,
                                    size_t min_length, size_t max_values,
                                    doberman_tag_filter_fn filter, doberman_tagged_value_fn fn,
                                    void* context);
/* The tag and fingerprint of exactly `value` (as one value of the walk above would get them): for
 * a caller that knows a value's span, such as a hit's, and wants its tag. */
doberman_status doberman_value_tag(const doberman_scratch* scratch, doberman_string value,
                                   uint64_t* tag, uint8_t fingerprint[16]);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOBERMAN_DOBERMAN_H_ */
