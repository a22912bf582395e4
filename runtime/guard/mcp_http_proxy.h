// `doberman-guard mcp-proxy --upstream URL --listen HOST:PORT`: the MCP proxy for servers that
// speak MCP's streamable HTTP transport. It listens where the client's MCP configuration points,
// judges every JSON-RPC message of every POST (and of the server's answers, JSON or an event
// stream, and of the server's own event stream on GET) with the same judge as the stdio proxy
// (mcp_judge.h), and forwards what passes to the upstream endpoint, one event at a time (nothing
// buffered beyond the message being judged). Fail closed: a request that cannot be read is answered
// with an error and never forwarded; when the upstream cannot be reached, or its stream ends or
// breaks before it answered, every request it did not answer gets a JSON-RPC error.
//
// It links cpp-httplib (Debian's libcpp-httplib, a shared library), so it is its own dynamically
// linked program, doberman-mcp-http, which the static doberman-guard runs in its place.
#ifndef DOBERMAN_GUARD_MCP_HTTP_PROXY_H_
#define DOBERMAN_GUARD_MCP_HTTP_PROXY_H_

#include <string>

#include "guard_runner.h"

namespace doberman::guard {

struct McpHttpOptions {
  std::string name;      // N in mcp__N__TOOL
  std::string upstream;  // http(s)://host[:port]/path: the server's MCP endpoint
  std::string listen;    // HOST:PORT (port 0: any free port, printed on stderr)
  size_t max_message_bytes = kMaxPayloadBytes;
};

// Serves until SIGTERM or SIGINT. Returns 0 then, 2 for an unusable URL or address, 125 when the
// address cannot be bound.
int RunMcpHttpProxy(const Options& o, const McpHttpOptions& ho);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_MCP_HTTP_PROXY_H_
