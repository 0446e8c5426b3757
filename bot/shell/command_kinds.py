"""Kinds of programs, by what the analysis may assume about them.

* neutral — no effect but output or shell-local state: allowed without a rule;
* output-only — arguments are printed or compared, so ``$VAR`` arguments are harmless;
* writers — write or delete files by definition: the rule naming them is the permission to write;
* glob-sensitive — an unquoted glob could expand to a file named like one of their options.
"""

from __future__ import annotations

#: Commands with no effect but output or shell-local state: allowed without a rule (still subject
#: to deny rules, redirections and the security checks).
NEUTRAL_COMMANDS = frozenset({"cd", "pushd", "popd", "true", "false", ":", "echo", "printf", "set", "exit",
                              "pwd", "wait", "test", "[", "[[", "export", "unset", "declare", "typeset", "local",
                              "readonly", "command", "type", "read", "mapfile", "readarray"})
#: Programs whose arguments are only output or comparisons: ``$VAR`` arguments are harmless.
OUTPUT_ONLY = frozenset({"echo", "printf", "true", "false", ":", "test", "[", "[[", "exit", "return"})
#: Programs that write or delete files by definition: the rule that names them is the permission
#: to write. Other programs write only through an option or a redirection, which needs the policy
#: to allow edits.
WRITER_PROGRAMS = frozenset({"rm", "rmdir", "unlink", "shred", "mv", "cp", "install", "ln", "mkdir", "touch",
                             "chmod", "chown", "chgrp", "tee", "truncate", "dd", "tar", "gtar", "bsdtar", "git",
                             "unzip", "patch", "rsync"})
#: Programs with options that run commands or write elsewhere: an unquoted glob could expand to a
#: file named like such an option (``--pre=./x.sh``), so a glob argument needs approval.
GLOB_SENSITIVE = frozenset({"find", "rg", "sort", "sed", "gsed", "awk", "gawk", "mawk", "git", "tar", "rsync",
                            "xargs", "cp", "mv", "ln", "install", "chmod", "chown", "chgrp", "touch", "tee", "zip",
                            "unzip", "curl", "wget", "less", "more", "ssh", "scp", "make", "env", "timeout", "nice",
                            "nohup", "sudo", "doas", "watch", "flock", "jq", "parallel", "dd", "truncate", "diff",
                            "bash", "sh", "zsh", "python", "python3", "node", "perl", "ruby", "npx", "docker",
                            "podman", "nerdctl", "vim", "vi", "nvim", "view", "man", "mypy", "tox", "go", "cargo",
                            "npm", "pnpm", "yarn", "bun", "bunx", "uv", "uvx", "pip", "pip3", "poetry", "pipenv",
                            "hatch", "pdm", "bundle", "conda", "sftp", "php", "pwsh", "deno", "nodejs", "du", "tree",
                            "gtar", "bsdtar", "nawk"})
