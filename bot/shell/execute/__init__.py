"""Running a command: the process and its bounded output (``process``), its environment from an
allowlist (``env``), background tasks (``background``), and the bot's own commands run the same
way (``confine``).
"""
