// `doberman-guard serve`: the warm service. It loads and verifies the pack once, keeps session
// memory open, and answers hook requests on a unix socket (0600, this user's peers only) exactly as
// the one-shot `doberman-guard hook HOST` would, so a thin client (doberman-hook) can forward a
// host's hook call in well under a millisecond. SIGHUP reloads the pack (verified fully first; a
// bad or older file leaves the current one in force); SIGTERM and SIGINT stop it.
//
// Wire protocol (one request per connection):
//   request:  "DOBERMAN/1 HOOK <host>\n" then the payload bytes, then end of stream (shutdown)
//   response: "DOBERMAN/1 <exit code> <stdout bytes> <stderr bytes>\n" then those bytes
// A request that is malformed, too large or too slow gets the host's refusal, or is closed when
// not even the host can be read; the client then refuses or runs the one-shot hook itself.
#ifndef DOBERMAN_GUARD_GUARD_SERVICE_H_
#define DOBERMAN_GUARD_GUARD_SERVICE_H_

#include <string>

#include "guard_runner.h"

namespace doberman::guard {

struct ServiceOptions {
  std::string socket;  // --socket, $DOBERMAN_SOCKET, or DefaultSocketPath()
  int workers = 4;     // requests decided at once
  int queue = 64;      // connections waiting beyond those (the backlog); more are refused
  long request_timeout_ms = 2000;  // reading a request and writing its answer
};

// $XDG_RUNTIME_DIR/doberman/guard.sock, else /tmp/doberman-UID/guard.sock.
std::string DefaultSocketPath();

// Runs until SIGTERM or SIGINT. Returns the process exit code (0 after a clean stop, 3 when the
// socket or the first pack cannot be set up).
int RunServe(const Options& o, const ServiceOptions& service);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_GUARD_SERVICE_H_
