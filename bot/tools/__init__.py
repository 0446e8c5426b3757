"""The built-in tools, one module each (``bash``, ``read``, ``edit``, ``glob``, ``grep``…).

The interface they implement lives in ``bot.interface``; the registry that lists them is
``bot.tools.registry``. Import a tool from its own module: the package re-exports nothing, so
loading one tool never loads the others' dependencies (HTML and PDF libraries among them).
"""
