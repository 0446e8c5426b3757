"""The bottom layer: what every other layer may import, and which imports nothing of the bot's above it.

``redact`` — secret values and shapes removed from text.
``secrets`` — the process's secrets, taken out of ``os.environ`` at start-up.
"""
