// `doberman-guard squid-acl [--pack P] [--pubkey K] [--allow FILE]`: a Squid external ACL helper
// (the helper protocol with concurrency channel ids). Squid passes, per request, the URL, method,
// destination host and port (external_acl_type ... %URI %METHOD %DST %PORT); the helper answers OK
// only when the destination is on the default-deny allowlist (one `host`, `host:port` or
// `*.domain` a line; IP literals and URLs with credentials are never allowed) AND the pack judges a
// fetch of that URL PASS (secrets, exfiltration shapes and look-alike hosts are refused). Anything
// else, including a line it cannot read or an error, is ERR: the connection is never opened.
#ifndef DOBERMAN_GUARD_SQUID_ACL_H_
#define DOBERMAN_GUARD_SQUID_ACL_H_

#include <string>

#include "guard_runner.h"

namespace doberman::guard {

// Answers Squid on stdin/stdout until stdin closes. Returns 0, or 3 when the allowlist cannot be
// read (Squid then sees the helper die and refuses, as its helper failure handling says).
int RunSquidAcl(const Options& o, const std::string& allow_file);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_SQUID_ACL_H_
