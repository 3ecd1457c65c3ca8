#!/usr/bin/env python3
"""Compares the RATIO lines of two sets of `ratios` outputs.

    Benchmarks/Scripts/compare-ratios.py before.log[,before2.log] after.log[,after2.log]

Every ratio is a cost (lower is better). For each RATIO line's first ratio, takes the lowest value
among the runs on each side, prints after/before, marks the ones more than 5% slower, and ends with
how many moved which way. One run per side cannot tell a 5% change from noise: compare the mapping
lines, whose code rarely changes, to see how much a run moves by itself.
"""
import re
import sys


def load(paths):
    values = {}
    for path in paths.split(','):
        with open(path, errors='replace') as log:
            for line in log:
                match = re.match(r'RATIO (\S+) (.+?)=([0-9.eE+-]+)', line.strip())
                if match:
                    key = f'{match.group(1)} {match.group(2)}'
                    values.setdefault(key, []).append(float(match.group(3)))
    return values


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = load(sys.argv[1]), load(sys.argv[2])
    counts = {'slower': 0, 'within': 0, 'faster': 0, 'unpaired': 0}
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            counts['unpaired'] += 1
            print(f'{key:70s} only {"after" if key in after else "before"}')
            continue
        old, new = min(before[key]), min(after[key])
        change = new / old if old else float('inf')
        kind = 'slower' if change > 1.05 else 'faster' if change < 0.95 else 'within'
        counts[kind] += 1
        print(f'{key:70s} {old:10.4g} {new:10.4g} {change:6.3f}{"  SLOWER" if kind == "slower" else ""}')
    print(f'{counts["slower"]} more than 5% slower, {counts["within"]} within 5%, '
          f'{counts["faster"]} more than 5% faster, {counts["unpaired"]} unpaired')


if __name__ == '__main__':
    main()
