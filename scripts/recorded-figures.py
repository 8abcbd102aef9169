#!/usr/bin/env python3
"""Prints the performance figures docs/PERFORMANCE.md records (the table whose first
column is "figure"), so that `make bench` shows this run's figures beside the last recorded ones.
Usage: scripts/recorded-figures.py [docs/PERFORMANCE.md]"""
import re
import sys


def rows(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\|\s*figure\s*\|", line):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    return
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                if len(cells) >= 2:
                    yield cells[0], cells[1]
            return


def plain(cell):
    return re.sub(r"\*\*|`", "", cell)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "docs/PERFORMANCE.md"
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"cannot read {path}: {e}")
    found = list(rows(text))
    if not found:
        sys.exit(f"{path} has no performance table (a table whose first column is 'figure')")
    print(f"== the figures {path} records (the last measured run), for comparison ==")
    for name, value in found:
        print(f"- {plain(name)}: {plain(value)}")


if __name__ == "__main__":
    main()
