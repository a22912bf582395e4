// `doberman-guard mcp-proxy [--name N] [--pack P] [--pubkey K] [--state-dir D] -- SERVER ARGS...`:
// sits between an MCP client and a stdio MCP server, relaying JSON-RPC messages (one per line) both
// ways and judging what passes: a `tools/call` request as a call of tool `mcp__N__TOOL` with its
// arguments (refused with a JSON-RPC error unless PASS: nobody can approve an AUTH here), its
// result and a `resources/read` result as tool output (withheld, replaced by an error, unless
// PASS), and each tool a `tools/list` result offers (a poisoned description, or one that changed
// since first sight in this session - a rug pull - is removed from the list, and calls to it are
// refused). Everything else is relayed byte for byte. Fail closed: a message that cannot be read is
// never forwarded, and when the server's output cannot be read or the server exits, every call
// still waiting is answered with an error.
#ifndef DOBERMAN_GUARD_MCP_PROXY_H_
#define DOBERMAN_GUARD_MCP_PROXY_H_

#include <string>
#include <vector>

#include "guard_runner.h"

namespace doberman::guard {

struct McpProxyOptions {
  std::string name;                      // N in mcp__N__TOOL (default: the server command's name)
  std::vector<std::string> server_argv;  // the stdio server to run
  size_t max_message_bytes = kMaxPayloadBytes;
};

// Runs the proxy on stdin/stdout until the client closes its side and the server has exited.
// Returns the server's exit status (or 125 when it could not be started).
int RunMcpProxy(const Options& o, const McpProxyOptions& mo);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_MCP_PROXY_H_
