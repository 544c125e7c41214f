#!/usr/bin/env python3
"""Generate the Rust test data from the independent Python reference.

Writes (paths relative to the repository root):
  crates/matombo-core/tests/data/perft.txt
  crates/matombo-core/tests/data/turns.txt

Deterministic: positions come from seeded random play (fixed seeds below)
plus a few hand-picked positions; perft depths are fixed per start position
and chosen by count thresholds (not by timing) for the other positions.

Usage:  python3 tools/reference/make_data.py [--quick] [--out DIR]
  --quick  skip the expensive deep start-position perfts (for a fast check)
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rules  # noqa: E402
from rules import (Position, parse_position, parse_ruleset, perft, legal_turns,  # noqa: E402
                   count_turns, features, random_turn)

SEED = 20261129

# Start positions and the deepest perft depth written for each (chosen so
# that each count takes at most about a minute in this Python code).
START_DEPTHS = [
    ("tsoro:6", 7),
    ("tsoro:8", 6),
    ("tsoro:8,heads=1", 5),
    ("tsoro:8,heads=0,bonus=0", 8),
    ("tsoro:8,bonus=3", 6),
    ("tsoro:12", 6),
    ("tsoro:21", 4),
    ("nsolo:8", 3),
    ("nsolo:12", 2),
    ("nsolo:36", 1),
]

# Rulesets used for seeded random games, with number of games each.
GAME_RULESETS = [
    ("tsoro:6", 4),
    ("tsoro:8", 6),
    ("tsoro:8,heads=1", 4),
    ("tsoro:8,heads=0,bonus=0", 4),
    ("tsoro:8,heads=0", 3),
    ("tsoro:8,bonus=1", 3),
    ("tsoro:8,bonus=3", 3),
    ("tsoro:10,heads=1,bonus=1", 2),
    ("tsoro:12", 4),
    ("tsoro:12,heads=1,bonus=3", 3),
    ("tsoro:15,bonus=0", 2),
    ("tsoro:21", 3),
    ("nsolo:8", 8),
    ("nsolo:10", 3),
    ("nsolo:12", 4),
    ("nsolo:36", 3),
]
MAX_PLIES = 400

# Hand-picked positions (not from play) exercising rare rules.
SPECIAL = [
    # RULES.md §2.5: sowing from B8 never ends (B8 is not a legal start).
    ("endless start (RULES.md 2.5)", "nsolo:8 2*8/2*8/0,1,0,3,2,0,1,2/1,2,1,0,1,0,1,2 S"),
    # found by random search: a start whose sowing never ends (E1).
    ("endless start E1", "nsolo:8 0*3,1,2,1,2,0/0,2,1,0,2*2,0,1/0,3,0,4,1,4,3,4/1,0,4,0,4,1,4,1 S"),
    ("endless start E1, tsoro basic game",
     "tsoro:8,heads=0,bonus=0 0*2,2,1*2,2,0,2/1,0,2,1,0*2,1,0/0,1,0,1,4*2,1,0/4,3,2,1,0,3,0,3 S"),
    # found by random search: 'continue' refused by E2 after a repeated head state.
    ("E2 repeated head state", "tsoro:6 0*3,1*2,2/2*2,0,1,2*2/1,2,1,4,0,1/4,1,4,2,1,0 S"),
    ("E2 repeated head state", "tsoro:6 2,0*2,1,0,2/0*3,2*2,0/0,1,4*2,3,0/1,0,1,0,2,1 S"),
    ("E2 repeated head state, heads=1", "tsoro:6,heads=1 1,2,0*2,1*2/2*3,1,2,1/4,0,3,4,0,1/1,0,1,0,3,2 S"),
    # no legal turn: only single stones, each followed by an occupied hole
    ("no legal turn (blocked singles)", "tsoro:8 0*8/0*8/1*8/1*8 S"),
    ("no legal turn (no stones)", "nsolo:8 2*8/2*8/0*8/0*8 S"),
    ("single stones, one legal", "tsoro:8 0*7,1/0*8/0*8/1*7,0 N"),
    # single stone A5 -> A4 captures a5 (7 stones), then a bonus of 7 stones
    ("big Nsolo capture, bonus takes all the opponent's remaining stones",
     "nsolo:8 0*5,2,0,1/0*3,7,0*2,3,0/0*4,1,0*3/1,0*7 S"),
    ("big Nsolo capture, few bonus combinations",
     "nsolo:8 0*5,2,0,1/0,3,0,7,0*2,3,0/0*4,1,0*3/1,0*7 S"),
    ("big Nsolo capture, few bonus combinations",
     "nsolo:8 1,0*5,2,0/0*3,5,0*3,3/0*4,1,0*3/1,0*7 S"),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def mirror(text):
    """Swap the two sides of a position (used to make North-to-move copies)."""
    p = parse_position(text)
    m = 2 * p.rs.n
    b = p.board[m:] + p.board[:m]
    return str(Position(p.rs, b, 1 - p.side))


def random_games():
    """Yield (ruleset, game_index, ply, position) from seeded random play."""
    for rs_text, games in GAME_RULESETS:
        rs = parse_ruleset(rs_text)
        for g in range(games):
            rng = random.Random("%d/%s/%d" % (SEED, rs_text, g))
            pos = Position.start(rs)
            for ply in range(MAX_PLIES):
                yield rs_text, g, ply, pos
                r = random_turn(pos, rng)
                if r is None:
                    break
                pos = r[1]


def collect():
    t0 = time.time()
    cands = []
    for rs_text, g, ply, pos in random_games():
        cands.append((rs_text, g, ply, pos, features(pos)))
    log("collected %d positions from play in %.1fs" % (len(cands), time.time() - t0))
    return cands


def select(cands, wants, used, max_turns=None):
    """For every want (label, ruleset-prefix-or-None, predicate, count) pick
    `count` positions (at most one per game, min ply spacing) in stream order."""
    out = []
    for label, rsel, pred, count in wants:
        got = 0
        games_used = set()
        for rs_text, g, ply, pos, f in cands:
            if got >= count:
                break
            if rsel is not None and rs_text != rsel:
                continue
            if (rs_text, g) in games_used:
                continue
            s = str(pos)
            if s in used:
                continue
            if not pred(pos, f, ply):
                continue
            if max_turns is not None and count_turns(pos) > max_turns:
                continue
            used.add(s)
            games_used.add((rs_text, g))
            out.append(("%s (%s game %d ply %d)" % (label, rs_text, g, ply), s))
            got += 1
        if got < count:
            log("warning: only %d/%d for %r" % (got, count, label))
    return out


def has(*names):
    return lambda pos, f, ply: all(n in f for n in names)


def mid(lo, hi=10 ** 9, *names):
    return lambda pos, f, ply: lo <= ply <= hi and all(n in f for n in names)


def nsolo_cap(kmin, max_turns):
    def pred(pos, f, ply):
        if "capture" not in f:
            return False
        caps = [c for _, _, _, c in rules._raw_turns(pos) if c is not None]
        return max(caps) >= kmin and count_turns(pos) <= max_turns
    return pred


def tsoro_cap_turns(max_turns):
    return lambda pos, f, ply: "capture" in f and count_turns(pos) <= max_turns


def P(lo, *names):
    """predicate: ply >= lo and all the named features present"""
    return lambda pos, f, ply: ply >= lo and all(n in f for n in names)


PERFT_WANTS = [
    ("tsoro capture pending", "tsoro:6", P(4, "capture"), 2),
    ("tsoro capture pending", "tsoro:8", mid(10, 60, "capture"), 2),
    ("tsoro head choice", "tsoro:8", P(12, "head-choice"), 1),
    ("tsoro head choice", "tsoro:12", P(12, "head-choice"), 1),
    ("tsoro capture pending", "tsoro:12", mid(20, 80, "capture"), 1),
    ("tsoro 4x21 midgame capture", "tsoro:21", mid(15, 60, "capture"), 1),
    ("tsoro 4x21 late", "tsoro:21", mid(120), 1),
    ("single head", "tsoro:8,heads=1", P(6, "head-choice", "capture"), 2),
    ("single head, bonus 1", "tsoro:10,heads=1,bonus=1", P(6, "capture"), 1),
    ("basic game", "tsoro:8,heads=0,bonus=0", P(6, "capture"), 2),
    ("no heads, bonus 2", "tsoro:8,heads=0", P(6, "capture"), 1),
    ("bonus 1", "tsoro:8,bonus=1", P(6, "capture"), 1),
    ("bonus 3", "tsoro:8,bonus=3", P(6, "capture"), 2),
    ("bonus 3, single head", "tsoro:12,heads=1,bonus=3", P(6, "capture"), 1),
    ("no bonus, 4x15", "tsoro:15,bonus=0", mid(30, 200, "capture"), 1),
    ("tsoro single stones", "tsoro:8", P(0, "single-stones"), 2),
    ("tsoro single stones", "tsoro:6", P(0, "single-stones", "capture"), 1),
    ("tsoro single stones", "tsoro:8,heads=0,bonus=0", P(0, "single-stones"), 1),
    ("nsolo midgame", "nsolo:8", mid(6, 40), 2),
    ("nsolo big capture", "nsolo:8", nsolo_cap(3, 10 ** 6), 2),
    ("nsolo big capture, few combinations", "nsolo:8", nsolo_cap(3, 400), 2),
    ("nsolo big capture", "nsolo:12", nsolo_cap(4, 10 ** 6), 1),
    ("nsolo midgame", "nsolo:10", mid(10, 60), 1),
    ("nsolo 4x36 midgame", "nsolo:36", mid(4, 30), 1),
    ("nsolo 4x36 late", "nsolo:36", mid(80), 1),
    ("nsolo single stones", None, lambda p, f, ply: not p.rs.tsoro and "single-stones" in f, 2),
]

TURNS_WANTS = [
    ("tsoro capture, bonus 2", "tsoro:6", tsoro_cap_turns(600), 2),
    ("tsoro capture, bonus 2", "tsoro:8", tsoro_cap_turns(600), 3),
    ("tsoro head choice", "tsoro:8", P(8, "head-choice"), 2),
    ("tsoro head choice", "tsoro:12", P(20, "head-choice"), 1),
    ("tsoro capture", "tsoro:12", tsoro_cap_turns(2500), 1),
    ("tsoro 4x21", "tsoro:21", mid(10), 1),
    ("tsoro 4x21 head choice", "tsoro:21", P(30, "head-choice"), 1),
    ("single head", "tsoro:8,heads=1", P(8, "head-choice"), 2),
    ("single head", "tsoro:8,heads=1", tsoro_cap_turns(800), 1),
    ("single head, bonus 1", "tsoro:10,heads=1,bonus=1", P(8, "capture"), 1),
    ("basic game", "tsoro:8,heads=0,bonus=0", P(4, "capture"), 2),
    ("no heads, bonus 2", "tsoro:8,heads=0", tsoro_cap_turns(800), 1),
    ("bonus 1", "tsoro:8,bonus=1", P(4, "capture"), 2),
    ("bonus 3", "tsoro:8,bonus=3", tsoro_cap_turns(2500), 2),
    ("bonus 3, single head", "tsoro:12,heads=1,bonus=3", tsoro_cap_turns(2500), 1),
    ("no bonus, 4x15", "tsoro:15,bonus=0", P(10, "capture"), 1),
    ("tsoro single stones", "tsoro:8", P(0, "single-stones"), 2),
    ("tsoro single stones", "tsoro:6", P(0, "single-stones"), 1),
    ("nsolo capture", "nsolo:8", nsolo_cap(2, 1500), 2),
    ("nsolo big capture, few combinations", "nsolo:8", nsolo_cap(3, 300), 3),
    ("nsolo big capture, few combinations", "nsolo:12", nsolo_cap(3, 2500), 1),
    ("nsolo big capture, few combinations", "nsolo:10", nsolo_cap(3, 2500), 1),
    ("nsolo 4x36", "nsolo:36", lambda p, f, ply: ply >= 4 and count_turns(p) <= 2500, 1),
    ("nsolo single stones", None, lambda p, f, ply: not p.rs.tsoro and "single-stones" in f, 2),
]

# Seeded random boards (not from play) searched for turns with two or more
# 'continue' marks: (ruleset, side, how many to take for perft, for turns).
MULTI_CONTINUE = [("tsoro:8", 2, 2), ("tsoro:12", 1, 1), ("tsoro:8,heads=1", 1, 1),
                  ("tsoro:21", 1, 1)]


def multi_continue_positions():
    out_p, out_t = [], []
    for rs_text, np_, nt in MULTI_CONTINUE:
        rs = parse_ruleset(rs_text)
        rng = random.Random("%d/multi/%s" % (SEED, rs_text))
        found = []
        while len(found) < np_ + nt:
            n = rs.n
            b = [rng.choice([0, 0, 1, 1, 2, 3, 4]) for _ in range(4 * n)]
            pos = Position(rs, b, rng.randrange(2))
            f = features(pos)
            if "multi-continue" in f and count_turns(pos) <= 1500:
                found.append(str(pos))
        for s in found[:np_]:
            out_p.append(("several continues (random board, %s)" % rs_text, s))
        for s in found[np_:]:
            out_t.append(("several continues (random board, %s)" % rs_text, s))
    return out_p, out_t


TURNS_STARTS = ["tsoro:6", "tsoro:8", "tsoro:8,heads=1", "tsoro:8,heads=0,bonus=0",
                "tsoro:21", "nsolo:8"]

PERFT_LIMIT = 150000      # go one ply deeper only while the count is below this
MAX_MID_DEPTH = 3


def fits_setup(text):
    """Whether a position holds no more stones than its ruleset starts with. The engine
    (like RULES.md's contract for position input) rejects fuller positions as impossible,
    so hand-made ones that overfill the board are left out of the data files."""
    rs_text, rows = text.split()[0], text.split()[1]
    total = 0
    for row in rows.split("/"):
        for item in row.split(","):
            c, _, n = item.partition("*")
            total += int(c) * int(n or 1)
    kind, _, rest = rs_text.partition(":")
    parts = rest.split(",")
    n = int(parts[0])
    heads = 2
    for p in parts[1:]:
        if p.startswith("heads="):
            heads = int(p[6:])
    limit = 4 * n + (2 if heads == 1 else 0) if kind == "tsoro" else 8 * n - 4
    return total <= limit


def main():
    quick = "--quick" in sys.argv
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    out_dir = os.path.join(root, "crates", "matombo-core", "tests", "data")
    if "--out" in sys.argv:
        out_dir = sys.argv[sys.argv.index("--out") + 1]
    os.makedirs(out_dir, exist_ok=True)
    T0 = time.time()

    cands = collect()

    # ---------------------------------------------------------------- perft
    lines = [
        "# perft counts from the independent Python reference (tools/reference),",
        "# written from RULES.md alone.  Format: <position> ; <depth> ; <count>",
        "# Regenerate: python3 tools/reference/make_data.py",
        "",
        "# start positions",
    ]
    for rs_text, dmax in START_DEPTHS:
        pos = Position.start(parse_ruleset(rs_text))
        cache = {}
        if quick:
            dmax = min(dmax, 3 if pos.rs.tsoro else 1)
        for d in range(1, dmax + 1):
            t = time.time()
            v = perft(pos, d, cache)
            log("start %s d=%d %d (%.1fs)" % (rs_text, d, v, time.time() - t))
            lines.append("%s ; %d ; %d" % (pos, d, v))

    used = set()
    perft_positions = [(label, s) for label, s in SPECIAL]
    perft_positions += [(label + ", sides swapped", mirror(s)) for label, s in SPECIAL[:6]]
    used.update(s for _, s in perft_positions)
    mc_perft, mc_turns = multi_continue_positions()
    perft_positions += mc_perft
    used.update(s for _, s in mc_perft)
    perft_positions += select(cands, PERFT_WANTS, used)
    n_mid = 0
    for label, s in perft_positions:
        if not fits_setup(s):
            continue
        pos = parse_position(s)
        assert str(pos) == s, (s, str(pos))
        lines.append("")
        lines.append("# " + label)
        cache = {}
        prev = 1
        for d in range(1, MAX_MID_DEPTH + 1):
            if d > 1 and (prev > PERFT_LIMIT or prev == 0):
                break
            t = time.time()
            v = perft(pos, d, cache)
            log("mid %s d=%d %d (%.1fs)" % (s, d, v, time.time() - t))
            lines.append("%s ; %d ; %d" % (pos, d, v))
            prev = v
        n_mid += 1
    with open(os.path.join(out_dir, "perft.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    log("perft.txt: %d start positions, %d other positions" % (len(START_DEPTHS), n_mid))

    # ---------------------------------------------------------------- turns
    blocks = []
    turn_positions = [("start " + r, str(Position.start(parse_ruleset(r)))) for r in TURNS_STARTS]
    turn_positions += [(label, s) for label, s in SPECIAL]
    turn_positions += [(label + ", sides swapped", mirror(s)) for label, s in SPECIAL[3:6]]
    used2 = set(s for _, s in turn_positions)
    used2.update(s for _, s in perft_positions)   # prefer fresh positions
    turn_positions += mc_turns
    used2.update(s for _, s in mc_turns)
    turn_positions += select(cands, TURNS_WANTS, used2, max_turns=2500)
    out = []
    for label, s in turn_positions:
        if not fits_setup(s):
            continue
        pos = parse_position(s)
        ts = legal_turns(pos)
        toks = [t for t, _ in ts]
        assert len(set(toks)) == len(toks), "duplicate token in %s" % s
        assert len(ts) == count_turns(pos)
        log("turns: %s: %d turns" % (label, len(ts)))
        out.append("position: " + s)
        for tok, child in ts:
            out.append("%s %s" % (tok, child))
        out.append("")
    with open(os.path.join(out_dir, "turns.txt"), "w") as fh:
        fh.write("\n".join(out))
    log("turns.txt: %d positions" % len(turn_positions))
    log("total %.1fs" % (time.time() - T0))


if __name__ == "__main__":
    main()
