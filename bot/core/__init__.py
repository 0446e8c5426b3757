"""The bottom layer: what every other layer may import, and which imports nothing of the bot's above it.

``redact`` — secret values and shapes removed from text.
``host_git`` — how the bot runs git on the host: an allowlisted environment, neutralised
  configuration, a sealed git directory.
``secrets`` — the process's secrets, taken out of ``os.environ`` at start-up.
"""
