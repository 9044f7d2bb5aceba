#!/usr/bin/env python3
"""Large payloads: Reshape against its peers, file to file, on Firebase-style payloads.

What it measures
----------------
Every tool runs as a whole process that reads a file and writes compact JSON to a file, as a
script or a job would, on a deterministic Firebase-style payload (`payload.py`: a top-level
object of 20-character push ids mapping to ~350-byte user records with unicode, escapes, ints,
reals, a nested `profile`, `tags`, `avatar` = `{}` in 30% and `plan` = `""` in 40% of the
records, camelCase names) of 10 MB, 100 MB and 1 GB (287,687 records per 100 MB). Two workloads:

    A  [{"op":"keyedToArray","idKey":"id","wrapIn":"users"}]
    B  A, then {"op":"emptyObjectToNull"}, {"op":"blankStringToNull"},
       {"op":"convertKeys","to":"snake_case"}

The tools:

    reshape CLI        reshape --rules R IN --output OUT --jobs 0    (all cores; the reference)
    reshape CLI -j1    the same with --jobs 1
    Python binding     reshape.Rules(R).apply_file(IN, OUT)          (jobs=None: all cores; reshape_binding.py)
    jq 1.6             jq -c -f workload_a.jq / workload_b.jq IN > OUT
    Python json        peer_python.py: json.loads, a dict comprehension, json.dumps
    orjson             the same script with orjson, default GC
    orjson gc.disable  the same with gc.disable() first

The binding imports this checkout's package with its bytecode cached under the temporary folder
(PYTHONPYCACHEPREFIX), as an installed package has it, even where PYTHONDONTWRITEBYTECODE is set.

While `--jobs` or `apply_file` do not exist yet, the CLI runs without `--jobs` (and the --jobs 1
row is left out) and the binding falls back to `apply(read_bytes())` + `write_bytes`; the report
says so. Each run is a process under `/usr/bin/time -v`, which gives its peak memory ("Maximum
resident set size"); its wall time is measured around that process with a monotonic clock (the
`/usr/bin/time` "Elapsed" figure has only 10 ms resolution, 3% of a 0.3 s run; the clock also
counts `/usr/bin/time`'s own start, about 1 ms, for every tool alike). Before each run the page
cache's dirty pages are written out (`os.sync()`, not timed), so that no tool pays for writing
back the output of the one before it: the peers (and `Rules.apply` with `write_bytes`) leave theirs
to the kernel, while the reshape CLI and `apply_file` sync their own output before they return,
which their times include. Runs alternate: round after round, every tool once per round, so
that a noisy machine slows all of them alike; the table gives medians. Each round starts one tool
further down the list (round 2 with the second tool, and so on), so that no tool always runs right
after the peers that use 8 GB of memory and leave a disk busy with their output. Before anything
is timed the payload is read once, so every tool finds it in the page cache.

Before and after each size and workload, a probe says how much parallelism the machine itself
gives at that moment: `spin.c` run once alone and then twice at once (three times each), as a
CPU-only loop and as memory copies. On two idle cores two copies take as long as one (2.00×); on
a shared VM whose neighbours are busy, less. The report gives both beside the all-cores ratio and
under each table.

The outputs of the first round are kept and checked after the timed rounds: every tool's output
must parse to the same data as the reshape CLI's (compared as parsed JSON: member order and the
difference between 1 and 1.0 are ignored, as jq writes 1.0 as 1); the engine's own rows must
also be byte-identical. A mismatch is printed loudly with the first differing path; it means a
peer script (or Reshape) is wrong and that row's time means nothing.

At 1 GB (sizes of 1000 MB and more) the rounds default to 3 (`--large-runs`), and jq and the
pure-Python `json` peer are left out (minutes per run, 10+ GB of memory) unless `--all-peers`.

Then a small-response benchmark: `small_response.c` calls `reshape_apply` on a 433-byte Firebase
response with 3 records (`small_response.json`, rules `small_rules.json`: keyedToArray,
emptyObjectToNull, convertKeys to camelCase) in rounds of 20,000 calls after a warm-up, and
`small_response_orjson.py` does the same work per document with orjson; both print microseconds
per document (best round, median round).

The report (markdown, on standard output; progress goes to standard error) has the machine, the
exact command, one table per size and workload (median seconds, median peak RSS, time relative to
the reshape CLI), and the issue's targets: CLI vs orjson gc.disable on A (>= 2.5x), vs jq on A
(>= 8x), vs orjson gc.disable on B (>= 5x), all cores vs --jobs 1 (>= 1.7x), the binding's
apply_file within 10% of the CLI, the CLI's peak RSS <= 64 MiB at 100 MB and 1 GB, and the small
response at <= 3 us per call and >= 5x orjson. Ratios are judged at 100 MB, where the issue sets them;
other sizes show theirs for reference. A ratio is the median over rounds of the two tools' times
in the same round (paired runs, as the issue's own figures were taken: on a shared machine both
meet the same neighbours), with the ratio of the two medians beside it. The binding's row is
given twice: the whole process, and the call alone (`reshape_binding.py` times compiling the rules
and `apply_file`, leaving out Python's own start and imports, which on some machines take a third
of the CLI's whole run at 100 MB).

How to run
----------
From the repository root (never part of the test suite; about 45 minutes with the defaults on a
2-core machine, most of it at 1 GB; the 1 GB payload takes about a minute to generate):

    python3 Benchmarks/streaming/run.py [--sizes 10,100,1000] [--runs 5] [--reshape PATH]
                                        [--library PATH] [--out-dir DIR]

    python3 Benchmarks/streaming/run.py --sizes 10 --runs 1        # a quick check, ~1 minute

    python3 Benchmarks/streaming/run.py --baseline OLD/.build/release/reshape   # against an earlier build

--baseline adds an earlier build of the CLI (a clone at an earlier commit, built with the command
below) beside this one, at all cores and with --jobs 1, and a target row for each: this build at
most 5% slower, from paired rounds.

Without --reshape it builds the CLI (`swift build -c release --traits CLI --product reshape`) and without
--library it builds libreshape.so (CMake), both under --build-dir (default
/tmp/reshape-streaming-build, never the repository's .build or build). The Python binding is
loaded from this checkout's bindings/python with RESHAPE_LIBRARY set to that library. Payloads,
rules documents and outputs go to --out-dir: by default a fresh folder under /tmp, removed at the
end (--keep keeps it); a given --out-dir is kept, and payloads already in it are reused. Needs
/usr/bin/time, jq 1.6 and orjson for python3 (a missing peer is left out with a note), cc, and
disk for the payload plus one output per tool (about 8 GB at 1 GB).
"""

import argparse
import datetime
import gc
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no __pycache__ next to the benchmark
import payload  # noqa: E402  (the generator, next to this file)

PYTHON = sys.executable or "python3"
JQ = "/usr/bin/jq"
TIME = "/usr/bin/time"
MIB = 1024 * 1024

WORKLOADS = {
    "A": [{"op": "keyedToArray", "idKey": "id", "wrapIn": "users"}],
    "B": [
        {"op": "keyedToArray", "idKey": "id", "wrapIn": "users"},
        {"op": "emptyObjectToNull"},
        {"op": "blankStringToNull"},
        {"op": "convertKeys", "to": "snake_case"},
    ],
}
WORKLOAD_NAMES = {
    "A": "keyedToArray (wrapIn users)",
    "B": "keyedToArray + emptyObjectToNull + blankStringToNull + convertKeys snake_case",
}
# One workload per op that runs per record, after keyedToArray (no wrapIn: records at $[*]), and
# two mixed lists, on the payload whose records have `groups`, an array of objects (payload.py); the reference is KEYED, keyedToArray alone. Each has its orjson script in
# peer_python.py; they run with the CLI (all cores) and orjson with gc.disable() only
# (`--workloads ops`). Issue "One engine": each within 1.5x of KEYED, and >= 5x the script.
KEYED = {"op": "keyedToArray", "idKey": "id"}
OP_WORKLOADS = {
    "KEYED": ([KEYED], "keyedToArray alone"),
    "REMOVE": ([KEYED, {"op": "remove", "path": "$[*].tags"}], "remove $[*].tags"),
    "DEFAULT": ([KEYED, {"op": "default", "path": "$[*]", "key": "role", "value": "user"}], "default $[*] role"),
    "COERCE": ([KEYED, {"op": "coerce", "path": "$[*].createdAt", "to": "string"}], "coerce $[*].createdAt to string"),
    "RENAMEKEYS": ([KEYED, {"op": "renameKeys", "path": "$[*]", "map": {"displayName": "name"}}],
                   "renameKeys $[*] displayName → name"),
    "CONVERTKEYS": ([KEYED, {"op": "convertKeys", "path": "$[*].profile", "to": "snake_case"}],
                    "convertKeys $[*].profile to snake_case"),
    "UNWRAP": ([dict(KEYED, wrapIn="data"), {"op": "unwrap", "path": "$.data"}], "keyedToArray wrapIn data, unwrap $.data"),
    "WRAP": ([KEYED, {"op": "wrap", "key": "users"}], "wrap users"),
    "EMPTYARRAY": ([KEYED, {"op": "emptyArrayToNull", "path": "$[*].tags"}], "emptyArrayToNull $[*].tags"),
    "KEEP": ([KEYED, {"op": "keep", "path": "$[*]", "members": ["id", "displayName", "plan", "profile"]}],
             "keep $[*] id, displayName, plan, profile"),
    "HOIST": ([KEYED, {"op": "hoist", "path": "$[*].avatar", "member": "url", "onMissing": "null"}],
              "hoist $[*].avatar url"),
    "FLATTEN": ([KEYED, {"op": "flatten", "path": "$[*]", "member": "profile"}], "flatten $[*] profile"),
    "MAPVALUES": ([KEYED, {"op": "mapValues", "path": "$[*].plan", "cases": [["free", 0], ["pro", 1], ["", None]]}],
                  "mapValues $[*].plan"),
    "PLUCK": ([KEYED, {"op": "pluck", "path": "$[*].groups", "member": "name"}], "pluck $[*].groups name"),
    "MATCHING": ([KEYED, {"op": "remove", "path": "$[*]", "matching": "last.*|is[A-Z].*"}],
                 "remove $[*] matching `last.*|is[A-Z].*`"),
    "KEBAB": ([KEYED, {"op": "convertKeys", "path": "$[*].profile", "to": "kebab-case"}],
              "convertKeys $[*].profile to kebab-case"),
    "EXCLUDE": ([KEYED, {"op": "convertKeys", "path": "$[*]", "to": "snake_case", "exclude": ["$[*].profile"]}],
                "convertKeys $[*] to snake_case, exclude $[*].profile"),
    "FILTER": ([KEYED, {"op": "remove", "path": "$[*].groups[?@.role == 'member']"}],
               "remove $[*].groups[?@.role == 'member'] (a filter selector)"),
    "REMOVERECORDS": ([KEYED, {"op": "remove", "path": "$[?@.plan == 'free']"}],
                      "remove $[?@.plan == 'free'] (records, by a filter)"),
    "MIXED1": ([KEYED, {"op": "remove", "path": "$[*].avatar"}, {"op": "default", "path": "$[*]", "key": "role", "value": "user"},
                {"op": "renameKeys", "path": "$[*]", "map": {"displayName": "name", "lastLogin": "lastSeen"}},
                {"op": "coerce", "path": "$[*].createdAt", "to": "string"}, {"op": "wrap", "key": "data"}],
               "an API client's clean-up: remove, default, renameKeys, coerce, wrap"),
    "MIXED2": ([KEYED, {"op": "emptyObjectToNull"}, {"op": "remove", "path": "$[*].tags"},
                {"op": "coerce", "path": "$[*].score", "to": "string"},
                {"op": "convertKeys", "path": "$[*].profile", "to": "snake_case"}],
               "emptyObjectToNull, remove, coerce a real, convertKeys inside records"),
    "KEPTOBJECT": ([{"op": "emptyObjectToNull"}, {"op": "remove", "path": "$.*.tags"},
                    {"op": "coerce", "path": "$.*.createdAt", "to": "string"}],
                   "no keyedToArray, the collection kept an object: emptyObjectToNull, remove, coerce"),
}
for _name, (_rules, _label) in OP_WORKLOADS.items():
    WORKLOADS[_name] = _rules
    WORKLOAD_NAMES[_name] = _label
LARGE_MB = 1000  # sizes from here on use --large-runs and leave out the slow peers


def log(message: str) -> None:
    """Progress, on standard error, so that standard output is the report alone."""
    print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# Building what is measured
# ------------------------------------------------------------------------------------------------

def run_checked(argv: List[str], what: str, cwd: Path = ROOT) -> str:
    """Runs a build step; on failure prints its output and exits."""
    log(f"  {what}: {shlex.join(argv)}")
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        log(done.stdout[-4000:])
        sys.exit(f"run.py: {what} failed (exit {done.returncode}); the sources may be mid-edit, retry later "
                 f"or pass --reshape/--library")
    return done.stdout


def build_cli(build_dir: Path) -> Path:
    scratch = build_dir / "swift"
    argv = ["swift", "build", "-c", "release", "--traits", "CLI", "--product", "reshape", "--scratch-path", str(scratch)]
    run_checked(argv, "building the reshape CLI")
    bin_path = run_checked(argv + ["--show-bin-path"], "locating it").strip().splitlines()[-1]
    return Path(bin_path) / "reshape"


def build_library(build_dir: Path) -> Path:
    cmake_dir = build_dir / "cmake"
    run_checked(["cmake", "-S", str(ROOT), "-B", str(cmake_dir), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 "-DBUILD_TESTING=OFF"], "configuring libreshape")
    run_checked(["cmake", "--build", str(cmake_dir), "--target", "reshape_library"], "building libreshape")
    return cmake_dir / "lib" / "libreshape.so"


def build_spin(out_dir: Path) -> Path:
    """cc spin.c: the CPU-only loop of the parallelism probe."""
    binary = out_dir / "spin"
    run_checked(["cc", "-O2", "-std=c11", str(HERE / "spin.c"), "-o", str(binary)], "building spin.c")
    return binary


def parallel_capacity(spin: Path, mode: str, probes: int = 3) -> List[float]:
    """How many times one copy's speed two copies of `spin MODE` (cpu or memory) reach together,
    right now: 2.0 on two idle cores, less when the machine's neighbours take a share of them (a
    shared VM). One figure per probe: one copy alone, then two at once, alternating."""
    figures = []
    for _ in range(probes):
        started = time.perf_counter()
        subprocess.run([str(spin), mode], stdout=subprocess.DEVNULL, check=True)
        alone = time.perf_counter() - started
        started = time.perf_counter()
        pair = [subprocess.Popen([str(spin), mode], stdout=subprocess.DEVNULL) for _ in range(2)]
        for process in pair:
            process.wait()
        together = time.perf_counter() - started
        figures.append(2 * alone / together)
    return figures


def build_small_response(library: Path, out_dir: Path) -> Path:
    """cc small_response.c against include/reshape.h and the library, with an rpath to it."""
    binary = out_dir / "small_response"
    run_checked(["cc", "-O2", "-std=c11", "-Wall", "-Wextra", "-I", str(ROOT / "include"),
                 str(HERE / "small_response.c"), "-o", str(binary), str(library.resolve()),
                 f"-Wl,-rpath,{library.resolve().parent}"], "building small_response.c")
    return binary


# ------------------------------------------------------------------------------------------------
# What the binaries and the binding can do today (--jobs and apply_file are being added)
# ------------------------------------------------------------------------------------------------

@dataclass
class Features:
    cli_jobs: bool = False
    binding_ok: bool = False
    binding_apply_file: bool = False
    binding_problem: str = ""
    jq: bool = False
    jq_version: str = ""
    orjson: bool = False
    orjson_version: str = ""
    cli_version: str = ""
    library_version: str = ""


def binding_env(library: Path) -> Dict[str, str]:
    """The environment for the Python binding: this checkout's package, the built library.

    The package's bytecode is cached outside the checkout (PYTHONPYCACHEPREFIX), also where
    PYTHONDONTWRITEBYTECODE is set: an installed package has its bytecode (pip compiles it), and
    without it every run would compile the package's source again (13 ms here), a cost the
    binding's users do not pay. The first run (the probe, untimed) writes it.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "reshape-streaming-pycache")
    env["PYTHONPATH"] = str(ROOT / "bindings" / "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["RESHAPE_LIBRARY"] = str(library)
    return env


def probe(cli: Path, library: Path, work: Path) -> Features:
    features = Features()
    tiny = work / "probe.json"
    tiny.write_text('{"-Nx1":{"a":1}}')
    rules = work / "rules-A.json"
    features.cli_version = subprocess.run([str(cli), "--version"], capture_output=True, text=True).stdout.strip()
    # --jobs is accepted if a real reshape with it succeeds (an unknown option is a usage error).
    features.cli_jobs = subprocess.run(
        [str(cli), "--rules", str(rules), str(tiny), "--output", str(work / "probe-out.json"), "--jobs", "1"],
        capture_output=True).returncode == 0

    check = "import reshape; print(reshape.library_version()); print(hasattr(reshape.Rules, 'apply_file'))"
    done = subprocess.run([PYTHON, "-c", check], capture_output=True, text=True, env=binding_env(library))
    if done.returncode == 0:
        version, has_apply_file = done.stdout.split()
        features.binding_ok = True
        features.library_version = version
        features.binding_apply_file = has_apply_file == "True"
    else:
        features.binding_problem = (done.stderr.strip().splitlines() or ["?"])[-1]

    if os.access(JQ, os.X_OK):
        features.jq = True
        features.jq_version = subprocess.run([JQ, "--version"], capture_output=True, text=True).stdout.strip()
    done = subprocess.run([PYTHON, "-c", "import orjson; print(orjson.__version__)"], capture_output=True, text=True)
    features.orjson = done.returncode == 0
    features.orjson_version = done.stdout.strip()
    return features


# ------------------------------------------------------------------------------------------------
# The tools
# ------------------------------------------------------------------------------------------------

@dataclass
class Tool:
    key: str                 # stable name for the targets
    label: str               # what the table shows
    argv: List[str]          # with {rules}, {input}, {output} placeholders
    stdout_is_output: bool = False
    env: Optional[Dict[str, str]] = None
    engine: bool = False     # Reshape itself: its output must be byte-identical to the CLI's
    slow: bool = False       # left out at 1 GB unless --all-peers
    reference: bool = False  # another rule list, timed beside the others: its output is not compared


def tools_for(workload: str, cli: Path, library: Path, features: Features, baseline: Optional[Path] = None,
              keyed_rules: Optional[Path] = None) -> List[Tool]:
    """The tools of a workload, the reference (reshape CLI, all cores) first; with `baseline`, an
    earlier build of the CLI beside it, at all cores and with --jobs 1. An op workload other than
    KEYED also runs the CLI with KEYED's rules (`keyed_rules`) in the same rounds, so that its
    ratio to keyedToArray alone is paired round by round (on this VM the speed moves from minute to
    minute: a KEYED measured minutes earlier is not a fair reference)."""
    jobs = ["--jobs", "0"] if features.cli_jobs else []
    tools = [Tool("cli", "reshape CLI" + (" --jobs 0 (all cores)" if features.cli_jobs else " (no --jobs flag yet)"),
                  [str(cli), "--rules", "{rules}", "{input}", "--output", "{output}"] + jobs, engine=True)]
    if workload in OP_WORKLOADS:
        if workload != "KEYED" and keyed_rules is not None:
            tools.append(Tool("cli-keyed", "reshape CLI --jobs 0, keyedToArray alone (the 1.5× reference)",
                              [str(cli), "--rules", str(keyed_rules), "{input}", "--output", "{output}"] + jobs,
                              reference=True))
        if features.orjson:
            tools.append(Tool("orjson-nogc", "orjson + Python, gc.disable()",
                              [PYTHON, str(HERE / "peer_python.py"), "orjson", workload, "nogc", "{input}", "{output}"]))
        return tools
    if features.cli_jobs:
        tools.append(Tool("cli-j1", "reshape CLI --jobs 1",
                          [str(cli), "--rules", "{rules}", "{input}", "--output", "{output}", "--jobs", "1"], engine=True))
    if baseline is not None:
        tools.append(Tool("baseline", "baseline reshape CLI --jobs 0 (all cores)",
                          [str(baseline), "--rules", "{rules}", "{input}", "--output", "{output}", "--jobs", "0"], engine=True))
        tools.append(Tool("baseline-j1", "baseline reshape CLI --jobs 1",
                          [str(baseline), "--rules", "{rules}", "{input}", "--output", "{output}", "--jobs", "1"], engine=True))
    if features.binding_ok:
        if not features.binding_apply_file:
            label = "Python binding: apply(read_bytes()) (no apply_file yet)"
        else:  # jobs=None, its default, is one thread per core
            label = "Python binding: apply_file (all cores)"
        tools.append(Tool("binding", label, [PYTHON, str(HERE / "reshape_binding.py"), "{rules}", "{input}", "{output}"],
                          env=binding_env(library), engine=True))
        if features.binding_apply_file:
            tools.append(Tool("binding-j1", "Python binding: apply_file(jobs=1)",
                              [PYTHON, str(HERE / "reshape_binding.py"), "{rules}", "{input}", "{output}", "1"],
                              env=binding_env(library), engine=True))
        tools.append(Tool("binding-memory", "Python binding: Rules.apply(data, jobs=None) in memory",
                          [PYTHON, str(HERE / "reshape_binding.py"), "{rules}", "{input}", "{output}", "memory"],
                          env=binding_env(library), engine=True))
    if features.jq:
        tools.append(Tool("jq", f"{features.jq_version} -c", [JQ, "-c", "-f", str(HERE / f"workload_{workload.lower()}.jq"), "{input}"],
                          stdout_is_output=True, slow=True))
    peer = [PYTHON, str(HERE / "peer_python.py")]
    tools.append(Tool("json", "Python json", peer + ["json", workload, "gc", "{input}", "{output}"], slow=True))
    if features.orjson:
        name = "orjson" if workload == "A" else "orjson + Python fix-up"
        tools.append(Tool("orjson", name, peer + ["orjson", workload, "gc", "{input}", "{output}"]))
        tools.append(Tool("orjson-nogc", name + ", gc.disable()", peer + ["orjson", workload, "nogc", "{input}", "{output}"]))
    return tools


# ------------------------------------------------------------------------------------------------
# Running and timing
# ------------------------------------------------------------------------------------------------

@dataclass
class Runs:
    tool: Tool
    seconds: List[float] = field(default_factory=list)
    rss_kib: List[int] = field(default_factory=list)
    failure: str = ""
    call_seconds: List[float] = field(default_factory=list)  # the binding's call alone (apply_file, or apply in memory)
    check: str = ""          # "ok", "identical bytes", or a loud mismatch
    mismatch: bool = False
    first_output: Optional[Path] = None


def timed_run(tool: Tool, rules: Path, source: Path, output: Path, time_file: Path, timeout: float):
    """One run under /usr/bin/time -v: (seconds, peak RSS KiB) or raises RuntimeError."""
    argv = [arg.format(rules=rules, input=source, output=output) for arg in tool.argv]
    stdout = open(output, "wb") if tool.stdout_is_output else subprocess.DEVNULL
    os.sync()  # the previous tools' output written back now, not during this run (see the docstring)
    started = time.perf_counter()
    try:
        # A session of its own, so that a timeout ends the tool too, not only /usr/bin/time.
        process = subprocess.Popen([TIME, "-v", "-o", str(time_file)] + argv, stdout=stdout,
                                   stderr=subprocess.PIPE, env=tool.env, start_new_session=True)
        try:
            _, stderr = process.communicate(timeout=timeout)
            seconds = time.perf_counter() - started
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RuntimeError(f"timed out after {timeout:.0f} s")
    finally:
        if stdout is not subprocess.DEVNULL:
            stdout.close()
    report = time_file.read_text()
    if process.returncode != 0:
        last = (stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]  # a traceback's error
        raise RuntimeError(f"exit {process.returncode}: {last[:300]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    if not rss:
        raise RuntimeError("could not read /usr/bin/time -v's report")
    return seconds, int(rss.group(1)), stderr.decode(errors="replace").strip()


def prime_page_cache(path: Path) -> None:
    with open(path, "rb") as file:
        while file.read(1 << 24):
            pass


def measure(size_mb: float, workload: str, source: Path, rules: Path, tools: List[Tool], runs: int,
            work: Path, timeout: float, notes: List[str]) -> List[Runs]:
    """Every tool `runs` times, alternating; the first round's outputs are kept for the check."""
    results = [Runs(tool) for tool in tools]
    prime_page_cache(source)
    time_file = work / "time.txt"
    for round_index in range(runs):
        start = round_index % len(results)
        for result in results[start:] + results[:start]:
            if result.failure:
                continue
            output = work / f"out-{size_mb:g}MB-{workload}-{result.tool.key}-{round_index}.json"
            output.unlink(missing_ok=True)
            try:
                seconds, rss, stderr = timed_run(result.tool, rules, source, output, time_file, timeout)
            except RuntimeError as error:
                result.failure = str(error)
                log(f"  !! {result.tool.label}: FAILED: {error}")
                output.unlink(missing_ok=True)
                continue
            # reshape_binding.py times its own call (Python's start and imports left out).
            call = re.search(r"^reshape_binding: call took (\S+) s$", stderr, re.MULTILINE)
            if call:
                result.call_seconds.append(float(call.group(1)))
                stderr = "\n".join(line for line in stderr.splitlines() if not line.startswith("reshape_binding: call took"))
            if stderr and round_index == 0:
                notes.append(f"{result.tool.label} said: {stderr.splitlines()[-1]}")
            result.seconds.append(seconds)
            result.rss_kib.append(rss)
            log(f"  round {round_index + 1}/{runs}  {result.tool.label:<55} {seconds:8.3f} s {rss / 1024:9.1f} MiB")
            if round_index == 0:
                result.first_output = output
            else:
                output.unlink(missing_ok=True)
    return results


# ------------------------------------------------------------------------------------------------
# Checking outputs (in a child process: at 1 GB two parsed documents need ~10 GB)
# ------------------------------------------------------------------------------------------------

def first_difference(left, right, path="$"):
    """The first path where two parsed documents differ, with both values (shortened)."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [key for key in right if key not in left]:
            if key not in left or key not in right:
                return f"{path}['{key}'] is missing on one side"
            if left[key] != right[key]:
                return first_difference(left[key], right[key], f"{path}['{key}']")
    elif isinstance(left, list) and isinstance(right, list):
        for index, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return first_difference(a, b, f"{path}[{index}]")
        if len(left) != len(right):
            return f"{path}: {len(left)} elements vs {len(right)}"
    return (f"{path}: reshape has {json.dumps(left, ensure_ascii=False)[:120]}, "
            f"this tool {json.dumps(right, ensure_ascii=False)[:120]}")


def check_outputs_main(reference: str, candidates: List[str]) -> None:
    """`run.py --check REF CAND...`: one JSON line per candidate: equal, bytes_equal, difference."""
    try:
        from orjson import loads
    except ImportError:
        from json import loads

    gc.disable()  # millions of containers, no cycles: the collector would only rescan them
    with open(reference, "rb") as file:
        reference_bytes = file.read()
    reference_digest = hashlib.sha256(reference_bytes).hexdigest()
    expected = loads(reference_bytes)
    del reference_bytes
    for candidate in candidates:
        line = {"path": candidate}
        try:
            with open(candidate, "rb") as file:
                data = file.read()
            line["bytes_equal"] = hashlib.sha256(data).hexdigest() == reference_digest
            actual = loads(data)
            del data
            line["equal"] = actual == expected  # 1 == 1.0, dict order ignored: equal as data
            if not line["equal"]:
                line["difference"] = first_difference(expected, actual)
            del actual
        except (OSError, ValueError) as error:
            line.update(equal=False, bytes_equal=False, difference=f"cannot read as JSON: {error}")
        print(json.dumps(line), flush=True)


def check_outputs(results: List[Runs]) -> int:
    """Compares every first-round output with the CLI's; returns the number of mismatches."""
    reference = results[0]
    if reference.first_output is None:
        for result in results:
            result.check = "not checked (the reshape CLI failed)"
        return 0
    for result in results[1:]:
        if result.tool.reference:
            result.check = "another rule list"
            if result.first_output is not None:
                result.first_output.unlink(missing_ok=True)
                result.first_output = None
    candidates = [r for r in results[1:] if r.first_output is not None]
    reference.check = "reference"
    mismatches = 0
    if candidates:
        log(f"  checking {len(candidates)} outputs against the reshape CLI's")
        done = subprocess.run([PYTHON, __file__, "--check", str(reference.first_output)] +
                              [str(r.first_output) for r in candidates], capture_output=True, text=True)
        lines = {}
        for text in done.stdout.splitlines():
            line = json.loads(text)
            lines[line["path"]] = line
        for result in candidates:
            line = lines.get(str(result.first_output))
            if line is None:
                result.check, result.mismatch = f"CHECK FAILED: {done.stderr.strip()[-300:]}", True
            elif not line["equal"]:
                result.check, result.mismatch = f"MISMATCH: {line['difference']}", True
            elif result.tool.engine and not line["bytes_equal"]:
                result.check, result.mismatch = "MISMATCH: equal data but not the CLI's bytes", True
            else:
                result.check = "identical bytes" if line["bytes_equal"] else "equal data"
            if result.mismatch:
                mismatches += 1
                log(f"\n  !!!!!!!! {result.tool.label}: {result.check}\n")
    for result in results:
        if result.first_output is not None:
            result.first_output.unlink(missing_ok=True)
    return mismatches


# ------------------------------------------------------------------------------------------------
# Small responses
# ------------------------------------------------------------------------------------------------

def parse_key_values(text: str) -> Dict[str, str]:
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        values[key] = value
    return values


def small_response(library: Path, out_dir: Path, calls: int, rounds: int) -> List[str]:
    """Runs small_response.c and its orjson peer; returns the report's lines."""
    lines = ["## Small response: 433 bytes, 3 records, per document", ""]
    binary = build_small_response(library, out_dir)
    args = [str(calls), str(rounds)]
    log("  small response: reshape_apply (C)")
    c = parse_key_values(run_checked([str(binary), str(HERE / "small_rules.json"), str(HERE / "small_response.json")] + args,
                                     "small_response (C)"))
    log("  small response: orjson")
    py = parse_key_values(run_checked([PYTHON, str(HERE / "small_response_orjson.py"), str(HERE / "small_response.json")] + args,
                                      "small_response_orjson.py"))
    same = json.loads(c["output"]) == json.loads(py["output"])
    c_best, py_best = float(c["us_per_call_best"]), float(py["us_per_call_best"])
    lines += [
        f"Rules: `small_rules.json` (keyedToArray uid/users, emptyObjectToNull, convertKeys camelCase); "
        f"{calls:,} calls per round, {rounds} rounds after a warm-up; outputs "
        + ("equal." if same else "**MISMATCH** between the C program and the orjson script!"),
        "",
        "| way | best µs/document | median µs/document | vs reshape_apply |",
        "|---|---:|---:|---:|",
        f"| `reshape_apply` + `reshape_free` (C) | {c_best:.2f} | {float(c['us_per_call_median']):.2f} | 1.00× |",
        f"| orjson loads + Python fix-up + dumps | {py_best:.2f} | {float(py['us_per_call_median']):.2f} | {py_best / c_best:.2f}× |",
        "",
        "| target | value | goal | |",
        "|---|---:|---:|---|",
        f"| `reshape_apply` per call | {c_best:.2f} µs | ≤ 3 µs | {verdict(c_best <= 3)} |",
        f"| orjson ÷ `reshape_apply` | {py_best / c_best:.2f}× | ≥ 5× | {verdict(py_best / c_best >= 5)} |",
        "",
    ]
    if not same:
        log("\n  !!!!!!!! small response: the C program's and the orjson script's outputs differ\n")
    return lines


# ------------------------------------------------------------------------------------------------
# The report
# ------------------------------------------------------------------------------------------------

def verdict(met: bool) -> str:
    return "**met**" if met else "**not met**"


def median_or_none(values):
    return statistics.median(values) if values else None


def machine_lines(cli: Path, library: Path, features: Features, built: bool) -> List[str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        ram = f"{kib / MIB:.1f} GiB"
    except (OSError, AttributeError):
        pass
    system = platform.platform()
    try:
        system = re.search(r'PRETTY_NAME="([^"]*)"', Path("/etc/os-release").read_text()).group(1) + f", Linux {platform.release()}"
    except (OSError, AttributeError):
        pass
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    command = shlex.join(["python3"] + sys.argv)
    return [
        "# Large payloads: Reshape vs peers, file to file",
        "",
        f"- Command: `{command}` (from `{os.getcwd()}`)",
        f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}",
        f"- Machine: {cpu}, {os.cpu_count()} cores (`nproc`: {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()}), {ram} RAM, {system}",
        f"- Checkout: {commit}{' with uncommitted changes' if dirty else ''} (the binding's Python code, the C header"
        f"{', and the CLI and library, built by run.py' if built else ''}); CLI `{cli}` ({features.cli_version}"
        f"{'' if built else ', given'}); library `{library}` ({features.library_version or 'not loadable'}"
        f"{'' if built else ', given'})",
        f"- Peers: {features.jq_version or 'no jq'}; Python {platform.python_version()}; "
        f"orjson {features.orjson_version or 'missing'}",
        "",
    ]


def feature_notes(features: Features) -> List[str]:
    notes = []
    if not features.cli_jobs:
        notes.append("The CLI does not accept `--jobs` yet: it ran without it (its default), and the `--jobs 1` "
                     "row and the all-cores-vs-one-core target are left out.")
    if not features.binding_ok:
        notes.append(f"The Python binding could not be loaded ({features.binding_problem}): its row is left out.")
    elif not features.binding_apply_file:
        notes.append("The Python binding has no `Rules.apply_file` yet: its row is "
                     "`Path(OUT).write_bytes(rules.apply(Path(IN).read_bytes()))`.")
    if not features.jq:
        notes.append(f"No jq at {JQ}: its rows are left out.")
    if not features.orjson:
        notes.append("orjson is not installed for this Python: its rows are left out.")
    notes.append("jq's workload B (`workload_b.jq`) converts names by splitting before every capital letter, "
                 "which equals Foundation's convertToSnakeCase on this payload (no runs of capitals).")
    return notes


def table_lines(size_mb: float, workload: str, records: int, nbytes: int, runs: int, results: List[Runs],
                skipped: List[str], notes: List[str]) -> List[str]:
    lines = [f"## {size_mb:g} MB, workload {workload}: {WORKLOAD_NAMES[workload]}", "",
             f"{nbytes:,} bytes, {records:,} records; median of {runs} run{'s' if runs != 1 else ''} each, alternating. "
             "“vs CLI” is the tool's time over the reshape CLI's (all cores): above 1 the CLI is faster.", "",
             "| tool | median s | min–max s | median peak RSS MiB | vs CLI | output |",
             "|---|---:|---:|---:|---:|---|"]
    reference = median_or_none(results[0].seconds)
    for result in results:
        seconds = median_or_none(result.seconds)
        if seconds is None:
            lines.append(f"| {result.tool.label} | – | – | – | – | **FAILED**: {result.failure[:200]} |")
            continue
        ratio = f"{seconds / reference:.2f}×" if reference else "–"
        check = f"**{result.check}**" if result.mismatch else result.check
        if result.failure:  # failed after some rounds: the median is of the rounds before
            check += f"; **FAILED** in round {len(result.seconds) + 1}: {result.failure[:200]}"
        lines.append(f"| {result.tool.label} | {seconds:.3f} | {min(result.seconds):.3f}–{max(result.seconds):.3f} | "
                     f"{statistics.median(result.rss_kib) / 1024:.1f} | {ratio} | {check} |")
    lines.append("")
    for item in skipped:
        lines.append(f"- Left out: {item}")
    for note in notes:
        lines.append(f"- {note}")
    if skipped or notes:
        lines.append("")
    return lines


TARGET_MB = 100  # the issue sets its ratios on the 100 MB payload; other sizes are shown for reference


def targets_lines(all_results: Dict[tuple, List[Runs]], capacity: Dict[tuple, tuple]) -> List[str]:
    """The issue's targets, for every size where both sides were measured.

    Ratios are judged at 100 MB, where the issue sets them; at other sizes they are shown with no
    verdict. Peak RSS is judged at 100 MB and 1 GB alike, as the issue asks.

    A ratio is the median over rounds of the two tools' times in the same round (paired runs: on a
    shared machine, both meet the same neighbours), with the ratio of their medians beside it."""
    rows = []

    def runs_of(results: List[Runs], key: str) -> List[float]:
        for result in results:
            if result.tool.key == key and not result.mismatch:
                return result.seconds
        return []

    def median_of(results: List[Runs], key: str) -> Optional[float]:
        return median_or_none(runs_of(results, key))

    def runs_of_calls(results: List[Runs], key: str) -> List[float]:
        """The binding's call alone, each round (see `Runs.call_seconds`)."""
        for result in results:
            if result.tool.key == key and not result.mismatch:
                return result.call_seconds
        return []

    def paired(times: List[float], reference: List[float]) -> Optional[float]:
        """The median over rounds of times[i] / reference[i] (round i of each)."""
        count = min(len(times), len(reference))
        return statistics.median(times[i] / reference[i] for i in range(count)) if count else None

    for (size_mb, workload), results in all_results.items():
        cli = median_of(results, "cli")
        if cli is None:
            continue
        where = f"{size_mb:g} MB, {workload}"
        judged = size_mb == TARGET_MB

        def row(name, value, goal, met):
            shown = verdict(met) if judged else f"– (judged at {TARGET_MB} MB)"
            rows.append(f"| {name} | {where} | {value} | {goal} | {shown} |")

        def ratio_row(name, key, goal):
            other = median_of(results, key)
            ratio = paired(runs_of(results, key), runs_of(results, "cli"))
            if other is not None and ratio is not None:
                row(name, f"{ratio:.2f}× (medians {other / cli:.2f}×)", f"≥ {goal}×", ratio >= goal)

        def slower_row(name, key, reference, goal):
            """`key`'s time against `reference`'s: at most `goal` (1.05 is 5% slower)."""
            base = median_of(results, reference)
            ratio = paired(runs_of(results, key), runs_of(results, reference))
            if base is not None and ratio is not None:
                shown = verdict(ratio <= goal) if size_mb >= TARGET_MB else "–"
                rows.append(f"| {name} | {where} | {ratio:.3f}× (medians {median_of(results, key) / base:.3f}×) "
                            f"| ≤ {goal:.2f}× | {shown} |")

        if workload in OP_WORKLOADS:
            ratio_row("CLI vs orjson + Python, gc.disable()", "orjson-nogc", 5)
            if workload != "KEYED":
                # Paired with keyedToArray alone run in the same rounds (see `tools_for`).
                ratio = paired(runs_of(results, "cli"), runs_of(results, "cli-keyed"))
                reference = median_of(results, "cli-keyed")
                if ratio is not None and reference:
                    row("CLI against keyedToArray alone, same rounds", f"{ratio:.2f}× (medians {cli / reference:.2f}×)",
                        "≤ 1.5×", ratio <= 1.5)
            rss = statistics.median(results[0].rss_kib) / 1024
            row("CLI peak RSS", f"{rss:.1f} MiB", "≤ 64 MiB", rss <= 64)
            continue
        slower_row("CLI against the baseline build, all cores", "cli", "baseline", 1.05)
        slower_row("CLI against the baseline build, `--jobs 1`", "cli-j1", "baseline-j1", 1.05)
        if workload == "A":
            ratio_row("CLI vs orjson, gc.disable()", "orjson-nogc", 2.5)
            ratio_row("CLI vs jq", "jq", 8)
        else:
            ratio_row("CLI vs orjson + Python, gc.disable()", "orjson-nogc", 5)
        machine = capacity.get((size_mb, workload))
        ratio_row("all cores vs `--jobs 1`" + (f" (the machine's own: CPU {machine[0]:.2f}×, memory {machine[1]:.2f}×)"
                                               if machine else ""), "cli-j1", 1.7)
        for result in results:
            if result.tool.key != "binding" or result.mismatch or not result.seconds:
                continue
            binding = median_or_none(result.seconds)
            ratio = paired(result.seconds, runs_of(results, "cli"))
            row(f"{result.tool.label} vs CLI, whole process", f"{ratio:.2f}× (medians {binding / cli:.2f}×)", "≤ 1.10×",
                ratio <= 1.10)
            call = median_or_none(result.call_seconds)
            call_ratio = paired(result.call_seconds, runs_of(results, "cli"))
            if call is not None and call_ratio is not None:
                row(f"{result.tool.label} vs CLI, the call alone (no Python start)",
                    f"{call_ratio:.2f}× (medians {call / cli:.2f}×)", "≤ 1.10×", call_ratio <= 1.10)
        # In memory, on every core, against apply_file: the calls alone (compiling the rules and
        # the call; for the in-memory one not Python's reading the input and writing the result).
        memory_call = runs_of_calls(results, "binding-memory")
        file_call = runs_of_calls(results, "binding")
        if memory_call and file_call:
            ratio = paired(memory_call, file_call)
            shown = verdict(ratio <= 1.3) if size_mb >= TARGET_MB else "–"
            rows.append(f"| Rules.apply(data, jobs=None) vs apply_file, the calls | {where} | {ratio:.2f}× "
                        f"(medians {statistics.median(memory_call) / statistics.median(file_call):.2f}×) | ≤ 1.30× | {shown} |")
        for result in results:
            if result.tool.key == "binding-memory" and result.rss_kib:
                memory = statistics.median(result.rss_kib) / 1024
                # Input and output held in memory, plus the 64 MiB the target allows.
                bound = (size_mb * 1e6 * 2.05) / 2**20 + 64
                met = memory <= bound
                shown = verdict(met) if size_mb >= TARGET_MB else "–"
                rows.append(f"| Rules.apply in memory, peak RSS | {where} | {memory:.1f} MiB | ≤ {bound:.0f} MiB (input + output + 64) | {shown} |")
        rss = statistics.median(results[0].rss_kib) / 1024
        if size_mb >= TARGET_MB:
            rows.append(f"| CLI peak RSS | {where} | {rss:.1f} MiB | ≤ 64 MiB | {verdict(rss <= 64)} |")
        else:
            rows.append(f"| CLI peak RSS | {where} | {rss:.1f} MiB | (≤ 64 MiB at 100 MB and 1 GB) | – |")
    return ["## Targets", "", "| target | size, workload | value | goal | |", "|---|---|---:|---:|---|"] + rows + [""]


# ------------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------------

def ensure_payload(out_dir: Path, size_mb: float, seed: int, with_groups: bool = False):
    """The payload of `size_mb`, generated once per (size, seed, generator version); `with_groups`
    (the op workloads' payload) gives each record an array of objects, `groups`."""
    variant = "firebase-groups" if with_groups else "firebase"
    path = out_dir / f"{variant}-{size_mb:g}MB-seed{seed}-v{payload.GENERATOR_VERSION}.json"
    meta = path.with_suffix(".records")
    if path.exists() and meta.exists():
        return path, int(meta.read_text())
    log(f"generating {path} ...")
    started = time.monotonic()
    partial = path.with_suffix(".partial")
    records = payload.write_payload(str(partial), size_mb, seed, with_groups)
    partial.rename(path)
    meta.write_text(str(records))
    log(f"  {records:,} records, {path.stat().st_size:,} bytes, {time.monotonic() - started:.1f} s")
    return path, records


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Large payloads: Reshape vs peers (see the docstring of run.py).")
    parser.add_argument("--sizes", default="10,100,1000", help="payload sizes in MB (10^6 bytes), comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="rounds per size (median), default 5")
    parser.add_argument("--large-runs", type=int, default=3, help=f"at most this many rounds at {LARGE_MB} MB and up, default 3")
    parser.add_argument("--workloads", default="A,B",
                        help="A, B, the op workloads (" + ", ".join(OP_WORKLOADS) + "), comma-separated; "
                        "'ops' for all of these")
    parser.add_argument("--all-peers", action="store_true", help=f"also jq and Python json at {LARGE_MB} MB and up")
    parser.add_argument("--reshape", type=Path, help="the reshape CLI to measure (default: build it)")
    parser.add_argument("--baseline", type=Path,
                        help="an earlier build of the reshape CLI to measure beside it (a loss of at most 5%% is the goal)")
    parser.add_argument("--library", type=Path, help="libreshape.so for the binding and the C benchmark (default: build it)")
    parser.add_argument("--build-dir", type=Path, default=Path(tempfile.gettempdir()) / "reshape-streaming-build")
    parser.add_argument("--out-dir", type=Path, help="payloads, rules and outputs (default: a new folder under /tmp, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the default --out-dir")
    parser.add_argument("--seed", type=int, default=payload.DEFAULT_SEED)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run before it counts as failed")
    parser.add_argument("--small-calls", type=int, default=20000, help="calls per round of the small-response benchmark")
    parser.add_argument("--small-rounds", type=int, default=7)
    parser.add_argument("--skip-small", action="store_true", help="leave out the small-response benchmark")
    parser.add_argument("--check", nargs="+", help=argparse.SUPPRESS)  # internal: run.py --check REF CAND...
    return parser.parse_args(argv)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    if args.check:
        check_outputs_main(args.check[0], args.check[1:])
        return 0
    sizes = [float(size) for size in args.sizes.split(",") if size.strip()]
    workloads = []
    for name in (w.strip().upper() for w in args.workloads.split(",") if w.strip()):
        workloads += list(OP_WORKLOADS) if name == "OPS" else [name]
    if any(w not in WORKLOADS for w in workloads) or args.runs < 1 or not os.access(TIME, os.X_OK):
        sys.exit("run.py: --workloads takes A, B, ops or op workload names, --runs at least 1, and /usr/bin/time "
                 "must exist (apt-get install time)")

    log("building")
    cli = args.reshape.resolve() if args.reshape else build_cli(args.build_dir)
    library = args.library.resolve() if args.library else build_library(args.build_dir)

    made_out_dir = args.out_dir is None
    out_dir = Path(tempfile.mkdtemp(prefix="reshape-streaming-")) if made_out_dir else args.out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    log(f"working in {out_dir}")
    try:
        rules_paths = {}
        for workload, rules in WORKLOADS.items():
            rules_paths[workload] = out_dir / f"rules-{workload}.json"
            rules_paths[workload].write_text(json.dumps(rules))
        features = probe(cli, library, out_dir)
        spin = build_spin(out_dir)
        report = machine_lines(cli, library, features, built=args.reshape is None and args.library is None)
        notes = feature_notes(features)
        report += [f"- {note}" for note in notes] + [""]

        all_results: Dict[tuple, List[Runs]] = {}
        capacity: Dict[tuple, tuple] = {}
        mismatches = 0
        for size_mb in sizes:
            large = size_mb >= LARGE_MB
            runs = min(args.runs, args.large_runs) if large else args.runs
            for workload in workloads:
                source, records = ensure_payload(out_dir, size_mb, args.seed, with_groups=workload in OP_WORKLOADS)
                log(f"\n{size_mb:g} MB, workload {workload}, {runs} rounds")
                tools = tools_for(workload, cli, library, features, args.baseline.resolve() if args.baseline else None,
                                  keyed_rules=rules_paths["KEYED"])
                skipped = []
                if large and not args.all_peers:
                    skipped = [f"{t.label} (slow at {LARGE_MB} MB and up; --all-peers runs it)" for t in tools if t.slow]
                    tools = [t for t in tools if not t.slow]
                run_notes: List[str] = []
                before = {mode: parallel_capacity(spin, mode) for mode in ("cpu", "memory")}
                results = measure(size_mb, workload, source, rules_paths[workload], tools, runs, out_dir,
                                  args.timeout, run_notes)
                after = {mode: parallel_capacity(spin, mode) for mode in ("cpu", "memory")}
                capacity[(size_mb, workload)] = tuple(statistics.median(before[m] + after[m]) for m in ("cpu", "memory"))
                shown = {m: ", ".join(f"{f:.2f}×" for f in before[m]) + " before these runs, "
                         + ", ".join(f"{f:.2f}×" for f in after[m]) + " after" for m in ("cpu", "memory")}
                run_notes.append("The machine's own parallelism, two copies of `spin.c` against one (2.00× is two idle "
                                 f"cores): a CPU-only loop {shown['cpu']}; memory copies {shown['memory']}.")
                mismatches += check_outputs(results)
                all_results[(size_mb, workload)] = results
                tables = table_lines(size_mb, workload, records, source.stat().st_size, runs, results, skipped, run_notes)
                print("\n".join(tables), file=sys.stderr)  # as it comes, in the progress too
                report += tables

        report += targets_lines(all_results, capacity)
        if not args.skip_small:
            report += small_response(library, out_dir, args.small_calls, args.small_rounds)
        if mismatches:
            report += [f"**{mismatches} OUTPUT MISMATCH{'ES' if mismatches > 1 else ''}: the rows marked MISMATCH "
                       "did not produce the CLI's data; their times are not comparable.**", ""]
        print("\n".join(report))
        return 1 if mismatches else 0
    finally:
        if made_out_dir and not args.keep:
            shutil.rmtree(out_dir, ignore_errors=True)
        else:
            log(f"kept {out_dir}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
