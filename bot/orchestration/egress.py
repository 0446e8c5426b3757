"""The egress boundary: everything that leaves the process passes one object, :class:`Egress`.

Trust model. The model's text, tool outputs and transcripts are untrusted and may carry a secret
the process knows — plainly, or encoded to slip past a redactor (reversed, hex, base64 inside a
header, URL-encoded, with zero-width characters). Whatever leaves the process is readable by
others: comments, PR titles and bodies, commit messages, the job summary and outputs, the job log and
its annotations, and every file under ``BOT_OUTPUT_DIR`` (uploaded as the run's artifact, which on a
public repository anyone signed in can download). So each of those goes through here:

* :meth:`Egress.text` — a text about to be posted or written: a canary in it raises
  :class:`~bot.errors.CanaryTripped` (posting must stop), everything else known is redacted;
* :meth:`Egress.write_file` — a file for ``BOT_OUTPUT_DIR``, written redacted (atomically);
* :meth:`Egress.scrub_tree` — files already written under a directory (transcripts, task outputs)
  redacted in place; canaries reported; links and binary files holding a secret removed;
* :class:`bot.github.redacting_api.RedactingGitHubApi` — the GitHub adapter's API seam with every
  string argument passed through :meth:`Egress.text`;
* :meth:`Egress.install_stream_redaction` — ``sys.stdout``/``sys.stderr`` (so ``print``, logging
  and ``::warning::`` annotations) redacted line by line; a canary there is redacted and recorded,
  not raised (a log write must never fail).

What it does not cover: bytes written straight to file descriptor 1 or 2 (a child process that
inherits them) — the bot's children capture their output instead.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, cast

from bot.core.canary import Canaries
from bot.core.redact import Redactor
from bot.core.secret_match import secret_matcher
from bot.core.secrets import process_secrets

#: A file this large is not read whole to be scrubbed; it is removed from the artifact instead (an
#: artifact's transcripts and outputs are a few MB; hundreds of MB is something else).
MAX_SCRUB_FILE_BYTES = 64 * 1024 * 1024
#: A NUL in the first bytes makes a file binary (git's own heuristic), not rewritten as text.
BINARY_SNIFF_BYTES = 8 * 1024
#: A stream holds back an unfinished line so a secret written in pieces is redacted whole; past this
#: many characters the line is let out anyway, so memory stays bounded.
MAX_PENDING_LINE_CHARS = 64 * 1024


class Egress:
    """The run's boundary. ``secrets`` defaults to every secret the process knows
    (:func:`~bot.core.secrets.process_secrets` with ``extra_names``); ``canaries`` are looked up
    on every call, so canaries planted after this object was built are seen (and redacted) too."""

    def __init__(
        self,
        secrets: Mapping[str, str] | None = None,
        canaries: Canaries | None = None,
        *,
        extra_names: Iterable[str] = (),
    ) -> None:
        self._secrets = dict(process_secrets(extra_names) if secrets is None else secrets)
        self.canaries = canaries if canaries is not None else Canaries()

    @property
    def redactor(self) -> Redactor:
        """The secrets and the canaries planted so far (the compiled matcher is shared while they
        do not change)."""
        return Redactor({**self._secrets, **self.canaries.as_secrets()})

    # ----- texts ----------------------------------------------------------------------------------

    def text(self, text: str, where: str = "text about to leave the process") -> str:
        """``text`` redacted; raises ``CanaryTripped`` if a canary is in it (in any leak form)."""
        self.canaries.check(text, where)
        return self.redactor(text)

    def quietly(self, text: str, where: str = "text about to leave the process") -> str:
        """``text`` redacted, canaries included; a canary is recorded as the run's trip instead of
        raised — for writers that must not fail (logs)."""
        self.canaries.observe(text, where)
        return self.redactor(text)

    def secret_in(self, text: str) -> str | None:
        """The name of a known secret whose value (in any leak form) is in ``text``, or ``None``.
        Values only, not shapes: a test fixture's fake ``ghp_`` token is not the run's secret."""
        match = secret_matcher(self._secrets).search(text) if self._secrets else None
        return match.label if match is not None else None

    # ----- files ----------------------------------------------------------------------------------

    def write_file(self, path: str | os.PathLike[str], text: str) -> Path:
        """Write ``text`` redacted to ``path`` (parents created, replaced atomically). Raises
        ``CanaryTripped`` and writes nothing when a canary is in it."""
        target = Path(path)
        _replace_file(target, self.text(text, f"the file {target.name}").encode("utf-8"))
        return target

    def scrub_tree(self, directory: str | os.PathLike[str]) -> ScrubReport:
        """Redact every text file under ``directory`` in place, and report the canaries found (each
        is also recorded as the run's trip). Symbolic links are removed, never followed (an uploader
        would send their targets); so are binary files that hold a secret or a canary, and files over
        :data:`MAX_SCRUB_FILE_BYTES`, since neither can be redacted safely."""
        report = ScrubReport()
        redactor = self.redactor
        for root, dirs, files in os.walk(directory, followlinks=False):
            base = Path(root)
            for name in list(dirs):
                if (base / name).is_symlink():
                    dirs.remove(name)
                    (base / name).unlink()
                    report.removed.append(base / name)
            for name in files:
                self._scrub_file(base / name, redactor, report)
        return report

    def _scrub_file(self, path: Path, redactor: Redactor, report: ScrubReport) -> None:
        if path.is_symlink() or (path.is_file() and path.stat().st_size > MAX_SCRUB_FILE_BYTES):
            path.unlink()
            report.removed.append(path)
            return
        if not path.is_file():
            return  # a socket or a fifo holds no bytes to upload
        report.scanned += 1
        data = path.read_bytes()
        where = f"the file {path}"
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            text = data.decode("latin-1")  # one character per byte: every ASCII secret stays findable
            # ... and with the NULs dropped, an ASCII secret written as UTF-16 (a NUL after each byte).
            label = self.canaries.observe(text, where) or self.canaries.observe(text.replace("\0", ""), where)
            if label is not None:
                report.canaries.append((path, label))
            if label is not None or redactor(text) != text or redactor(squeezed := text.replace("\0", "")) != squeezed:
                path.unlink()
                report.removed.append(path)
            return
        text = data.decode("utf-8", errors="surrogateescape")
        label = self.canaries.observe(text, where)
        if label is not None:
            report.canaries.append((path, label))
        redacted = redactor(text)
        if redacted != text:
            _replace_file(path, redacted.encode("utf-8", errors="surrogateescape"))
            report.redacted.append(path)

    # ----- the job log -----------------------------------------------------------------

    def install_stream_redaction(self) -> Callable[[], None]:
        """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`RedactingStream` (and point logging
        handlers writing to them at the wrappers). Returns the function that undoes it, flushing
        first. Print ``::add-mask::`` commands before, or to a wrapper's ``unredacted`` stream: the
        runner must see the values it is told to mask."""
        originals = {"stdout": sys.stdout, "stderr": sys.stderr}
        wrapped: dict[str, TextIO] = {}
        for name, stream in originals.items():
            if isinstance(stream, RedactingStream):  # installed already
                wrapped[name] = originals[name]
            else:  # a TextIOBase, not typing.TextIO's nominal type: the cast is the only bridge
                wrapped[name] = cast(TextIO, RedactingStream(stream, self, name=name))
        sys.stdout, sys.stderr = wrapped["stdout"], wrapped["stderr"]
        moved = _repoint_handlers({id(s): wrapped[n] for n, s in originals.items() if wrapped[n] is not s})

        def restore() -> None:
            for stream in wrapped.values():
                stream.flush()
            sys.stdout, sys.stderr = originals["stdout"], originals["stderr"]
            for handler, stream in moved:
                handler.setStream(stream)

        return restore


@dataclass(slots=True)
class ScrubReport:
    """What :meth:`Egress.scrub_tree` did."""

    scanned: int = 0
    redacted: list[Path] = field(default_factory=list)
    #: (file, canary label) for each file a canary was found in.
    canaries: list[tuple[Path, str]] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what it passes on, a whole line at a time (a secret written in
    pieces is still seen whole). Keeps the face of the stream it wraps: ``isatty``, ``fileno`` and
    ``encoding`` answer as it does. Never raises for a canary: it is redacted and recorded."""

    def __init__(self, inner: TextIO, egress: Egress, *, name: str = "stream") -> None:
        super().__init__()
        self._inner = inner
        self._egress = egress
        self._where = f"the job log ({name})"
        self._pending = ""
        self._lock = threading.RLock()

    @property
    def unredacted(self) -> TextIO:
        """The wrapped stream (for ``::add-mask::`` commands, which must carry the real value)."""
        return self._inner

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares a plain attribute
        return self._inner.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._inner.errors

    @property
    def line_buffering(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._inner.isatty()

    def fileno(self) -> int:
        return self._inner.fileno()

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            if "\n" in self._pending:
                complete, _, self._pending = self._pending.rpartition("\n")
                self._emit(complete + "\n")
            if len(self._pending) > MAX_PENDING_LINE_CHARS:
                self._emit(self._pending)
                self._pending = ""
        return len(text)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._emit(self._pending)
                self._pending = ""
            self._inner.flush()

    def close(self) -> None:
        self.flush()  # the wrapped stream belongs to whoever opened it

    def _emit(self, text: str) -> None:
        self._inner.write(self._egress.quietly(text, self._where))


def _repoint_handlers(streams: Mapping[int, TextIO]) -> list[tuple[logging.StreamHandler[TextIO], TextIO]]:
    """Logging handlers hold the stream they were made with; those writing to a wrapped stream
    write to its wrapper from now on. Returns (handler, original stream) to undo it."""
    moved: list[tuple[logging.StreamHandler[TextIO], TextIO]] = []
    loggers: list[logging.Logger] = [logging.getLogger()]
    loggers += [lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and id(handler.stream) in streams:
                original = handler.stream
                handler.setStream(streams[id(handler.stream)])
                moved.append((handler, original))
    return moved


def _replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename, so a
    reader (the uploader) never sees half a file; an existing file's mode is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.is_file() and not path.is_symlink() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = [
    "BINARY_SNIFF_BYTES",
    "MAX_PENDING_LINE_CHARS",
    "MAX_SCRUB_FILE_BYTES",
    "Egress",
    "RedactingStream",
    "ScrubReport",
]
