"""Options and error handling shared by the subcommands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

USAGE_ERROR = 2

AllowOpt = Annotated[list[str] | None, typer.Option("--allow", help="An allow rule: 'Read', 'Bash(git status)'.")]
DenyOpt = Annotated[list[str] | None, typer.Option("--deny", help="A deny rule.")]
AskOpt = Annotated[list[str] | None, typer.Option("--ask", help="An ask rule (headless: a denial).")]
WorkspaceOpt = Annotated[Path, typer.Option("--workspace", "-w", help="The workspace (default: current directory).")]


def fail(message: str, code: int = USAGE_ERROR) -> typer.Exit:
    """Print ``error: message`` to stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)
