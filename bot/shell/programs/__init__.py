"""Program knowledge: what each program's options and subcommands make it do.

``options/`` is the table generated from the programs' own manual pages and ``--help`` (with its
generator); ``flags`` asks the per-family modules (``everyday``, ``git``, ``packages``,
``interpreters``, ``fetchers``, ``archives``…) and answers with ``facts``. ``getopt`` reads an
argument list the way the program's option parser will.
"""
