"""The bottom layer: what every other layer may import, and which imports nothing of the bot's above it.

``secrets`` — the process's secrets, taken out of ``os.environ`` at start-up.
"""
