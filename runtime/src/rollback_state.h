// The host's record of the highest pack revision accepted per pack name, so that a validly signed
// but older pack cannot be replayed (rollback). A small text file, one "name revision" line per
// pack.
#ifndef DOBERMAN_RUNTIME_ROLLBACK_STATE_H_
#define DOBERMAN_RUNTIME_ROLLBACK_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "doberman/doberman.h"

namespace doberman::internal {

// Refuses (DOBERMAN_E_ROLLBACK) when `revision` is lower than the one recorded for `pack_name`;
// otherwise records it when higher (atomic replace, mode 0600). DOBERMAN_E_STATE on I/O problems or
// a corrupt file (fail closed: a state file we cannot read does not silently disable the check).
doberman_status CheckAndRecordRevision(const char* state_path, std::string_view pack_name,
                                       uint64_t revision, std::string* error);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_ROLLBACK_STATE_H_
