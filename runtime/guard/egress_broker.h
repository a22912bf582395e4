// The egress broker as the engine sees it (issue 19): a host's configuration names a broker, a
// forward proxy (Squid with `doberman-guard squid-acl`) that the operator declares every connection
// of the agent must go through. For an action whose only concern is where an HTTP connection goes
// (every raising rule tagged `proxy_enforceable`), whose destinations parse unambiguously and are
// all on the broker's allowlist, and while the broker answers, the static AUTH becomes PASS with
// the reason `broker_enforced`: the connection is decided at the socket instead. Anything else (a
// BLOCK, another rule, an error, a destination the guard cannot read, a broker that is down or not
// declared enforcing) keeps the decision as it was.
#ifndef DOBERMAN_GUARD_EGRESS_BROKER_H_
#define DOBERMAN_GUARD_EGRESS_BROKER_H_

#include <string>
#include <vector>

#include "egress_allowlist.h"
#include "guard_output.h"
#include "hook_payload.h"

namespace doberman::guard {

struct BrokerConfig {
  std::string path;  // the configuration file, for messages
  std::string proxy_host;
  int proxy_port = 0;
  std::string allow_file;
  Allowlist allow;
  // `enforced namespace|firewall`: the operator's statement that the agent has no other way out.
  // Without it the broker is advisory and nothing is lowered.
  std::string enforced;
};

// Reads a broker file: `proxy HOST:PORT`, `allow FILE`, `enforced namespace|firewall`, `#`
// comments. False with `error` (file:line) on anything else.
bool ReadBrokerConfig(const std::string& path, BrokerConfig* out, std::string* error);

// The hosts of every call's destinations, when each call is a plain fetch the guard can read for
// certain (curl or wget with known options and literal http(s) URLs, or a tool's URL field);
// false (ambiguous) otherwise.
bool BrokerDestinations(const ParsedPayload& payload,
                        std::vector<std::pair<std::string, std::string>>* host_ports);

// Lowers `d` from AUTH to PASS (reason broker_enforced) when every condition above holds.
void ApplyBroker(const BrokerConfig& broker, const ParsedPayload& payload, Decision* d);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_EGRESS_BROKER_H_
