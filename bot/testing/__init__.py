"""Test doubles that ship with the package, so users can test their policies and hooks with them.

Import the modules directly (this package imports nothing, so using one double never pulls in the
dependencies of another): :mod:`.cassettes` authors model cassettes from a script of turns,
:mod:`.replay` has a paced replay transport and a capturing transport, :mod:`.model` points the
real model client at them.
"""
