"""Rule lists beyond run.py's OP_WORKLOADS, against `keyedToArray` alone: the goal of issue "One
engine" (any list of per-record ops within 1.5x) is stated for lists nobody chose.

    python3 Benchmarks/streaming/more_lists.py RESHAPE_CLI PAYLOAD [--instructions] [--rounds N] [NAME...]

PAYLOAD is a Firebase-style payload with `groups` (run.py's `payload-*-groups*.json`, or
`payload.py SIZE PATH --seed 24301 --groups`). By default each list runs on the whole payload,
file to file, on every core, alternating with `keyedToArray` alone for N rounds (5), and the
table gives the median time and the median of the paired ratios. With `--instructions`, the
first 12,000 records run under callgrind with `--jobs 1` instead (see instructions.py): a figure
the VM's speed does not move. Only the CLI runs: there is no peer script for these lists.

With `--failing`, the lists of FAILING_WORKLOADS run instead: rules that fail on many records
(every record, or one in eight), each beside a variant that does the same work without failing;
the CLI must then stop with `rule_failed`, and the table shows what finding the whole tree's
error among many failures costs.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import instructions  # noqa: E402

KEYED = {"op": "keyedToArray", "idKey": "id"}

MORE_WORKLOADS = {
    "KEYED": ([KEYED], "keyedToArray alone"),
    "UNION": ([KEYED, {"op": "remove", "path": "$[*]['avatar','tags']"}], "remove $[*]['avatar','tags'] (a union)"),
    "STARX": ([{"op": "remove", "path": "$.*.avatar"}, KEYED], "remove $.*.avatar (before keyedToArray)"),
    "DESCREMOVE": ([KEYED, {"op": "remove", "path": "$..name"}], "remove $..name"),
    "SLICE": ([KEYED, {"op": "remove", "path": "$[*].groups[1:]"}], "remove $[*].groups[1:]"),
    "ENDSLICE": ([KEYED, {"op": "remove", "path": "$[*].tags[-1:]"}], "remove $[*].tags[-1:]"),
    "INDEX0": ([KEYED, {"op": "hoist", "path": "$[*].groups[0]", "member": "name"}], "hoist $[*].groups[0] name"),
    "DEFAULTPROFILE": ([KEYED, {"op": "default", "path": "$[*].profile", "key": "country", "value": None}],
                       "default $[*].profile country"),
    "FLATTENPREFIX": ([KEYED, {"op": "flatten", "path": "$[*]", "member": "profile", "prefix": "p_"}],
                      "flatten $[*] profile prefix p_"),
    "RENAMEPROFILE": ([KEYED, {"op": "renameKeys", "path": "$[*].profile", "map": {"bio": "about"}}],
                      "renameKeys $[*].profile bio → about"),
    "ENDINDEX": ([KEYED, {"op": "remove", "path": "$[*].groups[-1]"}], "remove $[*].groups[-1]"),
    "DESCCONVERT": ([KEYED, {"op": "convertKeys", "path": "$..profile", "to": "snake_case"}],
                    "convertKeys $..profile to snake_case"),
    "MAPOBJECT": ([KEYED, {"op": "mapValues", "path": "$[*].avatar", "cases": [[{"url": "x", "width": 1}, None]]}],
                  "mapValues $[*].avatar with an object case"),
    "DESCDEFAULT": ([KEYED, {"op": "default", "path": "$..avatar", "key": "alt", "value": ""}], "default $..avatar alt"),
    "DESCCOERCE": ([KEYED, {"op": "coerce", "path": "$..followers", "to": "string"}], "coerce $..followers to string"),
    "DESCMAP": ([KEYED, {"op": "mapValues", "path": "$..role", "cases": [["member", "m"], ["moderator", "mod"]]}],
                "mapValues $..role with string cases"),
    "DESCRENAME": ([KEYED, {"op": "renameKeys", "path": "$..profile", "map": {"bio": "about"}}],
                   "renameKeys $..profile bio → about"),
    "LENGTH": ([KEYED, {"op": "remove", "path": "$[*].groups[?length(@.name) > 6]"}],
               "remove $[*].groups[?length(@.name) > 6]"),
    "DESCMATCHING": ([KEYED, {"op": "remove", "path": "$..*", "matching": "(first|last)Name"}],
                     "remove $..* matching `(first|last)Name`"),
    "MATCH": ([KEYED, {"op": "remove", "path": "$[*].groups[?match(@.id, 'g[13]')]"}],
              "remove $[*].groups[?match(@.id, 'g[13]')]"),
    "DESCSTAR": ([KEYED, {"op": "renameKeys", "path": "$..*", "map": {"bio": "about"}}],
                 "renameKeys $..* bio → about (not deep)"),
    "DESCFILTER": ([KEYED, {"op": "remove", "path": "$..groups[?@.role == 'member']"}],
                   "remove $..groups[?@.role == 'member']"),
    "SET": ([{"op": "keyedToArray", "path": "$.*.profile", "idKey": "k", "nonObject": "wrap"}, KEYED],
            "keyedToArray $.*.profile nonObject wrap (a Firebase set), then keyedToArray"),
    "AND": ([KEYED, {"op": "remove", "path": "$[*].groups[?@.role == 'member' && @.id == 'g3']"}],
            "remove $[*].groups[?@.role == 'member' && @.id == 'g3']"),
    "NOT": ([KEYED, {"op": "remove", "path": "$[*].groups[?!(@.role == 'owner')]"}],
            "remove $[*].groups[?!(@.role == 'owner')]"),
    "SEARCH": ([KEYED, {"op": "remove", "path": "$[*].groups[?search(@.name, 'team')]"}],
               "remove $[*].groups[?search(@.name, 'team')]"),
    "COUNT": ([KEYED, {"op": "remove", "path": "$[?count(@.groups[*]) > 1]"}], "remove $[?count(@.groups[*]) > 1]"),
    "VALUE": ([KEYED, {"op": "remove", "path": "$[?value(@.profile.city) == 'Αθήνα']"}],
              "remove $[?value(@.profile.city) == 'Αθήνα']"),
    "FOUR": ([KEYED, {"op": "remove", "path": "$[*].avatar.width"},
              {"op": "renameKeys", "path": "$[*].profile", "map": {"bio": "about"}},
              {"op": "coerce", "path": "$[*].isActive", "to": "string"}, {"op": "convertKeys", "to": "snake_case"}],
             "four rules: remove, renameKeys, coerce, convertKeys"),
    "EIGHT": ([KEYED, {"op": "emptyArrayToNull"}, {"op": "remove", "path": "$[*].avatar.width"},
               {"op": "renameKeys", "path": "$[*].profile", "map": {"bio": "about"}},
               {"op": "default", "path": "$[*].profile", "key": "country", "value": None},
               {"op": "coerce", "path": "$[*].isActive", "to": "string"}, {"op": "convertKeys", "to": "snake_case"},
               {"op": "pluck", "path": "$[*].groups", "member": "id"}, {"op": "wrap", "key": "data"}],
              "eight rules: emptyArrayToNull, remove, renameKeys, default, coerce, convertKeys, pluck, wrap"),
}

FAILING_WORKLOADS = {
    "KEYED": ([KEYED], "keyedToArray alone"),
    "COERCEKEEP": ([KEYED, {"op": "coerce", "path": "$[*].isActive", "to": "number", "onFail": "keep"}],
                   "coerce $[*].isActive to number, onFail keep (nothing fails)"),
    "COERCEFAILS": ([KEYED, {"op": "coerce", "path": "$[*].isActive", "to": "number"}],
                    "the same, onFail error: every record fails"),
    "HOISTNULL": ([KEYED, {"op": "hoist", "path": "$[*].groups[*]", "member": "name", "onMissing": "null"}],
                  "hoist $[*].groups[*] name, onMissing null (nothing fails)"),
    "A2KFAILS": ([KEYED, {"op": "arrayToKeyed", "path": "$[*].groups"}],
                 "arrayToKeyed $[*].groups: about one record in eight has an id twice"),
}


def main() -> None:
    args = sys.argv[1:]
    counting = "--instructions" in args
    rounds = 5
    if "--rounds" in args:
        rounds = int(args[args.index("--rounds") + 1])
        del args[args.index("--rounds"):args.index("--rounds") + 2]
    failing = "--failing" in args
    workloads = FAILING_WORKLOADS if failing else MORE_WORKLOADS
    args = [arg for arg in args if arg not in ("--instructions", "--failing")]
    if len(args) < 2:
        sys.exit(__doc__)
    cli, payload = args[0], args[1]
    names = ["KEYED"] + [name for name in (args[2:] or workloads) if name != "KEYED"]
    with tempfile.TemporaryDirectory(prefix="reshape-more-lists-") as folder:
        rules = {}
        for name in names:
            rules[name] = os.path.join(folder, f"rules-{name}.json")
            with open(rules[name], "w") as file:
                json.dump(workloads[name][0], file)
        if counting:
            with open(payload, "rb") as file:
                records = list(json.load(file).items())[:12_000]
            source = os.path.join(folder, "sample.json")
            with open(source, "w", encoding="utf-8") as file:
                json.dump(dict(records), file, ensure_ascii=False, separators=(",", ":"))
            print(f"{len(records):,} records, {os.path.getsize(source):,} bytes; {cli} --jobs 1 under callgrind")
            print("| rule list | instructions | vs keyedToArray alone |\n|---|---:|---:|")
            counts = {}
            for name in names:
                counts[name] = instructions.instructions(cli, rules[name], source, folder, fails=name.endswith("FAILS"))
                label = workloads[name][1].replace("|", "\\|")
                print(f"| {label} | {counts[name]:,} | {counts[name] / counts['KEYED']:.2f}x |", flush=True)
            return
        output = os.path.join(folder, "out.json")
        times = {name: [] for name in names}
        for _ in range(rounds):
            for name in names:
                start = time.perf_counter()
                done = subprocess.run([cli, "--rules", rules[name], payload, "-o", output], capture_output=True, text=True)
                times[name].append(time.perf_counter() - start)
                fails = done.returncode != 0
                if fails != name.endswith("FAILS") or (fails and "rule_failed" not in done.stderr):
                    sys.exit(f"more_lists.py: {name} exited {done.returncode}: {done.stderr.strip()}")
        print(f"{os.path.getsize(payload):,} bytes; {cli}, all cores, file to file, {rounds} rounds alternating")
        print("| rule list | median time | paired ratio to keyedToArray alone |\n|---|---:|---:|")
        for name in names:
            ratio = statistics.median(a / b for a, b in zip(times[name], times["KEYED"]))
            label = workloads[name][1].replace("|", "\\|")
            print(f"| {label} | {statistics.median(times[name]):.3f} s | {ratio:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
