"""Shell variables a command sets for the commands after it: which builtins assign which names,
what ``export`` exports, and which names can change what a program runs."""

from __future__ import annotations

from bot.shell.parse.assignments import is_safe_env_var

_PROXY_VARS = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})
#: Builtins that assign the variables they name.
VARIABLE_SETTERS = frozenset({"read", "mapfile", "readarray", "printf", "wait", "getopts"})


def set_variables(program: str, values: list[str]) -> list[str]:
    """The variables ``read``/``mapfile`` (operands), ``printf -v``, ``wait -p`` and ``getopts``
    (its second operand) assign."""
    if program in ("printf", "wait"):
        letter = "v" if program == "printf" else "p"
        names: list[str] = []
        for k, value in enumerate(values[1:], start=1):
            if value == "--" or not value.startswith("-"):
                break
            at = value.find(letter, 1)
            if at != -1:
                attached = value[at + 1 :]
                names.append(attached or (values[k + 1] if k + 1 < len(values) else ""))
        return names
    operands = [v for v in values[1:] if not v.startswith("-")]
    if program == "getopts":
        return operands[1:2]
    return operands


def exported_names(values: tuple[str, ...]) -> list[str]:
    """Names ``export NAME``/``declare -x NAME``/``typeset -x`` export without assigning them."""
    if not values or values[0] not in ("export", "declare", "typeset", "local", "readonly"):
        return []
    options = [v for v in values[1:] if v.startswith("-")]
    if values[0] == "export":
        if any("n" in o for o in options):  # export -n removes the export
            return []
    elif not any("x" in o for o in options):
        return []
    return [v.split("=", 1)[0] for v in values[1:] if not v.startswith(("-", "+"))]


def set_physical(values: list[str]) -> bool | None:
    """``set -P``/``set -o physical`` (True), ``set +P``/``set +o physical`` (False), else ``None``."""
    result: bool | None = None
    for k, value in enumerate(values[1:], start=1):
        if value in ("-o", "+o") and k + 1 < len(values) and values[k + 1] == "physical":
            result = value == "-o"
        elif len(value) > 1 and value[0] in "-+" and value[1] != "-" and "P" in value:
            result = value[0] == "-"
    return result


def may_change_programs(name: str) -> bool:
    """Programs read upper-case environment variables (and the proxy settings); a lower-case shell
    variable such as ``x=1`` changes nothing they run."""
    if is_safe_env_var(name):
        return False
    return not name.islower() or name in _PROXY_VARS
