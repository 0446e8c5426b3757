"""The shell layer: judging shell commands against the Bash rules, and running them.

The Bash tool and the policy checker talk to this package only through :mod:`bot.shell.api`.
A command goes through the subpackages in this order:

=============  ===================================================================================
``parse``      the string → simple commands with resolved words (``fast``, else ``walk``)
``judge``      the decision: ``decide`` (whole string, text-level ``security_checks``, compounds)
               → ``command`` (one simple command) → ``verdict``
``programs``   what a program's options and subcommands do (``options/`` table from man pages)
``launch``     what a program launches (``env``, ``timeout``, ``xargs``, ``npx``, ``git`` aliases…)
``paths``      which words are paths, where they point, whether the command may touch them
``execute``    the process, its allowlisted environment, background tasks
``sandbox``    the bubblewrap root a command runs in, its probe and self-test
=============  ===================================================================================

Where is … answered?

- the 23 text-level checks of the seeds (4.6.1): ``judge/security_checks.py``
- a ``Bash(npm run:*)`` rule against one command: ``judge/rule_match.py``; deny rules in every
  spelling (``/usr/bin/rm``, ``\\rm``): ``judge/deny_match.py``
- ``find -exec CMD {} ;``: the inner command is found by ``launch/per_item.py`` (``find_exec``) and
  judged by ``judge/command.py`` like any command, on what ``find`` can reach, which
  ``programs/find.py`` computes (start points, ``-name`` filters, links out); ``-delete`` there too
- ``sed -i``/``awk`` programs under a wildcard rule: ``programs/sed.py``, ``programs/awk.py``
- an option that runs a program, loads code or connects elsewhere (``git -c core.pager=…``,
  ``rsync -e``, ``--config``): ``programs/flags.py`` asking ``programs/everyday.py``,
  ``programs/git.py``, ``programs/packages.py``, ``programs/interpreters.py``; the generated
  option classes: ``programs/options/``
- ``pip install git+https://…`` and other install sources: ``programs/install_sources.py``
- ``> file``, ``cd``, globs, symlinks made earlier in the same command: ``paths/judge.py`` with
  ``paths/resolve.py``, ``paths/globbing.py``, ``paths/link_makers.py``
- read-only and concurrency-safe (seeds 4.6.8): ``judge/read_only.py``
- which reading commands need no rule (``ls``, ``git status``, ``| tail``): ``judge/no_rule.py``
- exit codes that are not failures (``grep`` 1): ``programs/exit_codes.py``
- the suggested rule in a denial: ``judge/prefixes.py``
- ``$(nproc)``, ``$PWD``, ``<(cmd)`` judged as what they become: ``judge/known_output.py``; a
  ``for`` loop over spelled-out words as its rounds: ``judge/loops.py``
- checkers that only read (``actionlint``, ``yq``): ``programs/checkers.py``
"""
