"""The GitHub world of tests/github (stand-in, bare origin, checkout) for the explain command."""

from tests.github.conftest import world

__all__ = ["world"]
