/* Doberman session memory: the C ABI for embedders (libdoberman_state, beside the runtime).
 *
 * What a session's tools showed the model is remembered as keyed fingerprints (never the values),
 * and judged again when a later call tries to send it off the machine: a secret shown earlier is a
 * confirmed exfiltration (BLOCK); a value from content flagged as untrusted, AUTH. Decisions are
 * logged redacted and hash-chained. The store is a private directory (0700) with a SQLite database
 * that many processes share. doberman-guard's --state-dir is built on the same code.
 *
 * Every function fails closed: a failure returns a status other than DOBERMAN_OK, and the caller
 * must then raise its decision to at least AUTH (doberman_memory_check_outbound does so itself).
 * A memory may be used by one thread at a time. */
#ifndef DOBERMAN_DOBERMAN_MEMORY_H_
#define DOBERMAN_DOBERMAN_MEMORY_H_

#include "doberman/doberman.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct doberman_memory doberman_memory;

/* Opens (creating) the state directory and its store. `*rebuilt` (when not NULL) is set to 1 when
 * the store was corrupt and has been recreated: what it recorded is lost, and the caller should
 * raise the current decision to AUTH. On failure a one-line message is written to error_buf. */
doberman_status doberman_memory_open(const char* state_dir, doberman_memory** out, int* rebuilt,
                                     char* error_buf, size_t error_buf_size);
void doberman_memory_close(doberman_memory* memory);

/* Gives `scratch` the memory's fingerprint key, so that its hits and value fingerprints match the
 * record. Required for every scratch passed below. */
doberman_status doberman_memory_bind_scratch(const doberman_memory* memory,
                                             doberman_scratch* scratch);

/* Text on its way to the model in session `session` (tool output, a file about to be read, a
 * prompt): the secrets it carries (what rules tagged "secret" find in it as written content, every
 * occurrence) are recorded. An empty session means the host user's. DOBERMAN_E_LIMIT when the
 * search stopped early: some values may be missing. */
doberman_status doberman_memory_record_shown(doberman_memory* memory, const doberman_pack* pack,
                                             doberman_scratch* scratch, doberman_string session,
                                             doberman_string tool, doberman_string text);

/* Content the caller's decision flagged (an injection in fetched text, say): every value it carries
 * is recorded as untrusted. */
doberman_status doberman_memory_record_untrusted(doberman_memory* memory, doberman_scratch* scratch,
                                                 doberman_string session, doberman_string text);

/* A call the caller classified as sending data off the machine (for instance, a hit of a rule
 * tagged "egress"): `*verdict` is what its values match in the session's record: PASS nothing,
 * AUTH a value recorded as untrusted, BLOCK a secret shown earlier. On any failure `*verdict` is
 * AUTH and the status says why. Combine it with the call's own verdict by taking the maximum. */
doberman_status doberman_memory_check_outbound(doberman_memory* memory, doberman_scratch* scratch,
                                               doberman_string session, const doberman_call* call,
                                               doberman_verdict* verdict);

/* Appends one redacted row to the decision log: only what is passed here is stored (the session
 * as a keyed fingerprint). `doberman-guard log --state-dir DIR` prints and verifies it. */
doberman_status doberman_memory_log(doberman_memory* memory, doberman_string session,
                                    const char* host, const char* event, const char* tool,
                                    doberman_verdict verdict, const char* const* reasons,
                                    size_t reason_count, const char* const* rules,
                                    size_t rule_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOBERMAN_DOBERMAN_MEMORY_H_ */
