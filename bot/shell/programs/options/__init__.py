"""Option knowledge from the programs' own documentation: which options run a command, name a
program, load code or configuration, connect elsewhere, read or write a file.

* ``programs.json`` — the programs covered, each with where its name came from
  (:mod:`.programs`);
* ``table.json`` — every documented option of each, with its class and the package version it was
  read from, written by :mod:`.generate` (offline: ``man`` pages and ``--help``);
* ``overrides.json`` — the classes a maintainer reviewed where the rules of :mod:`.classify` are
  wrong;
* :mod:`.lookup` — what the analysis asks: the executing options of one command line.
"""
