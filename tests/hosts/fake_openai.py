"""A local stand-in for the OpenAI Responses API, enough for `codex exec`.

Codex (0.171.0) talks to a custom provider (`[model_providers.X] wire_api = "responses"`) with
`POST {base_url}/responses`, `stream: true`, and reads Server-Sent Events. This server plays a
scripted model:

  turn 1: answer with exactly ONE tool call (a shell command or an apply_patch), using whichever
          tool name the request advertises in `tools`;
  later:  once a request carries the output for that call, record the output and answer with a
          short final message. If a request carries no output for it (Codex refused the call
          before it ran and did not report back), answer the final message too, so a run always
          ends.

`FakeOpenAI.calls((name, args), ...)` scripts several raw function calls instead, one per turn
(args may be a callable of the previous call's output, e.g. to reuse a write_stdin session id).

Every request body is kept (parsed JSON) in `requests` for assertions. Python standard library
only. Usage:

    with FakeOpenAI(FakeOpenAI.shell("touch /tmp/x")) as api:
        ... config.toml base_url = api.base_url ...
        api.tool_outputs      # outputs Codex sent back for our call
        api.tool_names        # tools Codex advertised on the first request
"""

import http.server
import json
import threading
import uuid

FINAL_TEXT = "done."


class FakeOpenAI:
    def __init__(self, scenario):
        """scenario: {"kind": "shell", "command": str} or {"kind": "apply_patch", "patch": str}."""
        self.scenario = scenario
        self.call_id = "call_" + uuid.uuid4().hex[:12]
        self.requests = []          # parsed JSON bodies, in order
        self.paths = []             # (method, path)
        self.tool_outputs = []      # outputs Codex sent back for self.call_id
        self.tool_call = None       # the output item we sent
        self.tool_names = []        # names advertised in the first request
        self.errors = []
        self._sent_calls = []       # "calls" scenarios: the calls sent so far
        self._lock = threading.Lock()
        self._server = None
        self._thread = None

    # ---- scenario helpers -------------------------------------------------------------------
    @staticmethod
    def shell(command):
        return {"kind": "shell", "command": command}

    @staticmethod
    def apply_patch(patch):
        return {"kind": "apply_patch", "patch": patch}

    @staticmethod
    def calls(*steps):
        """Several function calls, one per turn: each step is (tool_name, args) where args is a dict
        or a callable(previous_output_text) -> dict (e.g. to pick up a session_id)."""
        return {"kind": "calls", "steps": list(steps)}

    # ---- lifecycle ---------------------------------------------------------------------------
    def start(self):
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                with owner._lock:
                    owner.paths.append(("GET", self.path))
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [], "models": []})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                with owner._lock:
                    owner.paths.append(("POST", self.path))
                if not self.path.rstrip("/").endswith("/responses"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                try:
                    body = json.loads(raw.decode("utf-8"))
                except Exception as exc:  # noqa: BLE001 - record and fail the request
                    owner.errors.append("bad request body: %r (%r)" % (exc, raw[:200]))
                    self._json(400, {"error": {"message": "bad json"}})
                    return
                items = owner._respond(body)
                self._sse(items)

            def _json(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, items):
                rid = "resp_" + uuid.uuid4().hex[:12]
                events = [("response.created", {"type": "response.created",
                                                "response": {"id": rid}})]
                for item in items:
                    events.append(("response.output_item.done",
                                   {"type": "response.output_item.done", "item": item}))
                events.append(("response.completed", {
                    "type": "response.completed",
                    "response": {"id": rid, "usage": {
                        "input_tokens": 10, "input_tokens_details": None,
                        "output_tokens": 5, "output_tokens_details": None,
                        "total_tokens": 15}}}))
                data = b"".join(
                    b"event: " + name.encode() + b"\ndata: " + json.dumps(obj).encode() + b"\n\n"
                    for name, obj in events)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        return self._server.server_address[1]

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    # ---- the scripted model ------------------------------------------------------------------
    def _respond(self, body):
        with self._lock:
            first = not self.requests
            self.requests.append(body)
            if first:
                self.tool_names = _tool_names(body.get("tools") or [])
            if self.scenario["kind"] == "calls":
                return self._respond_steps(body)
            outputs = [item for item in body.get("input") or []
                       if isinstance(item, dict)
                       and item.get("type", "").endswith("call_output")
                       and item.get("call_id") == self.call_id]
            if outputs:
                if not self.tool_outputs:
                    self.tool_outputs = [_output_text(o) for o in outputs]
                return [_message(FINAL_TEXT)]
            if self.tool_call is None:
                self.tool_call = self._make_call(body.get("tools") or [])
                return [self.tool_call]
            return [_message(FINAL_TEXT)]

    def _respond_steps(self, body):
        steps = self.scenario["steps"]
        sent = self._sent_calls
        by_id = {item.get("call_id"): item for item in body.get("input") or []
                 if isinstance(item, dict) and item.get("type", "").endswith("call_output")}
        self.tool_outputs = [_output_text(by_id[c["call_id"]]) for c in sent if c["call_id"] in by_id]
        if len(sent) < len(steps) and len(self.tool_outputs) == len(sent):
            name, args = steps[len(sent)]
            if callable(args):
                args = args(self.tool_outputs[-1] if self.tool_outputs else "")
            call = _function_call("%s_%d" % (self.call_id, len(sent)), name, args)
            sent.append(call)
            if self.tool_call is None:
                self.tool_call = call
            return [call]
        return [_message(FINAL_TEXT)]

    def _make_call(self, tools):
        names = {}
        for tool in tools:
            if isinstance(tool, dict) and tool.get("name"):
                names[tool["name"]] = tool.get("type")
        kind = self.scenario["kind"]
        if kind == "apply_patch":
            patch = self.scenario["patch"]
            if names.get("apply_patch") == "custom":
                return {"type": "custom_tool_call", "id": "ctc_1", "status": "completed",
                        "call_id": self.call_id, "name": "apply_patch", "input": patch}
            if names.get("apply_patch") == "function":
                return _function_call(self.call_id, "apply_patch", {"input": patch})
            # No apply_patch tool advertised: the documented fallback is the shell heredoc form,
            # which Codex intercepts and turns into an apply_patch.
            command = "apply_patch <<'PATCH'\n" + patch + "\nPATCH\n"
        elif kind == "shell":
            command = self.scenario["command"]
        else:
            raise ValueError("unknown scenario kind %r" % kind)
        if "exec_command" in names:
            return _function_call(self.call_id, "exec_command", {"cmd": command})
        if "shell_command" in names:
            return _function_call(self.call_id, "shell_command", {"command": command})
        if "shell" in names:
            return _function_call(self.call_id, "shell",
                                  {"command": ["bash", "-lc", command]})
        self.errors.append("no shell-like tool advertised: %s" % sorted(names))
        return _message("no shell tool")


def _function_call(call_id, name, args):
    return {"type": "function_call", "id": "fc_" + call_id, "status": "completed", "call_id": call_id,
            "name": name, "arguments": json.dumps(args)}


def _message(text):
    return {"type": "message", "id": "msg_" + uuid.uuid4().hex[:8], "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _tool_names(tools):
    names = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if tool.get("name"):
            names.append(tool["name"])
        for sub in tool.get("tools") or []:
            if isinstance(sub, dict) and sub.get("name"):
                names.append(tool["name"] + "." + sub["name"])
    return names


def _output_text(item):
    out = item.get("output")
    if isinstance(out, str):
        return out
    if isinstance(out, list):  # content items
        return "\n".join(part.get("text", "") for part in out if isinstance(part, dict))
    if isinstance(out, dict):
        return out.get("content") or json.dumps(out)
    return json.dumps(out)


if __name__ == "__main__":  # manual poking: python3 fake_openai.py 'echo hi'
    import sys
    import time
    api = FakeOpenAI(FakeOpenAI.shell(sys.argv[1] if len(sys.argv) > 1 else "echo hi")).start()
    print(api.base_url, flush=True)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        api.stop()
