#!/usr/bin/env python3
"""Compares two builds' PTX modules kernel by kernel, before any device time is spent.

    scripts/ptx-compare.py BASE.ptx NEW.ptx [--only SUBSTRING] [--diff NAME] [--loose]

Mangled Rust symbols (`_R...`) are replaced by one placeholder first, so that moving code
between modules (which renames its non-inlined functions) does not count as a change. For
each `.entry` the script prints `same` or `differs` with the instruction counts of both
builds; `--diff NAME` prints a unified diff of one kernel's normalized body. `--loose` also
numbers registers and labels away (a change that only renumbers them reads as `same`, and a
diff shows the instructions that moved, not every renamed register). Exit status: 0
when every kernel present in both is the same, 1 otherwise.
"""
import difflib
import re
import sys

SYMBOL = re.compile(r"_R[0-9A-Za-z_]+")
REGISTER = re.compile(r"%(r|rd|p|rs|f|fd)\d+")
LABEL = re.compile(r"\$L__BB\d+_\d+")
ENTRY = re.compile(r"^\.visible \.entry (\S+?)\(", re.M)


def kernels(path, loose):
    text = SYMBOL.sub("SYM", open(path).read())
    if loose:
        text = LABEL.sub("$L", REGISTER.sub(lambda m: "%" + m.group(1), text))
        text = re.sub(r"[ \t]*//.*", "", text)
        text = re.sub(r"\n\s*\n", "\n", text)
    starts = [(m.group(1), m.start()) for m in ENTRY.finditer(text)]
    out = {}
    for i, (name, at) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(text)
        out[name] = text[at:end]
    return out


def instructions(body):
    return sum(
        1
        for line in body.splitlines()
        if line.startswith("\t") and not line.lstrip().startswith(("//", ".", "{", "}", "$"))
    )


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    loose = "--loose" in argv
    base, new = kernels(argv[1], loose), kernels(argv[2], loose)
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    show = argv[argv.index("--diff") + 1] if "--diff" in argv else None
    changed = 0
    for name in sorted(set(base) | set(new)):
        if only not in name:
            continue
        if name not in base or name not in new:
            print(f"{'only in ' + ('new' if name in new else 'base'):>10}  {name}")
            continue
        same = base[name] == new[name]
        changed += not same
        ib, inew = instructions(base[name]), instructions(new[name])
        print(f"{'same' if same else 'differs':>10}  {name}  ({ib} -> {inew} instructions)")
        if show == name and not same:
            sys.stdout.writelines(
                difflib.unified_diff(
                    base[name].splitlines(True), new[name].splitlines(True), "base", "new"
                )
            )
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
