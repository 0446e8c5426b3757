#!/usr/bin/env python3
"""A PreToolUse hook in the style of Claude Code's documented examples: reads the event from
stdin and answers by exit code or JSON, depending on what the command text asks for."""

import json
import os
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("text", "")
log = os.environ.get("HOOK_LOG")
if log:
    with open(log, "a") as f:
        f.write(json.dumps(event) + "\n")

if command == "exit2":
    print("blocked: this text is not allowed", file=sys.stderr)
    sys.exit(2)
if command == "exit1":
    print("something went wrong in the hook", file=sys.stderr)
    sys.exit(1)
if command in ("allow", "deny", "ask"):
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": command,
                    "permissionDecisionReason": f"hook says {command}",
                }
            }
        )
    )
    sys.exit(0)
if command == "rewrite":
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"text": "rewritten by hook"},
                    "additionalContext": "the hook rewrote your input",
                }
            }
        )
    )
    sys.exit(0)
if command == "legacy-block":
    print(json.dumps({"decision": "block", "reason": "legacy block"}))
    sys.exit(0)
if command == "stop":
    print(json.dumps({"continue": False, "stopReason": "hook wants the run to stop"}))
    sys.exit(0)
if command == "garbage":
    print("{not json")
    sys.exit(0)
if command == "env":
    print(
        json.dumps(
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": json.dumps(dict(os.environ))}}
        )
    )
    sys.exit(0)
sys.exit(0)
