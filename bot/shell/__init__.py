"""The shell layer: judging shell commands (analysis) and running them (execution).

The contract between the two halves and the Bash tool lives in :mod:`bot.shell.api`.
"""
