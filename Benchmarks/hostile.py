#!/usr/bin/env python3
"""Hostile inputs and rules against the default limits: time and peak memory of the `reshape` CLI.

The contract (docs/limits.md): no input of 1 MB with a rules document of 64 KB may need more than
about 1 GB or 10 s. Each case below is built to cost as much as it can within those sizes; the
table shows what it costs (wall time and peak RSS of the whole process, from /usr/bin/time) and
how it ends (ok, or the error code). Run:

    swift build -c release --traits CLI --product reshape
    python3 Benchmarks/hostile.py [.build/release/reshape] [--only NAME]

Never run by the test suite: these are figures, not tests.
"""

import json
import os
import subprocess
import sys
import tempfile

MB = 1_000_000
RULES_BYTES = 64_000


def fill(unit: str, size: int, sep: str = ",", open_: str = "[", close: str = "]") -> str:
    """`open_ unit sep unit ... close`, about `size` bytes."""
    count = max(1, (size - len(open_) - len(close)) // (len(unit) + len(sep)))
    return open_ + sep.join([unit] * count) + close


def repeat_rules(rule: dict, budget: int = RULES_BYTES) -> str:
    text = json.dumps(rule, separators=(",", ":"))
    return "[" + ",".join([text] * max(1, (budget - 2) // (len(text) + 1))) + "]"


def alternate_rules(rules: list, budget: int = RULES_BYTES) -> str:
    texts = [json.dumps(rule, separators=(",", ":")) for rule in rules]
    out, size, index = [], 2, 0
    while size + len(texts[index % len(texts)]) + 1 <= budget:
        out.append(texts[index % len(texts)])
        size += len(out[-1]) + 1
        index += 1
    return "[" + ",".join(out) + "]"


def deep_then_wide(depth: int, size: int) -> str:
    """`depth` nested arrays with the rest of `size` as small arrays at the bottom."""
    inner = fill("[0]", size - 2 * depth)
    return "[" * (depth - 2) + inner + "]" * (depth - 2)


def big_name(length: int) -> str:
    return "n" * length


def cases():
    near_rules = RULES_BYTES - 200
    yield "many rules, each walking everything ($..*)", fill("[[]]", MB), repeat_rules({"op": "emptyObjectToNull"})
    yield "many deep renamings that change every name", fill('{"a_b":{"c_d":0}}', MB), alternate_rules(
        [{"op": "convertKeys", "to": "camelCase"}, {"op": "convertKeys", "to": "snake_case"}])
    yield "many renameKeys swaps (deep)", fill('{"a":{"b":0}}', MB), repeat_rules(
        {"op": "renameKeys", "map": {"a": "b", "b": "a"}, "deep": True})
    yield "unwrap $..*..*..* on 400 nested arrays (800 B)", "[" * 400 + "]" * 400, '[{"op":"unwrap","path":"$..*..*..*"}]'
    yield "emptyObjectToNull $..*..*..* on 1 MB nested 1000 deep", deep_then_wide(1000, MB), \
        '[{"op":"emptyObjectToNull","path":"$..*..*..*"}]'
    yield "unwrap $..* copies of a 1000-deep, 1 MB document", deep_then_wide(1000, MB), '[{"op":"unwrap","path":"$..*"}]'
    yield "unwrap $..*..* (duplicates) on 1 MB nested 1000 deep", deep_then_wide(1000, MB), '[{"op":"unwrap","path":"$..*..*"}]'
    yield "default of a 63 KB value on every object", fill("{}", MB), json.dumps(
        [{"op": "default", "path": "$..*", "key": "k", "value": [0] * (near_rules // 2)}])
    yield "keyedToArray with a 63 KB idKey on every object", fill('{"a":{}}', MB), json.dumps(
        [{"op": "keyedToArray", "path": "$[*]", "idKey": big_name(near_rules)}])
    yield "renameKeys to a 63 KB name on every member", fill('{"a":0}', MB), json.dumps(
        [{"op": "renameKeys", "path": "$[*]", "map": {"a": big_name(near_rules)}}])
    yield "many wraps, pretty", fill("[0]", MB), repeat_rules({"op": "wrap", "key": "w"}), "--pretty"
    yield "pretty output of 1 MB nested 1000 deep", deep_then_wide(1000, MB), "[]", "--pretty"
    yield "many coerce to string on every value", fill("1", MB), alternate_rules(
        [{"op": "coerce", "path": "$..*", "to": "string"}, {"op": "coerce", "path": "$..*", "to": "number"}])
    yield "many keyedToArray on the root", json.dumps({f"k{i}": {"a": 0} for i in range(MB // 20)}), \
        repeat_rules({"op": "keyedToArray", "nonObject": "wrap", "onConflict": "overwrite"})
    yield "unwrap $..*.x on an object of 40k members", json.dumps({f"m{i:05}": {"x": i} for i in range(40_000)}), \
        '[{"op":"unwrap","path":"$..*.x"}]'
    yield "remove $..*.x on an object of 40k members", json.dumps({f"m{i:05}": {"x": i} for i in range(40_000)}), \
        '[{"op":"remove","path":"$..*.x"}]'
    yield "convertKeys on 1000 nested objects", '{"a_b":' * 1000 + "1" + "}" * 1000, '[{"op":"convertKeys"}]'
    yield "many defaults, each adding to every object", fill("{}", MB), alternate_rules(
        [{"op": "default", "path": "$[*]", "key": f"k{i}", "value": i} for i in range(3000)])
    yield "coerce a 1 MB number text to integer", '["' + "1" * (MB - 10) + '.5e3"]', \
        '[{"op":"coerce","path":"$[0]","to":"integer","onFail":"null"}]'
    yield "many renamings of one 1 MB name (Unicode)", json.dumps({"é_" * (MB // 4): 1}, ensure_ascii=False), alternate_rules(
        [{"op": "convertKeys", "to": "camelCase"}, {"op": "convertKeys", "to": "snake_case"}])
    yield "many coercions of one 1 MB number text", '["' + "1" * (MB - 10) + '"]', alternate_rules(
        [{"op": "coerce", "path": "$[0]", "to": "number"}, {"op": "coerce", "path": "$[0]", "to": "string"}])
    yield "many trims of one 1 MB Unicode blank-ish string", json.dumps(["\u2003" * (MB // 3 - 10) + "x"], ensure_ascii=False), \
        repeat_rules({"op": "blankStringToNull", "trim": True})
    yield "many edits by name under 1000 wide objects", json.dumps([{f"m{i}": 0 for i in range(120)} for _ in range(1000)]), \
        repeat_rules({"op": "coerce", "path": "$.*.m119", "to": "string"})
    yield "many unknown members in a 64 KB rule (suggestions)", "{}", json.dumps(
        [{"op": "wrap", "key": "k", **{big_name(200) + str(i): 0 for i in range(300)}}])


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    binary = args[0] if args and args[0] != only else ".build/release/reshape"
    print(f"{'case':58} {'input':>9} {'rules':>7} {'count':>5} {'outcome':>15} {'s':>6} {'MiB':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for name, document, rules, *flags in cases():
            if only and only not in name:
                continue
            input_path = os.path.join(folder, "input.json")
            rules_path = os.path.join(folder, "rules.json")
            with open(input_path, "w") as file:
                file.write(document)
            with open(rules_path, "w") as file:
                file.write(rules)
            command = ["/usr/bin/time", "-f", "%e %M", binary, "--rules", rules_path, input_path, "-o",
                       os.path.join(folder, "out.json"), *flags]
            run = subprocess.run(command, capture_output=True, text=True)
            seconds, kilobytes = run.stderr.strip().splitlines()[-1].split()
            outcome = "ok" if run.returncode == 0 else run.stderr.split(":")[1].strip() if ":" in run.stderr else f"exit {run.returncode}"
            if run.returncode not in (0, 1, 2):
                outcome = f"CRASH {run.returncode}"
            count = len(json.loads(rules))
            print(f"{name[:58]:58} {len(document.encode()):>9} {len(rules.encode()):>7} {count:>5} {outcome:>15} "
                  f"{float(seconds):>6.2f} {int(kilobytes) / 1024:>6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
