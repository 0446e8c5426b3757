#!/usr/bin/env bash
# A shell hook like the ones people keep in .claude/hooks/: jq-free, grep on the raw JSON.
input=$(cat)
if printf '%s' "$input" | grep -q '"text": *"rm -rf'; then
  echo "Dangerous command blocked by guard.sh" >&2
  exit 2
fi
exit 0
