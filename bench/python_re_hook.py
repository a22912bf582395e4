#!/usr/bin/python3
"""A hook process in the original Doberman's style, for the cold-start comparison: start Python, load the
pattern list (JSON), compile it with `re`, read one Claude Code payload on stdin, re.search every pattern over
the raw fields of its scope, answer in Claude Code's protocol. No shell normalization and no decoding, which
only flatters it.

usage: /usr/bin/python3 python_re_hook.py PATTERNS.json < payload.json
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyre  # noqa: E402


def units(payload):
    tool = payload.get("tool_name", "")
    ti = payload.get("tool_input") or {}
    out = [("tool", tool)]
    if payload.get("hook_event_name") == "UserPromptSubmit":
        text = payload.get("prompt", "")
        out += [("prompt_text", text), ("prompt", " ".join(text.lower().split()))]
    elif tool == "Bash":
        out += [("command_text", ti.get("command", "")), ("command", ti.get("command", ""))]
    elif tool in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        out += [("path", ti.get("file_path", ti.get("notebook_path", ""))),
                ("content", ti.get("content", ti.get("new_string", ti.get("new_source", ""))))]
    elif tool == "WebFetch":
        out += [("url", ti.get("url", "")), ("args", ti.get("prompt", ""))]
    else:
        out += [("args", json.dumps(ti))]
    return [(s, t) for s, t in out if t]


def main():
    with open(sys.argv[1]) as f:
        sets, _, _, _ = pyre.compile_sets(json.load(f))
    payload = json.load(sys.stdin)
    matched = 0
    for scope, text in units(payload):
        for rx in sets.get(scope, []):
            if rx.search(text):
                matched += 1
    if matched:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                 "permissionDecisionReason": "matched"}}))


if __name__ == "__main__":
    main()
