#!/usr/bin/env python3
"""A deterministic Firebase-style payload of any size, written streaming.

The payload is what Firebase answers for GET /users.json: one JSON object whose members are
20-character push ids (chronological, in Firebase's alphabet) mapping to user records of about
350 bytes each (287,687 of them in 100 MB):

    {"-NjEtR-0NR69O1ni7igs":{"displayName":"Nguyễn 田中","createdAt":1700000022529,
     "lastLogin":1705898601947,"isActive":true,"score":308.0,"plan":"pro","avatar":{},"tags":[],
     "profile":{"firstName":"Nguyễn","lastName":"田中","city":"القاهرة",
                "bio":"Says \\"hello\\" twice","followers":3188}}, ...}

What the rules under test meet in it: unicode text (accents, CJK, Cyrillic, Greek, Arabic, emoji
with ZWJ sequences), strings with escaped quotes, backslashes, newlines and tabs, integers
(13-digit millisecond times), reals, booleans, a nested object (`profile`), small arrays (`tags`),
`avatar` as `{}` in 30% of the records (else `{"url":...,"width":...}`), `plan` as `""` in 40% of
the records (else "pro" or "free"), and camelCase member names.

With `--groups` (the payload of run.py's op workloads), each record also has a member `groups`
after `tags`: an array of zero to three objects `{"id":"g7","name":"Beta testers","role":"member"}`,
the array of objects real APIs send (GitHub's `labels`), which `pluck` selects from.

The file is written record by record in chunks, so even the 1 GB payload needs only a few MB of
memory. The same (size, seed) always gives the same bytes.

    python3 payload.py MEGABYTES OUTPUT [--seed N] [--groups]
"""

import argparse
import json
import random
import sys

MB = 1_000_000
DEFAULT_SEED = 0x5EED
# Bump when the generator changes, so that cached payloads (named after it) are not reused.
GENERATOR_VERSION = 1

# Firebase's push id alphabet, in its (ASCII-sorted) order.
PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

FIRST_NAMES = [
    "Ada", "Zoë", "José", "François", "Søren", "Łukasz", "Björk", "Chloé", "Nguyễn", "Ümit",
    "İlkay", "Mária", "さくら", "小明", "Олег", "Αλέξης", "محمد", "Renée", "Jürgen", "Grace",
]
LAST_NAMES = [
    "Lovelace", "Ångström", "García", "Müller", "Dvořák", "Østergaard", "O'Brien", "Nakamura",
    "田中", "김민준", "Иванова", "Ελευθερίου", "Núñez", "Kowalczyk", "Çelik", "Hopper",
]
CITIES = [
    "東京", "São Paulo", "Zürich", "Reykjavík", "Kraków", "Москва", "서울", "León",
    "Nice", "Montréal", "القاهرة", "Αθήνα",
]
# Bios exercise the writer's escaping: quotes, backslashes, \n, \t, and multi-byte text.
BIOS = [
    'Says "hello" twice',
    "Path: C:\\Users\\me\\Documents",
    "Line one\nLine two",
    "🎉 party mode",
    "Loves 🍣 and ☕",
    'Motto: "stay hungry"\n— Steve',
    "tab\tseparated\tvalues",
    "👩‍💻 dev, 🇯🇵 based",
    "Regex: ^\\d+\\.\\d$",
    "",
]
TAGS = ["swift", "ios", "android", "beta", "vip", "early-adopter", "🔥", "日本語", "news", "café"]
PLANS = ["pro", "free"]
AVATAR_WIDTHS = [64, 128, 256]
GROUP_NAMES = ["Beta testers", "Café crew", "Équipe Paris", "東京 team", "Admins", "🚀 Launch", "Support", "Design"]
GROUP_ROLES = ["member", "owner", "moderator"]


def encoded(values):
    """Each string as its JSON literal (quotes and escapes included), computed once."""
    return [json.dumps(value, ensure_ascii=False) for value in values]


FIRST_JSON = encoded(FIRST_NAMES)
LAST_JSON = encoded(LAST_NAMES)
DISPLAY_JSON = [[json.dumps(f"{first} {last}", ensure_ascii=False) for last in LAST_NAMES] for first in FIRST_NAMES]
CITY_JSON = encoded(CITIES)
BIO_JSON = encoded(BIOS)
TAG_JSON = encoded(TAGS)
GROUP_JSON = [f'"name":{name},"role":' for name in encoded(GROUP_NAMES)]


def push_id(rng: random.Random, millis: int) -> str:
    """A Firebase push id: 8 characters of time (so ids sort chronologically) and 12 random."""
    head = []
    for _ in range(8):
        head.append(PUSH_CHARS[millis % 64])
        millis //= 64
    bits = rng.getrandbits(72)
    tail = [PUSH_CHARS[(bits >> (6 * i)) & 63] for i in range(12)]
    return "".join(reversed(head)) + "".join(tail)


def groups(rng: random.Random) -> str:
    """`,"groups":[...]`: zero to three group objects."""
    items = []
    for _ in range(rng.randrange(4)):
        group = rng.randrange(len(GROUP_NAMES))
        items.append(f'{{"id":"g{group}",{GROUP_JSON[group]}"{rng.choice(GROUP_ROLES)}"}}')
    return f',"groups":[{",".join(items)}]'


def record(rng: random.Random, millis: int, with_groups: bool = False) -> str:
    """One `"<push id>":{...}` member, compact JSON."""
    uid = push_id(rng, millis)
    first = rng.randrange(len(FIRST_NAMES))
    last = rng.randrange(len(LAST_NAMES))
    # {} in 30% of the records, "" in 40%: what emptyObjectToNull and blankStringToNull are for.
    avatar = "{}" if rng.random() < 0.3 else (
        f'{{"url":"https://cdn.ex.io/{uid}.png","width":{rng.choice(AVATAR_WIDTHS)}}}')
    plan = '""' if rng.random() < 0.4 else f'"{rng.choice(PLANS)}"'
    tags = ",".join(rng.choice(TAG_JSON) for _ in range(rng.randrange(3)))
    return (
        f'"{uid}":{{"displayName":{DISPLAY_JSON[first][last]},'
        f'"createdAt":{millis},"lastLogin":{millis + rng.randrange(10**10)},'
        f'"isActive":{"true" if rng.random() < 0.8 else "false"},'
        f'"score":{rng.randrange(2_000) / 4},'
        f'"plan":{plan},"avatar":{avatar},"tags":[{tags}]{groups(rng) if with_groups else ""},'
        f'"profile":{{"firstName":{FIRST_JSON[first]},"lastName":{LAST_JSON[last]},'
        f'"city":{rng.choice(CITY_JSON)},"bio":{rng.choice(BIO_JSON)},'
        f'"followers":{rng.randrange(10_000)}}}}}'
    )


def write_payload(path: str, megabytes: float, seed: int = DEFAULT_SEED, with_groups: bool = False) -> int:
    """Writes the payload of `megabytes` × 10^6 bytes (give or take one record) to `path`;
    `with_groups` gives each record its `groups` array.

    Returns the number of records. Records are generated until the file reaches the size; the
    whole file is never held in memory.
    """
    target = int(megabytes * MB)
    rng = random.Random(seed)
    millis = 1_700_000_000_000
    written = 1  # the opening brace
    count = 0
    with open(path, "w", encoding="utf-8", newline="", buffering=1 << 20) as out:
        out.write("{")
        while written + 1 < target:  # + 1 for the closing brace
            chunk = []
            for _ in range(1000):
                if written + 1 >= target:
                    break
                member = record(rng, millis, with_groups)
                if count:
                    member = "," + member
                chunk.append(member)
                written += len(member.encode("utf-8"))
                count += 1
                millis += 1 + rng.randrange(60_000)  # push ids stay chronological and distinct
            out.write("".join(chunk))
        out.write("}")
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("megabytes", type=float, help="size in MB (10^6 bytes)")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--groups", action="store_true", help="give each record a `groups` array of objects")
    args = parser.parse_args()
    count = write_payload(args.output, args.megabytes, args.seed, args.groups)
    print(f"{args.output}: {count} records", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
