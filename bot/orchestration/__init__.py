"""One run of the bot, whatever drives it: the stages every run goes through, below the two modes.

A run is prepared from trusted configuration (:mod:`.session`), the agent works in a checkout
whose git directory is sealed (:mod:`.git`), verification runs sandboxed (:mod:`.verify`), the work
is committed, and what happened becomes one report (:mod:`.report`, rendered by :mod:`.render`)
that leaves through the egress boundary (:mod:`.egress`, :mod:`.safety`).

The modes are adapters above this package: :mod:`bot.github` (events, authorization, the API,
pushes and pull requests, the sticky comment, Actions outputs) and :mod:`bot.local` (a branch in a
local repository, files in an output directory, the terminal). Nothing here imports either.

Where each question is answered:

* what a run is configured with, and where trusted files come from — :mod:`.session`;
* the checkout, branches, commits, pushes, the diff — :mod:`.git`;
* what the run did (conclusion, headline, files, denials, cost) — :mod:`.report`;
* how that reads as Markdown, and why it cannot smuggle an image or a mention — :mod:`.render`,
  :mod:`.markdown_safety`;
* what may leave the process, redacted, and the canaries — :mod:`.egress`, :mod:`.safety`;
* SIGTERM/SIGINT becoming an abort — :mod:`.signals`; verification commands — :mod:`.verify`.
"""
