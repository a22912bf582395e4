// doberman-mcp-http: the streamable-HTTP MCP proxy as its own program (mcp_http_proxy.h says why).
// It takes doberman-guard's own `mcp-proxy --upstream URL --listen HOST:PORT ...` arguments, parsed
// by the guard's parser, so both programs accept exactly the same command line.
#include <cstdio>
#include <string>

#include "cli_docs.h"
#include "guard_cli.h"
#include "guard_runner.h"
#include "mcp_http_proxy.h"

int main(int argc, char** argv) {
  doberman::guard::Options o;
  if (!doberman::guard::ParseGuardArgs(argc, argv, &o) || o.mode != "mcp-proxy" ||
      o.mcp_upstream.empty()) {
    std::fputs(doberman::cli::RenderUsage(doberman::guard::GuardProgram()).c_str(), stderr);
    std::fputs("doberman-mcp-http: wants mcp-proxy --upstream URL --listen HOST:PORT [options]\n",
               stderr);
    return 2;
  }
  if (o.help) {
    std::fputs(doberman::cli::RenderUsage(doberman::guard::GuardProgram()).c_str(), stdout);
    return 0;
  }
  doberman::guard::McpHttpOptions ho;
  ho.upstream = o.mcp_upstream;
  ho.listen = o.mcp_listen;
  ho.name = o.mcp_name;
  if (ho.name.empty()) {  // the upstream's host: https://mcp.example.com/x -> mcp.example.com
    std::string host = ho.upstream.substr(ho.upstream.find("://") + 3);
    host = host.substr(0, host.find_first_of(":/"));
    ho.name = host.empty() ? "http" : host;
  }
  return doberman::guard::RunMcpHttpProxy(o, ho);
}
