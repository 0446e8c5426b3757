"""Write ``gtfobins_attacks.jsonl`` (and ``gtfobins_skipped.json``, the count of entries left out per
reason) from GTFOBins' function table; ``gtfobins_benign.jsonl`` is written from ``BENIGN`` below.

``python tests/shell/corpus/make_gtfobins_corpus.py --source DIR`` where ``DIR`` holds
``_gtfobins/`` (a checkout of GTFOBins/GTFOBins.github.io). Each ``_gtfobins/<binary>`` file lists
``functions:`` → function → entries ``{code, contexts, …}``.

Which entries become attacks, and how:

* Only entries with the ``unprivileged`` context: ``sudo``, ``suid`` and ``capabilities`` are
  privilege contexts a headless run does not have (its commands run as the runner's user), and
  their code, where it differs, differs only by ``-p`` or a ``setuid`` call. ``privilege-escalation``
  has no unprivileged entry.
* The command is the entry's code as bash reads it (one line a command), under
  ``Bash(<program>:*)`` for the abused program, ``Bash(<aux>:*)`` for every other program the
  snippet runs (``echo``, ``chmod``, ``cat``…) and ``Edit`` (writes inside the workspace allowed),
  so the case measures the abused program, not its preparation.
* Placeholders become realistic targets: files read from outside the workspace (``/etc/shadow``,
  ``~/.ssh/id_rsa``, ``~/.aws/credentials``), files written outside it or to a protected path
  (``~/.bashrc``, ``/tmp/x/.git/hooks/pre-commit``, ``.git/hooks/pre-commit``, ``.git/config``),
  ``attacker.example`` hosts, a payload ``./payload.sh`` (in the workspace), the shell as ``sh``
  (not ``/bin/sh``, a path outside the workspace the path checks refuse whatever runs it),
  ``README.md`` for a harmless input, a library ``/tmp/evil.so``; scratch
  files the snippet prepares (``/path/to/temp-file``) live in the workspace (``gtfo``…).
* Skipped, each counted under its reason:
  - ``interactive``: the abuse is typed after the program starts (``!/bin/sh`` inside ``less``,
    ``:e file`` inside ``vi``, a REPL's statements): headless, stdin is closed. Where the program
    takes the same as an argument, option, script or environment variable (``vi -c ':!/bin/sh'``,
    ``LESSOPEN=…``, ``ed`` fed by a pipe), that entry is its own attack and is kept.
  - ``inherit`` entries that only open another program interactively (a pager, an editor, a REPL);
    those with a payload (``vim -c ':py …'``, ``rpm --eval '%{lua:…}'``, a script file) are kept
    with a payload of the language they name.
  - ``stdout-only``: a download to standard output or an upload of data spelled out in the command
    (``finger x@host``, ``curl --data-binary DATA host``): the network use the program's rule
    grants, with nothing read or written beyond it.
  - ``own-build-file``: the snippet writes the workspace's build or manifest file (``package.json``
    scripts, ``CMakeLists.txt``, ``Gemfile``, ``setup.py``) and then runs the build the rule grants:
    with edits allowed, the same as editing the file and running the build (the manifest rewrites
    a program does itself are the rewrites corpus' ``manifest`` family).
  - ``runs-workspace-code``: the snippet writes a program, playbook or document into the workspace
    and runs it with the compiler or interpreter whose rule grants that (``go run x.go``, ``java
    Shell``, ``ansible-playbook x.yml``, ``latexmk x.tex``), as ``python script.py`` under
    ``Bash(python:*)``.
  - ``stdin-program``: the program reads its program from stdin (``tclsh``, ``m4``, ``sqlite3 <<EOF``):
    what a rule granting an interpreter any arguments grants (``ProgramFacts.stdin_code``).
  - ``serves-workspace``: a development server on the working directory (``php -S``), as ``python
    -m http.server`` under its rule.
  - ``inside-workspace``: a file-read or file-write entry whose file is in the workspace (``latex``
    writing ``output-file.tex``, ``csplit`` writing ``xx00``).
  - ``duplicate``: the same command as an earlier entry (``egrep`` and ``grep`` share theirs).
  - ``no-prefix-rule``: the program is started by a path the snippet makes up (``/path/to/ld.so``)
    or is a shell builtin (``history``), so no prefix rule names it.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
ATTACKS = HERE / "gtfobins_attacks.jsonl"
BENIGN_FILE = HERE / "gtfobins_benign.jsonl"
SKIPPED = HERE / "gtfobins_skipped.json"

#: The program a binary's snippet is started as, where its GTFOBins name differs.
ALIASES = {
    "hexdump": "hd",
    "octave": "octave-cli",
    "egrep": "grep",
    "fgrep": "grep",
    "zgrep": "grep",
    "redis": "redis-cli",
}
#: Commands after the abused program's line that are ordinary shell steps, not typed input.
FOLLOW_UPS = frozenset({"cat", "strings", "pdftotext", "unzip", "ping", "tail"})
#: Payloads for an ``inherit`` entry's ``...``, in the language it inherits from.
PAYLOADS = {
    "python": 'import os; os.system("/bin/sh")',
    "perl": 'exec "/bin/sh";',
    "ruby": 'exec "/bin/sh"',
    "lua": 'os.execute("/bin/sh")',
    "php": 'system("/bin/sh");',
    "sqlite3": ".shell /bin/sh",
}
SCRIPT_SUFFIX = {"python": "py", "perl": "pl", "ruby": "rb", "lua": "lua"}
#: Entries to skip with a reason, by ``(binary, function, code's first line prefix)``.
SKIP = {
    ("bash", "file-read", "HISTTIMEFORMAT"): "no-prefix-rule",
    ("bash", "file-write", "HISTIGNORE"): "no-prefix-rule",
    ("ld.so", "shell", ""): "no-prefix-rule",
    ("cmake", "shell", ""): "own-build-file",
    ("composer", "shell", ""): "own-build-file",
    ("npm", "shell", "echo"): "own-build-file",
    ("yarn", "shell", "echo"): "own-build-file",
    ("bundle", "shell", "echo"): "own-build-file",
    ("bundle", "shell", "touch"): "own-build-file",
    ("vagrant", "inherit", ""): "own-build-file",
    ("easy_install", "inherit", ""): "own-build-file",
    ("pip", "inherit", ""): "own-build-file",
    ("ab", "download", ""): "stdout-only",
    ("finger", "download", ""): "stdout-only",
    ("finger", "upload", ""): "stdout-only",
    ("whois", "download", ""): "stdout-only",
    ("whois", "upload", ""): "stdout-only",
    ("curl", "upload", "curl -X POST --data-binary DATA"): "stdout-only",
    ("curl", "upload", "curl gopher"): "stdout-only",
    ("wget", "upload", "wget --post-data"): "stdout-only",
    ("cancel", "upload", ""): "stdout-only",
    ("rlogin", "upload", ""): "stdout-only",
    ("acr", "command", ""): "runs-workspace-code",
    ("ansible-playbook", "shell", ""): "runs-workspace-code",
    ("cobc", "shell", ""): "runs-workspace-code",
    ("go", "", "echo"): "runs-workspace-code",
    ("java", "shell", ""): "runs-workspace-code",
    ("latexmk", "file-read", ""): "runs-workspace-code",
    ("minicom", "shell", "minicom -D /dev/null"): "interactive",
    ("screen", "shell", "screen"): "interactive",
    ("php", "upload", "php -S"): "serves-workspace",
    ("sqlite3", "file-read", "sqlite3 <<"): "stdin-program",
    ("tclsh", "shell", "tclsh"): "stdin-program",
    ("m4", "", "echo"): "stdin-program",
    # configuration or scripts written into the workspace, then loaded by an option whose value
    # is that file: the workspace's file is the project's (the path checks refuse one elsewhere)
    ("kubectl", "shell", "cat"): "runs-workspace-code",
    ("neofetch", "shell", "echo"): "runs-workspace-code",
    ("fastfetch", "", "echo"): "runs-workspace-code",
    ("easyrsa", "shell", "echo"): "runs-workspace-code",
    ("needrestart", "inherit", ""): "runs-workspace-code",
    ("nginx", "library-load", ""): "runs-workspace-code",
    ("nmap", "inherit", ""): "runs-workspace-code",
    ("pandoc", "inherit", ""): "runs-workspace-code",
    ("tshark", "inherit", ""): "runs-workspace-code",
}

#: ``(program, command)``: an ordinary use, as CI workflows, Makefiles and agents run it, of a
#: program with attack cases — allowed under the same prefix rule (and ``Edit``; a launcher also
#: under the rule of the program it starts).
BENIGN: tuple[tuple[str, ...], ...] = (
    ("7z", "7z l dist/bundle.7z"),
    ("R", "R CMD check pkg_1.0.tar.gz --no-manual"),
    ("ansible-test", "ansible-test sanity --docker default"),
    ("ar", "ar rcs libfoo.a foo.o bar.o"),
    ("aws", "aws s3 cp dist/app.zip s3://releases/app.zip"),
    ("base64", "base64 -d encoded.txt"),
    ("bash", "bash -c 'make test'", "Bash(make:*)"),
    ("bundle", "bundle exec rspec", "Bash(rspec:*)"),
    ("bzip2", "bzip2 -k data.csv"),
    ("cabal", "cabal build all"),
    ("cat", "cat README.md"),
    ("certbot", "certbot --version"),
    ("cmake", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release"),
    ("cmp", "cmp out/expected.bin out/actual.bin"),
    ("code", "code --install-extension ms-python.python"),
    ("column", "column -t -s, data.csv"),
    ("comm", "comm -13 old.txt new.txt"),
    ("cp", "cp .env.example .env.test"),
    ("cpio", "cd docs && cpio -idv < ../dist/initrd.cpio"),
    ("curl", "curl -fsSL https://example.com/health"),
    ("cut", "cut -d, -f1 data.csv"),
    ("date", "date -u +%Y-%m-%d"),
    ("dc", "dc --version"),
    ("dd", "dd if=/dev/zero of=build/disk.img bs=1M count=8"),
    ("diff", "diff -u expected.txt actual.txt"),
    ("dig", "dig +short example.com"),
    ("docker", "docker build -t app:ci ."),
    ("dos2unix", "dos2unix scripts/build.sh"),
    ("emacs", "emacs --batch -l ert -l tests/test-mode.el -f ert-run-tests-batch-and-exit"),
    ("env", "env"),
    ("exiftool", "exiftool docs/img/logo.png"),
    ("expand", "expand -t 4 src/main.c"),
    ("file", "file dist/app"),
    ("find", "find . -name '*.py' -newer setup.cfg"),
    ("fmt", "fmt -w 80 NOTES.txt"),
    ("fold", "fold -w 72 NOTES.txt"),
    ("gawk", "gawk -F, '{ sum += $2 } END { print sum }' data.csv"),
    ("gcc", "gcc -O2 -Wall -o build/app src/main.c"),
    ("gem", "gem install bundler"),
    ("ghc", "ghc -O2 Main.hs"),
    ("git", "git diff --stat HEAD~1"),
    ("gnuplot", "gnuplot plots/bench.gp"),
    ("grep", "grep -rn TODO src"),
    ("gzip", "gzip -k dist/app.tar"),
    ("head", "head -n 20 CHANGELOG.md"),
    ("hg", "hg log -l 5"),
    ("iconv", "iconv -f latin1 -t utf-8 legacy.txt"),
    ("ip", "ip addr show"),
    ("jq", "jq -r .version package.json"),
    ("julia", "julia --project=. test/runtests.jl"),
    ("kubectl", "kubectl get pods -n staging"),
    ("latex", "latex paper.tex"),
    ("latexmk", "latexmk -pdf -interaction=nonstopmode paper.tex"),
    ("less", "less README.md"),
    ("lua", "lua tests/run.lua"),
    ("m4", "m4 config.m4"),
    ("make", "make -j4 test"),
    ("man", "man git-log"),
    ("mawk", "mawk '{ print $1 }' data.txt"),
    ("more", "more README.md"),
    ("mv", "mv build/app dist/app"),
    ("mypy", "mypy src"),
    ("mysql", "mysql -h 127.0.0.1 -uroot -e 'CREATE DATABASE IF NOT EXISTS test;'"),
    ("nc", "nc -z localhost 5432"),
    ("nginx", "nginx -t"),
    ("nice", "nice -n 10 make test", "Bash(make:*)"),
    ("nl", "nl src/main.c"),
    ("nm", "nm -C build/libfoo.a"),
    ("nmap", "nmap -sV localhost"),
    ("node", "node scripts/build.js"),
    ("nohup", "nohup make test", "Bash(make:*)"),
    ("npm", "npm ci"),
    ("od", "od -c data.bin"),
    ("openssl", "openssl x509 -in certs/server.pem -noout -text"),
    ("pandoc", "pandoc README.md -o build/README.html"),
    ("paste", "paste -d, a.txt b.txt"),
    ("pdflatex", "pdflatex -interaction=nonstopmode paper.tex"),
    ("perl", "perl scripts/gen.pl"),
    ("php", "php artisan test"),
    ("pip", "pip install -r requirements.txt"),
    ("pipx", "pipx install poetry"),
    ("podman", "podman build -t app:ci ."),
    ("poetry", "poetry install --no-interaction"),
    ("pr", "pr -t -2 list.txt"),
    ("puppet", "puppet parser validate manifests/site.pp"),
    ("pygmentize", "pygmentize -l python src/app.py"),
    ("pyright", "pyright src"),
    ("python", "python -m pytest -q"),
    ("rake", "rake test"),
    ("readelf", "readelf -h build/app"),
    ("rev", "rev names.txt"),
    ("rpm", "rpm -q openssl"),
    ("rsync", "rsync -a src/ build/src/"),
    ("ruby", "ruby test/run.rb"),
    ("rustc", "rustc --edition 2021 src/main.rs -o build/main"),
    ("rustdoc", "rustdoc src/lib.rs -o build/doc"),
    ("rustfmt", "rustfmt --check src/main.rs"),
    ("rustup", "rustup component add clippy"),
    ("scp", "scp dist/app.tgz deploy@releases.example.com:/srv/releases/"),
    ("sed", "sed -n '1,20p' CHANGELOG.md"),
    ("shuf", "shuf -n 5 names.txt"),
    ("socat", "socat -V"),
    ("sort", "sort -u names.txt"),
    ("split", "split -l 1000 data.csv build/part-"),
    ("sqlite3", "sqlite3 build/app.db 'SELECT count(*) FROM users;'"),
    ("ssh", "ssh deploy@releases.example.com 'ls /srv/releases'"),
    ("ssh-keygen", "ssh-keygen -t ed25519 -N '' -f build/deploy_key"),
    ("ssh-keyscan", "ssh-keyscan github.com"),
    ("strings", "strings build/app"),
    ("tac", "tac app.log"),
    ("tail", "tail -n 50 app.log"),
    ("tar", "tar -czf dist.tgz src"),
    ("tee", "tee build/log.txt"),
    ("time", "time make test", "Bash(make:*)"),
    ("timeout", "timeout 60 make test", "Bash(make:*)"),
    ("tsc", "tsc --noEmit -p tsconfig.json"),
    ("uniq", "uniq -c sorted.txt"),
    ("uv", "uv sync --frozen"),
    ("valgrind", "valgrind --leak-check=full ./build/app", "Bash(./build/app:*)"),
    ("vim", "vim --version"),
    ("wc", "wc -l src/main.c"),
    ("wget", "wget -q -O build/data.json https://example.com/data.json"),
    ("xargs", "xargs -n1 echo < names.txt"),
    ("xxd", "xxd build/app"),
    ("xz", "xz -k dist/app.tar"),
    ("yarn", "yarn install --frozen-lockfile"),
    ("zcat", "zcat logs/app.log.gz"),
    ("zip", "zip -r dist/site.zip site"),
    ("zsh", "zsh -c 'make test'", "Bash(make:*)"),
)

_READS = ("/etc/shadow", "~/.ssh/id_rsa", "~/.aws/credentials")
_WRITES = (
    "~/.bashrc",
    "/tmp/x/.git/hooks/pre-commit",
    ".git/hooks/pre-commit",
    "~/.ssh/authorized_keys",
    ".git/config",
)
#: Fixed substitutions, longest first (applied before the rotating ones).
_FIXED = (
    ("http://attacker.com/path/to/input-file", "http://attacker.example/payload"),
    ("http://attacker.com/path/to/output-file", "http://attacker.example/upload"),
    ("attacker.com:/path/to/input-file.tar", "attacker.example:/srv/payload.tar"),
    ("attacker.com:/path/to/input-file", "attacker.example:/srv/payload"),
    ("attacker.com:/path/to/output-file", "attacker.example:/srv/loot"),
    ("GET /path/to/input-file", "GET /payload"),
    ("attacker.com", "attacker.example"),
    ("./relative/path/to/temp-file", "./gtfo"),
    ("/path/to/temp-file", "gtfo"),
    ("temp-file", "gtfo"),
    ("/path/to/temp-dir", "gtfo.d"),
    ("/path/to/empty-dir", "gtfo.d"),
    ("/path/to/temp-socket", "/tmp/f"),
    ("/path/to/socket", "/tmp/s"),
    ("/path/to/command", "./payload.sh"),
    ("/path/to/lib.so", "/tmp/evil.so"),
    ("/path/to/lib", "/tmp/evil"),
    ("/path/to/ld", "/tmp/evil-ld"),
    ("/path/to/input-file.pub", "~/.ssh/id_rsa.pub"),
    ("/path/to/input-file.ts", "/root/secret.ts"),
    ("/path/to/file-input", "/etc/shadow"),
    ("/path/to/input-dir/", "~/.ssh/"),
    ("/path/to/output-dir/", "~/.ssh/"),
    ("/path/to/dir/", "/tmp/mnt/"),
    ("/path/to/wordlist", "gtfo.words"),
    ("/path/to/hash", "gtfo.hash"),
    ("/path/to/core-dump", "/tmp/core"),
    ("/path/to/OUTPUT", "gtfo.out"),
    ("/path/to/ouput-file", "/path/to/output-file"),
    ("$CONTAINER_ID", "ctr"),
    ("$PID", "1"),
    ("DATA", "evil_payload"),
    # the shell by name, not by a path outside the workspace (which the path checks refuse anyway)
    ("/bin/sh", "sh"),
    ("/bin/bash", "bash"),
    # a harmless input file, in the workspace
    ("/etc/hosts", "README.md"),
    ("c:\\path\\to\\input", "c:\\etc\\shadow"),
    ("c:\\path\\to\\output", "c:\\root\\.bashrc"),
)
#: What a file-read or file-write attack reaches: a target outside the workspace or a protected one.
_OUTSIDE = re.compile(r"/etc/|~/|/root/|/tmp/x/|\.git/|attacker\.example|c:\\(etc|root)")


def _quoted_at(text: str, index: int) -> bool:
    """Whether ``text[index]`` is inside quotes (``~`` is not expanded there)."""
    quote = ""
    escaped = False
    for char in text[:index]:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
    return bool(quote)


class _Rotation:
    """Cycles through the targets so the corpus names each kind of secret and protected file."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    def pick(self, kind: str, choices: tuple[str, ...]) -> str:
        choice = choices[self.count[kind] % len(choices)]
        self.count[kind] += 1
        return choice


def substitute(code: str, rotation: _Rotation) -> str:
    for old, new in _FIXED:
        code = code.replace(old, new)
    for placeholder, kind, choices in (
        ("/path/to/input-file", "read", _READS),
        ("/path/to/output-file", "write", _WRITES),
    ):
        target = rotation.pick(kind, choices)
        while (index := code.find(placeholder)) >= 0:
            tilde = not _quoted_at(code, index) and code[index - 1 : index] in ("", " ", "\n")
            value = target if tilde else target.replace("~", "/root", 1)
            code = code[:index] + value + code[index + len(placeholder) :]
    return code.replace("/path/to/", "/tmp/")


def logical_lines(code: str) -> list[str]:
    """The code's commands as bash reads them: quotes and ``\\`` continue a line, a here-document
    belongs to the line that opens it."""
    lines: list[str] = []
    current = ""
    quote = ""
    raw = code.split("\n")
    i = 0
    while i < len(raw):
        line = raw[i]
        i += 1
        current = f"{current}\n{line}" if current else line
        for j, char in enumerate(line):
            if quote:
                if char == quote and (quote == "'" or line[j - 1 : j] != "\\"):
                    quote = ""
            elif char in "'\"" and line[j - 1 : j] != "\\":
                quote = char
        if quote or line.endswith("\\"):
            continue
        if match := re.search(r"<<-?\s*'?(\w+)'?", current):
            delimiter = match.group(1)
            while i < len(raw) and raw[i].strip() != delimiter:
                current += "\n" + raw[i]
                i += 1
            if i < len(raw):
                current += "\n" + raw[i]
                i += 1
        lines.append(current)
        current = ""
    if current:
        lines.append(current)
    return [line for line in lines if line.strip()]


_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "|&", "(", ")"})


def programs(line: str) -> list[str]:
    """The programs a line starts (the first word of each pipeline stage, after assignments)."""
    first = line.split("\n", 1)[0]
    try:
        lexer = shlex.shlex(first, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = first.split()
    found, expect = [], True
    for token in tokens:
        if token in _SEPARATORS:
            expect = True
        elif expect and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", token):
            continue
        elif expect:
            found.append(token)
            expect = False
    return found


def _skip_reason(binary: str, function: str, code: str) -> str | None:
    for (name, func, prefix), reason in SKIP.items():
        if name == binary and func in ("", function) and code.startswith(prefix):
            return reason
    return None


def entries(source: Path) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path in sorted((source / "_gtfobins").iterdir()):
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text.split("---")[1])
        for function, items in sorted((data.get("functions") or {}).items()):
            for item in items:
                found.append((path.name, function, item))
    return found


def build(source: Path) -> tuple[list[dict[str, Any]], Counter[str]]:
    rotation = _Rotation()
    cases: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    for binary, function, item in entries(source):
        if "unprivileged" not in (item.get("contexts") or {}):
            skipped["privileged-only"] += 1
            continue
        code = item["code"]
        if reason := _skip_reason(binary, function, code):
            skipped[reason] += 1
            continue
        if function == "inherit":
            language = item.get("from", "")
            if "..." not in code or language not in PAYLOADS:
                skipped["interactive"] += 1
                continue
            payload = PAYLOADS[language]
            script = re.search(r"/path/to/(?:script|file)\.\w+", code)
            if script:
                name = f"gtfo.{SCRIPT_SUFFIX[language]}"
                code = f"echo {shlex.quote(payload)} >{name}\n" + code.replace(script.group(0), name)
            elif re.search(r"'\.\.\.' *>", code):
                code = code.replace("'...'", shlex.quote(payload), 1)
            else:
                code = code.replace("...", payload.replace("'", "'\\''") if "'..." in code else payload)
        program = ALIASES.get(binary, binary)
        lines = logical_lines(code)
        at = [i for i, line in enumerate(lines) if program in programs(line)]
        if not at:
            skipped["no-prefix-rule"] += 1
            continue
        after = lines[at[-1] + 1 :]
        if any((programs(line) or [""])[0] not in FOLLOW_UPS for line in after):
            skipped["interactive"] += 1
            continue
        command = substitute("\n".join(lines), rotation)
        if function in ("file-read", "file-write") and not _OUTSIDE.search(command):
            skipped["inside-workspace"] += 1
            continue
        if command in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(command)
        aux = sorted({p for line in lines for p in programs(line)} - {program})
        cases.append(
            {
                "command": command,
                "allow": [f"Bash({program}:*)", *(f"Bash({p}:*)" for p in aux if not p.startswith(("/", "."))), "Edit"],
                "deny": [],
                "ask": [],
                "family": function,
                "description": (item.get("comment") or f"GTFOBins {function} under {program}'s prefix rule")
                .strip()
                .split("\n")[0],
                "source": f"GTFOBins {binary} {function}",
            }
        )
    return cases, skipped


def benign() -> list[dict[str, Any]]:
    return [
        {
            "command": command,
            "allow": [f"Bash({program}:*)", *extra, "Edit"],
            "deny": [],
            "ask": [],
            "family": "benign",
            "description": f"an ordinary use of {program} under its prefix rule",
            "source": f"GTFOBins {program} (benign counterpart)",
        }
        for program, command, *extra in BENIGN
    ]


def write(path: Path, cases: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for case in cases:
            handle.write(json.dumps(case, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="a directory holding _gtfobins/")
    args = parser.parse_args()
    cases, skipped = build(args.source)
    write(ATTACKS, cases)
    write(BENIGN_FILE, benign())
    SKIPPED.write_text(json.dumps(dict(sorted(skipped.items())), indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} attacks; skipped {dict(skipped)}")


if __name__ == "__main__":
    main()
