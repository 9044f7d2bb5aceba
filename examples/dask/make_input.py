"""Writes a folder of JSON Lines files and Firebase export files to try the examples on.

    python make_input.py /tmp/reshape-input                     # 4 + 4 files, about 1 MB
    python make_input.py /tmp/reshape-big --files 8 --megabytes 160
    python make_input.py /tmp/reshape-lines --files 8 --megabytes 160 --jsonl-only

Half the files are JSON Lines (``users-NNNN.jsonl``: one user per line, camelCase keys, a blank line
now and then), half are Firebase exports (``export-NNNN.json``: one keyed collection
``{"<push id>": {user}}`` per file, snake_case keys, a camelCase ``settings`` object); with
``--jsonl-only``, all are JSON Lines. Users have
``{}`` avatars and ``""`` plans now and then, and names and tags beyond ASCII. The same arguments
give the same bytes.
"""

import argparse
import json
import random
from pathlib import Path

NAMES = ["Ada Lovelace", "Zoë Ångström", "Łukasz Żółć", "李雷", "Søren Kierkegaard", "José Núñez",
         "Grace Hopper", "Αλέξης Παπαδόπουλος", "Nguyễn Văn An", 'Dana "D" O\'Brien']
PLANS = ["", "free", "pro", "team"]
TAGS = ["beta", "🚀", "ünïcode", "vip", "early-adopter", "tab\there"]
PUSH_ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


def user(rng: random.Random, number: int, camel: bool) -> dict:
    """One user, with camelCase member names (as an app's API sends them) or snake_case (as stored)."""
    def key(snake: str) -> str:
        if not camel:
            return snake
        head, *rest = snake.split("_")
        return head + "".join(word.capitalize() for word in rest)

    name = rng.choice(NAMES)
    avatar = {} if rng.random() < 0.3 else {"url": f"https://cdn.example.com/a/{number}.png", "width": 128}
    return {
        key("display_name"): f"{name} #{number}",
        "email": f"user{number}@example.com",
        "avatar": avatar,
        "plan": rng.choice(PLANS),
        key("created_at"): 1700000000000 + number * 1013,
        "balance": f"{rng.randrange(0, 100000) / 100:.2f}",
        key("last_seen"): {key("ip_address"): f"10.{number % 256}.{number // 256 % 256}.7",
                           key("user_agent"): rng.choice(["Mozilla/5.0", "okhttp/4.12", ""])},
        "tags": rng.sample(TAGS, rng.randrange(0, 3)),
        # Written by a client app in camelCase whatever the rest of the record uses.
        "settings": {} if rng.random() < 0.2 else {"emailOptIn": rng.random() < 0.5, "themeName": rng.choice(["", "dark"])},
    }


def push_id(rng: random.Random) -> str:
    return "-N" + "".join(rng.choice(PUSH_ALPHABET) for _ in range(18))


def write_lines(path: Path, rng: random.Random, first: int, size: int) -> int:
    """A JSON Lines file of about `size` bytes; returns the number of users written."""
    written, count = 0, 0
    with path.open("w", encoding="utf-8", newline="\n") as file:
        while written < size or count == 0:
            line = json.dumps({"id": f"u{first + count:08d}", **user(rng, first + count, camel=True)},
                              ensure_ascii=False, separators=(",", ":")) + "\n"
            if count % 1000 == 1:
                line += "\n"  # blank lines happen; they are skipped
            file.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count


def write_export(path: Path, rng: random.Random, first: int, size: int) -> int:
    """A Firebase export of about `size` bytes: one keyed collection; returns the number of users."""
    users, written = {}, 2
    while written < size or not users:
        record = user(rng, first + len(users), camel=False)
        key = push_id(rng)
        users[key] = record
        written += len(json.dumps({key: record}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) - 1
    path.write_text(json.dumps(users, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return len(users)


def make_input(folder: Path, *, files: int = 8, megabytes: float = 1.0, seed: int = 10, jsonl_only: bool = False) -> int:
    """Writes `files` files (half of each kind, or all JSON Lines) of `megabytes` in all into `folder`.

    Returns the number of users written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    size = int(megabytes * 1_000_000 / files)
    total = 0
    for index in range(files):
        if index % 2 == 0 or jsonl_only:
            total += write_lines(folder / f"users-{index:04d}.jsonl", rng, total, size)
        else:
            total += write_export(folder / f"export-{index:04d}.json", rng, total, size)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where to write the files (created if missing)")
    parser.add_argument("--files", type=int, default=8, help="how many files, half of each kind (8)")
    parser.add_argument("--megabytes", type=float, default=1.0, help="about how many MB in all (1)")
    parser.add_argument("--seed", type=int, default=10, help="the random seed (10)")
    parser.add_argument("--jsonl-only", action="store_true", help="JSON Lines files only, no exports")
    args = parser.parse_args()
    users = make_input(args.folder, files=args.files, megabytes=args.megabytes, seed=args.seed,
                       jsonl_only=args.jsonl_only)
    print(f"{users} users in {args.files} files in {args.folder}")


if __name__ == "__main__":
    main()
