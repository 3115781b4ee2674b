#!/usr/bin/env python3
"""Checks that the project's documents describe the system, not the history of its making.

- Every file in docs/runs/ is cited by a document under its full path (`docs/runs/NAME`), and
  every such citation names a file that exists: a log is kept because a stated number rests
  on it.
- No document dates or numbers the steps of its own making: no dates, no ordinal work
  periods, no issue numbers (history lives in git).

Run from the repository root; exits non-zero with one line per problem.
"""
import glob
import os
import re
import sys

DOCS = ["README.md", "DEVELOPMENT.md"] + sorted(glob.glob("docs/*.md"))
HISTORY = re.compile(
    r"\b(20\d\d-\d\d-\d\d|(ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth)"
    r"\b|issue[ -]\d+|calls? \d+\b)",
    re.IGNORECASE,
)


def main() -> int:
    problems = []
    text = {d: open(d, encoding="utf-8").read() for d in DOCS}
    cited = set()
    for doc, body in text.items():
        # A diff kept in git (`git show COMMIT:docs/runs/X.patch`) is history, cited as such.
        body = re.sub(r"git show [0-9a-f]+:\S+", "", body)
        for name in re.findall(r"docs/runs/([A-Za-z0-9._-]+)", body):
            cited.add(name)
            if not os.path.exists(os.path.join("docs/runs", name)):
                problems.append(f"{doc}: cites docs/runs/{name}, which does not exist")
        for lineno, line in enumerate(body.splitlines(), 1):
            m = HISTORY.search(line)
            if m:
                problems.append(
                    f"{doc}:{lineno}: `{m.group(0)}` dates or numbers the project's history; "
                    "describe the system and cite the log instead"
                )
    for name in sorted(os.listdir("docs/runs")):
        if name not in cited:
            problems.append(
                f"docs/runs/{name} is cited by no document: cite it where a number rests on "
                "it, or remove it"
            )
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
