"""Two builds of the reshape CLI side by side: the paired ratio of their times.

    python3 ab.py BASE_CLI NEW_CLI INPUT ROUNDS RULES.json [RULES.json...]

For each rules file and for `--jobs 0` and `--jobs 1`, runs both builds ROUNDS times on INPUT
(output to a file), alternating which goes first, and prints the medians and the median of the
paired ratios NEW / BASE of wall and CPU time. On a VM whose speed moves from minute to minute,
the paired ratio is the figure to read (docs/performance.md, "Reading input with pread").
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    builds = {"base": sys.argv[1], "new": sys.argv[2]}
    source, rounds, rule_files = sys.argv[3], int(sys.argv[4]), sys.argv[5:]
    with tempfile.TemporaryDirectory(prefix="reshape-ab-") as folder:
        output = os.path.join(folder, "out.json")
        for rules in rule_files:
            for jobs in ("0", "1"):
                wall = {name: [] for name in builds}
                cpu = {name: [] for name in builds}
                for round_ in range(rounds):
                    order = list(builds) if round_ % 2 == 0 else list(builds)[::-1]
                    for name in order:
                        os.sync()
                        before = resource.getrusage(resource.RUSAGE_CHILDREN)
                        started = time.monotonic()
                        subprocess.run([builds[name], "--jobs", jobs, "--rules", rules, source, "-o", output], check=True)
                        wall[name].append(time.monotonic() - started)
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                        cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                ratio = statistics.median(n / b for n, b in zip(wall["new"], wall["base"]))
                cpu_ratio = statistics.median(n / b for n, b in zip(cpu["new"], cpu["base"]))
                print(f"{os.path.basename(rules)} --jobs {jobs}: wall base {statistics.median(wall['base']):.3f} s, "
                      f"new {statistics.median(wall['new']):.3f} s, paired {ratio:.3f}x | CPU base "
                      f"{statistics.median(cpu['base']):.3f} s, new {statistics.median(cpu['new']):.3f} s, "
                      f"paired {cpu_ratio:.3f}x", flush=True)


if __name__ == "__main__":
    main()
