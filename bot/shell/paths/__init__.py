"""Paths: which words of a command are paths (``arguments``, ``fallback`` for programs without a
table), where they point once globs, ``cd`` and symbolic links are followed (``resolve``,
``globbing``, ``link_makers``), and whether the command may touch them (``judge``).
"""
