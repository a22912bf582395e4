#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API, for driving a real Claude Code binary in tests.

Scripted model: the first /v1/messages request of the conversation that offers the scenario's
tool gets ONE tool_use of that tool with the scenario's input; any request whose last user turn
holds a tool_result gets a short final text, and the tool_result is recorded (that is what the
model "saw"). Side requests (titles, topic checks, anything without the scenario tool) get a
short text. Every request is appended to a JSONL log.

Standard library only. Use it in-process (FakeAnthropic(...).start()) or from the command line:
    fake_anthropic.py --tool Bash --input '{"command": "touch /tmp/x"}' --log /tmp/req.jsonl
which prints the base URL and serves until interrupted.
"""

import argparse
import http.server
import json
import sys
import threading
import uuid

MODEL = "claude-sonnet-4-5"


def _tool_results(message):
    """tool_result blocks of one message (a user turn), in order."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _result_text(block):
    """The text of a tool_result block's content (string or list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if part.get("type") == "text":
                    parts.append(part.get("text", ""))
                else:
                    parts.append(json.dumps(part))
        return "\n".join(parts)
    return "" if content is None else json.dumps(content)


class FakeAnthropic:
    def __init__(self, tool_name, tool_input, log_path, final_text="Done."):
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.final_text = final_text
        self.log_path = log_path
        self.lock = threading.Lock()
        self.requests = []       # every request: {"method", "path", "body"}
        self.tool_uses = []      # ids of the tool_use blocks we emitted
        self.tool_results = []   # {"tool_use_id", "is_error", "text"} seen in later requests
        self.server = None
        self.thread = None

    # -- lifecycle --
    def start(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args):  # quiet
                pass

            def _read_body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return {"_raw": raw.decode("utf-8", "replace")}

            def _json(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:16])
                self.end_headers()
                self.wfile.write(data)

            def do_HEAD(self):
                fake._record("HEAD", self.path, None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                fake._record("GET", self.path, None)
                path = self.path.split("?")[0]
                if path.startswith("/v1/models"):
                    model = {"type": "model", "id": MODEL, "display_name": "Fake",
                             "created_at": "2025-01-01T00:00:00Z"}
                    if path.rstrip("/") == "/v1/models":
                        self._json(200, {"data": [model], "has_more": False,
                                         "first_id": MODEL, "last_id": MODEL})
                    else:
                        self._json(200, model)
                else:
                    self._json(200, {})

            def do_POST(self):
                body = self._read_body()
                fake._record("POST", self.path, body)
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": 100})
                    return
                if not path.endswith("/v1/messages") or not isinstance(body, dict):
                    self._json(200, {})
                    return
                blocks = fake._answer(body)
                if body.get("stream"):
                    self._stream(body, blocks)
                else:
                    self._json(200, fake._message(body, blocks))

            def _stream(self, body, blocks):
                msg = fake._message(body, [])
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                events = [("message_start", {"type": "message_start",
                                              "message": dict(msg, stop_reason=None)})]
                for i, b in enumerate(blocks):
                    if b["type"] == "text":
                        events.append(("content_block_start", {
                            "type": "content_block_start", "index": i,
                            "content_block": {"type": "text", "text": ""}}))
                        events.append(("content_block_delta", {
                            "type": "content_block_delta", "index": i,
                            "delta": {"type": "text_delta", "text": b["text"]}}))
                    else:
                        events.append(("content_block_start", {
                            "type": "content_block_start", "index": i,
                            "content_block": {"type": "tool_use", "id": b["id"],
                                              "name": b["name"], "input": {}}}))
                        events.append(("content_block_delta", {
                            "type": "content_block_delta", "index": i,
                            "delta": {"type": "input_json_delta",
                                      "partial_json": json.dumps(b["input"])}}))
                    events.append(("content_block_stop",
                                   {"type": "content_block_stop", "index": i}))
                events.append(("message_delta", {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 10}}))
                events.append(("message_stop", {"type": "message_stop"}))
                data = b"".join(
                    ("event: %s\ndata: %s\n\n" % (name, json.dumps(ev))).encode()
                    for name, ev in events)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:16])
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def base_url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- model --
    def _record(self, method, path, body):
        entry = {"method": method, "path": path, "body": body}
        with self.lock:
            self.requests.append(entry)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")

    def _offers_tool(self, body):
        return any(isinstance(t, dict) and t.get("name") == self.tool_name
                   for t in body.get("tools") or [])

    def _answer(self, body):
        messages = body.get("messages") or []
        # The turn after our tool_use: every message after the last assistant message. Claude Code
        # may append further messages (e.g. a "system" one carrying a PostToolUse hook's reason)
        # after the user message that holds the tool_result.
        tail = []
        for m in reversed(messages):
            if not isinstance(m, dict) or m.get("role") == "assistant":
                break
            tail.insert(0, m)
        results = [r for m in tail if m.get("role") == "user" for r in _tool_results(m)]
        with self.lock:
            if results:
                for r in results:
                    self.tool_results.append({"tool_use_id": r.get("tool_use_id"),
                                              "is_error": bool(r.get("is_error")),
                                              "text": _result_text(r)})
                return [{"type": "text", "text": self.final_text}]
            if self._offers_tool(body) and not self.tool_uses:
                tid = "toolu_" + uuid.uuid4().hex[:24]
                self.tool_uses.append(tid)
                return [{"type": "tool_use", "id": tid, "name": self.tool_name,
                         "input": self.tool_input}]
        return [{"type": "text", "text": self.final_text}]

    def _message(self, body, blocks):
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
                "model": body.get("model") or MODEL, "content": blocks,
                "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 10,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}

    # -- assertions --
    def model_saw(self):
        """All text that reached the model in tool_results, joined."""
        with self.lock:
            return "\n".join(r["text"] for r in self.tool_results)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", default="Bash")
    ap.add_argument("--input", default='{"command": "true"}', help="tool_input as JSON")
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    fake = FakeAnthropic(args.tool, json.loads(args.input), args.log).start()
    print(fake.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
