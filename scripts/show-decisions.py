#!/usr/bin/env python3
"""Prints doberman-guard check output (stdin) beside the payloads it answered, as a table."""
import json
import re
import sys

# The demo payloads carry fake credentials; the table shows their shape, never the value.
TOKEN = re.compile(r"[A-Za-z0-9_\-]{16,}")


def redact(text):
    # Credential-like runs mix letters and digits; long option names (--output-on-failure) do not.
    def cut(m):
        t = m.group(0)
        mixed = any(c.isdigit() for c in t) and any(c.isalpha() for c in t)
        return t[:4] + "..." if mixed else t
    return TOKEN.sub(cut, text)


def describe(payload):
    ti = payload.get("tool_input", {})
    if payload.get("hook_event_name") == "UserPromptSubmit":
        return "prompt: " + payload["prompt"]
    tool = payload.get("tool_name", "?")
    if "command" in ti:
        return f"{tool}: {ti['command']}"
    if "file_path" in ti:
        return f"{tool} {ti['file_path']}"
    if "url" in ti:
        return f"{tool} {ti['url']}"
    return f"{tool} {json.dumps(ti)[:60]}"


def main():
    payloads = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    answers = [json.loads(l) for l in sys.stdin if l.strip()]
    if len(answers) != len(payloads):
        sys.exit(f"expected {len(payloads)} answers, got {len(answers)}")
    for p, a in zip(payloads, answers):
        what = redact(describe(p)).replace("\n", "\\n")
        if len(what) > 68:
            what = what[:65] + "..."
        rules = ", ".join(a["rules"][:3]) + (" ..." if len(a["rules"]) > 3 else "")
        print(f"{a['verdict']:<6} {what:<68} {rules}")


if __name__ == "__main__":
    main()
