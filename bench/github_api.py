"""What a GitHub call costs through our adapter against the local stand-in, and what PyGithub's
default throttling would add.

Figures (median of N): a read (``default_branch`` on a fresh client is one GET), a comment write,
a write+edit pair (the sticky comment's pattern) — through ``PyGithubApi`` (no spacing, our
retries), against a bare ``requests`` session doing the same HTTP (the baseline: the stand-in's and
the loopback's own cost). Then the same sticky-comment pattern with PyGithub's defaults
(``seconds_between_writes=1``, ``seconds_between_requests=0.25``), which is what lowering them saves.

    python bench/github_api.py [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import _common  # noqa: F401  (puts the checkout on sys.path)
import requests
from _common import report
from github import Auth, Github

from bot.github.api import PyGithubApi
from bot.testing.github_standin import GitHubStandIn

REPO = "octo/app"


def median_ms(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with GitHubStandIn() as standin:
        standin.add_repo(REPO)
        issue = standin.add_issue(REPO, "bench")
        session = requests.Session()
        headers = {"Authorization": "token t"}
        base = f"{standin.api_url}/repos/{REPO}"
        api = PyGithubApi(repository=REPO, token="t", api_url=standin.api_url)

        raw_read = median_ms(lambda: session.get(base, headers=headers, timeout=5), runs)
        report("raw GET /repos (baseline)", raw_read, "ms")

        def fresh_read() -> None:
            client = PyGithubApi(repository=REPO, token="t", api_url=standin.api_url)
            client.default_branch()
            client.close()

        report("PyGithubApi.default_branch (fresh client)", median_ms(fresh_read, runs), "ms", baseline=raw_read)

        raw_write = median_ms(
            lambda: session.post(f"{base}/issues/{issue}/comments", json={"body": "x"}, headers=headers, timeout=5),
            runs,
        )
        report("raw POST comment (baseline)", raw_write, "ms")
        report(
            "PyGithubApi.create_issue_comment",
            median_ms(lambda: api.create_issue_comment(issue, "x"), runs),
            "ms",
            baseline=raw_write,
        )

        def sticky() -> None:
            comment = api.create_issue_comment(issue, "working…")
            api.update_issue_comment(comment.id, "done")

        ours = median_ms(sticky, runs)
        report("sticky create+edit, our settings", ours, "ms", baseline=2 * raw_write)

        default = Github(base_url=standin.api_url, auth=Auth.Token("t"), lazy=True)
        repo = default.get_repo(REPO)

        def sticky_default() -> None:
            comment = repo.get_issue(issue).create_comment("working…")
            comment.edit("done")

        report("sticky create+edit, PyGithub defaults", median_ms(sticky_default, 3), "ms", baseline=ours)
        default.close()
        api.close()
        session.close()


if __name__ == "__main__":
    main()
