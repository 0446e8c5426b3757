"""Redaction speed (issue: the trust boundary holds).

Every tool result, every posted text and every log line goes through the redactor, which looks
for each known secret in all its leak forms (reversed, hex, base64 at three alignments, URL-encoded,
with invisible characters inside; :mod:`bot.core.secret_match`). Measured over ``--mb`` MB of
text with ``--secrets`` secrets shaped like a run's real ones (a 40-character GitHub token, a
108-character model key, ~1,200-character runtime JWTs):

1. the known-value matcher alone vs the naive baseline: a ``str.replace`` loop over the raw
   values (which finds none of the encoded forms);
2. the whole redactor (values and secret shapes) on the same text;
3. text full of ``%XX`` escapes and zero-width characters (the normalised view is built);
4. building the matcher (cold), next to compiling a plain alternation of the raw values.

Figures are medians of ``--runs`` runs, ours and the baseline interleaved.

    python bench/redaction.py [--mb 1] [--secrets 10] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import string
import time
from collections.abc import Callable

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import report

from bot.core.redact import Redactor
from bot.core.secret_match import SecretMatcher, secret_matcher

ALNUM = string.ascii_letters + string.digits


def make_secrets(count: int, rng: random.Random) -> dict[str, str]:
    """Shaped like a GitHub Actions run's secrets, cycling through the kinds."""
    kinds: list[Callable[[], str]] = [
        lambda: "ghs_" + "".join(rng.choices(ALNUM, k=36)),
        lambda: "sk-ant-api03-" + "".join(rng.choices(ALNUM + "-_", k=95)),
        lambda: "eyJ" + "".join(rng.choices(ALNUM + "-_", k=400)) + "." + "".join(rng.choices(ALNUM + "-_", k=800)),
        lambda: "".join(rng.choices(ALNUM + "/+", k=40)),
        lambda: "".join(rng.choices(ALNUM, k=24)),
    ]
    return {f"SECRET_{i}_TOKEN": kinds[i % len(kinds)]() for i in range(count)}


def make_text(size: int, rng: random.Random, secrets: dict[str, str], *, escaped: bool) -> str:
    """Code-like text with a few of the secrets planted (plain and encoded); ``escaped`` makes
    every fifth character a ``%XX`` escape and sprinkles zero-width spaces."""
    words = ["def", "return", "self", "import", "os.path", "value", "=", "(", ")", "\n", "    ", "0x1f", "token"]
    pieces: list[str] = []
    total = 0
    while total < size:
        word = rng.choice(words) + " "
        if escaped and rng.random() < 0.2:
            word = "".join(f"%{ord(c):02X}" if c.isalnum() else c for c in word) + "\u200b"
        pieces.append(word)
        total += len(word)
    values = list(secrets.values())
    for i, value in enumerate(values[:4]):
        at = (i + 1) * len(pieces) // 5
        pieces.insert(at, f" {value[::-1] if i % 2 else value} ")
    return "".join(pieces)[:size]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def compare(name: str, runs: int, ours: Callable[[], object], baseline: Callable[[], object], base_name: str) -> None:
    ours(), baseline()  # warm
    our_times: list[float] = []
    base_times: list[float] = []
    for k in range(runs):
        pair = (ours, baseline) if k % 2 else (baseline, ours)
        for fn in pair:
            (our_times if fn is ours else base_times).append(timed(fn))
    base, mine = statistics.median(base_times) * 1000, statistics.median(our_times) * 1000
    report(f"  {base_name}", base, "ms")
    report(f"  {name}", mine, "ms", baseline=base)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--secrets", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    secrets = make_secrets(args.secrets, rng)
    size = int(args.mb * 1_000_000)
    plain = make_text(size, rng, secrets, escaped=False)
    escaped = make_text(size, rng, secrets, escaped=True)
    matcher = secret_matcher(secrets)
    redactor = Redactor(secrets)
    values = list(secrets.values())

    def replace_loop(text: str) -> str:
        for value in values:
            text = text.replace(value, "[REDACTED]")
        return text

    print(f"{args.secrets} secrets ({sum(map(len, values)):,} characters), {size / 1e6:g} MB of text:")
    print("known values, plain text:")
    compare(
        "leak-form matcher (every form)",
        args.runs,
        lambda: matcher.sub(plain),
        lambda: replace_loop(plain),
        "str.replace loop (raw values only)",
    )
    print("whole redactor (values + shapes), plain text:")
    compare(
        "Redactor",
        args.runs,
        lambda: redactor(plain),
        lambda: replace_loop(plain),
        "str.replace loop (raw values only)",
    )
    print("text with %XX escapes and zero-width characters (normalised view):")
    compare(
        "leak-form matcher (every form)",
        args.runs,
        lambda: matcher.sub(escaped),
        lambda: replace_loop(escaped),
        "str.replace loop (raw values only)",
    )
    print("building the matcher (cold, once per run and value set):")
    alternation = "|".join(re.escape(v) for v in values)

    def build_matcher() -> None:
        re.purge()  # re caches compiled patterns: each run must compile afresh
        SecretMatcher(secrets)

    def compile_values() -> None:
        re.purge()
        re.compile(alternation)

    compare("SecretMatcher(...)", args.runs, build_matcher, compile_values, "re.compile of the raw values")


if __name__ == "__main__":
    main()
