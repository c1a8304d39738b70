#!/usr/bin/env python3
"""The man page and the shell completions name every option each command's --help lists.

usage: options.py man|bash|zsh OVTRACE MANPAGE|COMPLETION

The options are read from `ovtrace COMMAND --help` (every --long and -s token on its
usage and option lines),
not from the option tables, so any change to a command's options shows up here:
  man   the command's section of the man page (.SH VIEW, ...) or a section it names
        (INPUT OPTIONS, ...) mentions each option;
  bash  completing `ovtrace COMMAND -` offers each option, and an option that --help
        shows with a value (--top N, --output=FILE) completes a value, not an option (a
        file name for FILE, OUT and PATH);
        and its ENVIRONMENT section names every variable of the README's Environment table;
  zsh   the command's _arguments specs (read by running _ovtrace_COMMAND with a stub
        _arguments) name each option, and give a value to those that take one.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMANDS = ["view", "stats", "diff", "export", "query", "live", "record", "workload"]
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")
# an option followed by a metavariable: --top N, --range A:B, --output=FILE, -o OUT
VALUED = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])[ =]([A-Z][A-Z0-9_:x,.]*)(?![\w])")
USAGE_OR_OPTION = re.compile(r"^\s*(-|\[|usage:|ovtrace )")
GLOBAL = {"--help", "-h"}  # every command takes them; the man page says so once


FILE_METAVARS = {"FILE", "OUT", "PATH"}


def help_file_options(binary, cmd):
    """The options --help shows with a file name for a value (--rules FILE, -o OUT)."""
    out = subprocess.run([binary, cmd, "--help"], capture_output=True, text=True, check=True).stdout
    out = "\n".join(l for l in out.splitlines() if USAGE_OR_OPTION.match(l))
    return {m.group(1) for m in VALUED.finditer(out) if m.group(2).rstrip(",.:") in FILE_METAVARS}


def help_options(binary, cmd):
    out = subprocess.run([binary, cmd, "--help"], capture_output=True, text=True, check=True).stdout
    # usage lines and option lines (indented, starting with '-'); prose that points to
    # other commands ("ovtrace live --simulate") is not this command's
    out = "\n".join(l for l in out.splitlines() if USAGE_OR_OPTION.match(l))
    opts = set(OPT.findall(out))
    valued = {m.group(1) for m in VALUED.finditer(out)}
    if not opts:
        sys.exit(f"no options found in 'ovtrace {cmd} --help' (parser out of date?)")
    return opts, valued


def roff_text(s):
    s = re.sub(r"\\f(\[[^]]*\]|.)", "", s)
    s = re.sub(r"\\\((..)", " ", s)
    return s.replace("\\-", "-").replace("\\&", "").replace('"', "")


def check_man(binary, path):
    sections, title = {}, None
    for line in open(path, encoding="utf-8"):
        if line.startswith(".SH"):
            title = roff_text(line[3:]).strip()
            sections[title] = []
        elif title:
            sections[title].append(roff_text(line))
    text = {t: "".join(v) for t, v in sections.items()}
    everything = "".join(text.values())
    errors = []
    for g in GLOBAL:
        if not re.search(r"(?<![\w-])" + re.escape(g) + r"(?![\w-])", everything):
            errors.append(f"man page: {g} is not mentioned")
    for cmd in COMMANDS:
        own = text.get(cmd.upper())
        if own is None:
            errors.append(f"man page: no section .SH {cmd.upper()}")
            continue
        # the section and the shared sections it refers to by name
        scope = own + "".join(v for t, v in text.items() if t != cmd.upper() and len(t) > 3 and t in own)
        opts, _ = help_options(binary, cmd)
        for o in sorted(opts - GLOBAL):
            if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", scope):
                errors.append(f"man page: section {cmd.upper()} does not mention {o} ('ovtrace {cmd} --help' lists it)")
    errors += check_man_environment(text.get("ENVIRONMENT", ""))
    return errors


def readme_variables():
    """The variables of the README's Environment table (first column)."""
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
    section = open(readme, encoding="utf-8").read().split("## Environment", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    if not names:
        sys.exit("no variables found in the README's Environment table (parser out of date?)")
    return names


def check_man_environment(env_text):
    return [f"man page: ENVIRONMENT does not mention {v} (the README's Environment table lists it)"
            for v in sorted(readme_variables())
            if not re.search(r"(?<![\w])" + re.escape(v) + r"(?![\w])", env_text)]


BASH_PROBE = r"""
. "$1"
shift
probe() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _ovtrace; }
cmd=$1; shift
probe ovtrace "$cmd" -
printf 'OPTS %s\n' "${COMPREPLY[@]}"
for o in "$@"; do
  probe ovtrace "$cmd" "$o" -
  printf 'VALUE %s %s\n' "$o" "$( [ ${#COMPREPLY[@]} -eq 0 ] || [[ ${COMPREPLY[0]} != -* ]] && echo yes || echo no)"
done
"""


FILE_PROBE = r"""
. "$1"
cd "$2"
probe() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _ovtrace; }
probe ovtrace "$3" "$4" probe-
printf '%s\n' "${COMPREPLY[@]}"
"""


def check_bash(binary, path):
    errors = []
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "probe-file.json"), "w").close()
        for cmd in COMMANDS:
            for o in sorted(help_file_options(binary, cmd)):
                out = subprocess.run(["bash", "-c", FILE_PROBE, "probe", os.path.abspath(path), d, cmd, o],
                                     capture_output=True, text=True, check=True).stdout
                if "probe-file.json" not in out.split():
                    errors.append(f"bash: 'ovtrace {cmd} {o} <Tab>' does not complete file names")
    for cmd in COMMANDS:
        opts, valued = help_options(binary, cmd)
        out = subprocess.run(["bash", "-c", BASH_PROBE, "probe", path, cmd] + sorted(valued),
                             capture_output=True, text=True, check=True).stdout
        offered = {l[5:] for l in out.splitlines() if l.startswith("OPTS ")}
        for o in sorted(opts - offered):
            errors.append(f"bash: 'ovtrace {cmd} -<Tab>' does not offer {o} ('ovtrace {cmd} --help' lists it)")
        for l in out.splitlines():
            if l.startswith("VALUE ") and l.endswith(" no"):
                o = l.split()[1]
                errors.append(f"bash: 'ovtrace {cmd} {o} <Tab>' offers options, but {o} takes a value")
    return errors


ZSH_PROBE = r"""
_arguments() { print -rl -- "$@" }
source "$1" 2>/dev/null
print -r -- '==SPECS=='
_ovtrace_$2
"""
SPEC = re.compile(r"^\*?(\([^)]*\))?\*?(-{1,2}[A-Za-z0-9][A-Za-z0-9-]*)(=?)(-|\+)?(\[[^]]*\])?(:?)")


def check_zsh(binary, path):
    errors = []
    for cmd in COMMANDS:
        opts, valued = help_options(binary, cmd)
        r = subprocess.run(["zsh", "-f", "-c", ZSH_PROBE, "probe", path, cmd], capture_output=True, text=True)
        if r.returncode != 0 or "==SPECS==" not in r.stdout:
            errors.append(f"zsh: _ovtrace_{cmd} failed: {r.stderr.strip()}")
            continue
        specs = {}
        for line in r.stdout.split("==SPECS==", 1)[1].splitlines():
            m = SPEC.match(line)
            if m:
                specs[m.group(2)] = bool(m.group(3) or m.group(6))
        for o in sorted(opts - set(specs)):
            errors.append(f"zsh: _ovtrace_{cmd} has no spec for {o} ('ovtrace {cmd} --help' lists it)")
        for o in sorted(valued & set(specs)):
            if not specs[o]:
                errors.append(f"zsh: _ovtrace_{cmd}: {o} takes a value but its spec has none")
    return errors


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "bash", "zsh"):
        sys.exit(__doc__)
    mode, binary, path = sys.argv[1:]
    if mode == "zsh" and shutil.which("zsh") is None:
        print("SKIP: zsh not installed (dev.sh installs it)")
        sys.exit(77)
    errors = {"man": check_man, "bash": check_bash, "zsh": check_zsh}[mode](binary, path)
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"{mode}: every option of {', '.join(COMMANDS)} --help is there")


if __name__ == "__main__":
    main()
