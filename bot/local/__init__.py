"""The local mode: ``bot run --local`` drives :mod:`bot.orchestration` with a branch in a local
repository, the comment Markdown and ``outcome.json`` in an output directory, progress on the
terminal (:mod:`.run`)."""
