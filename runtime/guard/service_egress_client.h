// Asks the warm service (`doberman-guard serve`) an egress question over its unix socket, the way a
// proxy does (`DOBERMAN/1 EGRESS`, docs/service.md): the service judges the URL with its packs and
// against every session's record. Used by `squid-acl --socket`.
#ifndef DOBERMAN_GUARD_SERVICE_EGRESS_CLIENT_H_
#define DOBERMAN_GUARD_SERVICE_EGRESS_CLIENT_H_

#include <string>

#include "guard_output.h"

namespace doberman::guard {

// Raises `d` with the service's verdict, reasons and messages for a request to `url` by `method`.
// A service that cannot be reached, is too slow (`timeout_ms`) or answers something unreadable
// raises `d` to BLOCK: the broker refuses what it could not have judged.
void AskServiceAboutEgress(const std::string& socket_path, const std::string& url,
                           const std::string& method, int timeout_ms, Decision* d);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_SERVICE_EGRESS_CLIENT_H_
