// The egress broker's connection history (issue 19): what the broker saw can raise a later
// decision, never lower one. `squid-acl --state-dir` records the host of every request it answers
// (refused ones as refused); each decision of a hook with `--broker` and the same state directory
// first records the hosts its action names, then takes the connections recorded since the previous
// decision: a refused connection, or one to a host no judged action named (a URL built at run time,
// a child process, an install script), raises it to AUTH. Hosts are stored as keyed fingerprints
// only.
//
// The broker cannot tell sessions apart, so the history is the machine's: the next decision of any
// session on it is the one raised.
#ifndef DOBERMAN_GUARD_BROKER_HISTORY_H_
#define DOBERMAN_GUARD_BROKER_HISTORY_H_

#include <string>
#include <vector>

#include "guard_output.h"
#include "hook_payload.h"
#include "session_memory.h"

namespace doberman::guard {

// The host names an action's text names: the host of every URL in its command, URL and arguments,
// and every word there that reads as a DNS name (dot-separated labels, the last one letters only),
// lower case.
std::vector<std::string> NamedHosts(const ParsedPayload& payload);

// Records one connection the broker answered (squid-acl).
bool RecordBrokerConnection(SessionMemory& memory, const std::string& host, bool refused,
                            std::string* error);

// Records `payload`'s named hosts, then raises `d` for the connections recorded since the previous
// decision. A store failure raises to AUTH.
void ApplyBrokerHistory(SessionMemory& memory, const ParsedPayload& payload, Decision* d);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_BROKER_HISTORY_H_
