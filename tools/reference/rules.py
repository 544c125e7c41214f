"""Independent reference implementation of Tsoro and Nsolo, written from
/work/shared/RULES.md alone (Python 3, standard library only).

Internal board representation
-----------------------------
A board is a list of 4N counts.  Index ``s*2N + t`` is the hole at track
position ``t`` (0 .. 2N-1) of side ``s`` (0 = South, 1 = North), where, as in
RULES.md §1, outer hole ``k`` has ``t = k-1`` and inner hole ``k`` has
``t = 2N-k``.  So the slice ``board[s*2N:(s+1)*2N]`` is side ``s``'s own
track in sowing order.
"""

from math import comb

SOUTH, NORTH = 0, 1


# ---------------------------------------------------------------------------
# Rulesets (§6.1)
# ---------------------------------------------------------------------------

class Ruleset:
    __slots__ = ("game", "n", "heads", "bonus")

    def __init__(self, game, n, heads=2, bonus=2):
        if game == "tsoro":
            if not 6 <= n <= 21:
                raise ValueError("tsoro N must be 6..21")
            if heads not in (0, 1, 2):
                raise ValueError("heads must be 0, 1 or 2")
            if bonus not in (0, 1, 2, 3):
                raise ValueError("bonus must be 0..3")
        elif game == "nsolo":
            if not 8 <= n <= 36:
                raise ValueError("nsolo N must be 8..36")
            heads, bonus = 0, 0
        else:
            raise ValueError("unknown game %r" % game)
        self.game, self.n, self.heads, self.bonus = game, n, heads, bonus

    @property
    def tsoro(self):
        return self.game == "tsoro"

    def __str__(self):
        if self.game == "nsolo":
            return "nsolo:%d" % self.n
        s = "tsoro:%d" % self.n
        if self.heads != 2:
            s += ",heads=%d" % self.heads
        if self.bonus != 2:
            s += ",bonus=%d" % self.bonus
        return s

    def __eq__(self, other):
        return isinstance(other, Ruleset) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    # track positions (within one side's 2N slice) that are heads
    def head_ts(self):
        n = self.n
        if not self.tsoro or self.heads == 0:
            return frozenset()
        if self.heads == 1:
            return frozenset([n - 1])
        return frozenset([n - 2, n - 1])

    def start_board(self):
        n = self.n
        side = [0] * (2 * n)
        if self.tsoro:
            for t in range(n):
                side[t] = 2
            if self.heads == 1:
                side[n - 1] = 3
        else:
            for t in range(2 * n):
                side[t] = 2
            side[n] = 0          # inner hole N (AN / aN) has t = 2N - N = N
        return side + side[:]


def parse_ruleset(text):
    text = text.strip()
    if text in ("tsoro", "nsolo"):
        return Ruleset(text, 21 if text == "tsoro" else 8)
    if ":" not in text:
        raise ValueError("bad ruleset %r" % text)
    game, rest = text.split(":", 1)
    parts = rest.split(",")
    if not parts[0].isdigit():
        raise ValueError("bad N in %r" % text)
    n = int(parts[0])
    if game == "nsolo":
        if len(parts) != 1:
            raise ValueError("nsolo takes no options")
        return Ruleset("nsolo", n)
    if game != "tsoro":
        raise ValueError("unknown game %r" % game)
    heads, bonus = 2, 2
    opts = parts[1:]
    order = []
    for o in opts:
        if "=" not in o:
            raise ValueError("bad option %r" % o)
        k, v = o.split("=", 1)
        if not v.isdigit():
            raise ValueError("bad option value %r" % o)
        if k == "heads":
            heads = int(v)
        elif k == "bonus":
            bonus = int(v)
        else:
            raise ValueError("unknown option %r" % k)
        order.append(k)
    if order not in ([], ["heads"], ["bonus"], ["heads", "bonus"]):
        raise ValueError("options must be heads then bonus, each once")
    return Ruleset("tsoro", n, heads, bonus)


# ---------------------------------------------------------------------------
# Hole names
# ---------------------------------------------------------------------------

def hole_name(rs, side, t):
    n = rs.n
    if t < n:
        letter, k = "B", t + 1
    else:
        letter, k = "A", 2 * n - t
    if side == NORTH:
        letter = letter.lower()
    return "%s%d" % (letter, k)


def parse_hole(rs, name):
    """Return (side, t) for a hole name like 'B7' or 'a12'."""
    letter, k = name[0], int(name[1:])
    n = rs.n
    if not 1 <= k <= n:
        raise ValueError("bad hole %r" % name)
    side = SOUTH if letter in "AB" else NORTH
    if letter.upper() == "B":
        t = k - 1
    elif letter.upper() == "A":
        t = 2 * n - k
    else:
        raise ValueError("bad hole %r" % name)
    return side, t


# ---------------------------------------------------------------------------
# Positions (§6.2)
# ---------------------------------------------------------------------------

class Position:
    __slots__ = ("rs", "board", "side")

    def __init__(self, rs, board, side):
        self.rs = rs
        self.board = list(board)
        self.side = side

    @staticmethod
    def start(rs):
        return Position(rs, rs.start_board(), SOUTH)

    def key(self):
        return (tuple(self.board), self.side)

    def __str__(self):
        return format_position(self.rs, self.board, self.side)

    def __eq__(self, other):
        return isinstance(other, Position) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


def _row_text(counts):
    out = []
    i = 0
    while i < len(counts):
        j = i
        while j < len(counts) and counts[j] == counts[i]:
            j += 1
        run = j - i
        if run >= 2:
            out.append("%d*%d" % (counts[i], run))
        else:
            out.append("%d" % counts[i])
        i = j
    return ",".join(out)


def display_rows(rs, board):
    """The four rows b, a, A, B, each left to right as South sees them."""
    n = rs.n
    m = 2 * n
    # North: row b reads bN..b1  -> t = N-1 .. 0 ; row a reads aN..a1 -> t = N .. 2N-1
    row_b = [board[m + (k - 1)] for k in range(n, 0, -1)]
    row_a = [board[m + (2 * n - k)] for k in range(n, 0, -1)]
    # South: row A reads A1..AN -> t = 2N-1 .. N ; row B reads B1..BN -> t = 0 .. N-1
    row_A = [board[2 * n - k] for k in range(1, n + 1)]
    row_B = [board[k - 1] for k in range(1, n + 1)]
    return row_b, row_a, row_A, row_B


def format_position(rs, board, side):
    rows = display_rows(rs, board)
    return "%s %s %s" % (str(rs), "/".join(_row_text(r) for r in rows),
                         "S" if side == SOUTH else "N")


def _parse_row(text, n):
    vals = []
    for item in text.split(","):
        if "*" in item:
            c, k = item.split("*")
            if not (c.isdigit() and k.isdigit()) or int(k) < 1:
                raise ValueError("bad run %r" % item)
            vals.extend([int(c)] * int(k))
        else:
            if not item.isdigit():
                raise ValueError("bad count %r" % item)
            vals.append(int(item))
    if len(vals) != n:
        raise ValueError("row has %d counts, expected %d" % (len(vals), n))
    return vals


def parse_position(text):
    parts = text.split()
    if len(parts) != 3:
        raise ValueError("position needs 3 fields: %r" % text)
    rs = parse_ruleset(parts[0])
    rows = parts[1].split("/")
    if len(rows) != 4:
        raise ValueError("position needs 4 rows")
    n = rs.n
    row_b, row_a, row_A, row_B = (_parse_row(r, n) for r in rows)
    if parts[2] not in ("S", "N"):
        raise ValueError("bad side")
    side = SOUTH if parts[2] == "S" else NORTH
    m = 2 * n
    board = [0] * (2 * m)
    for i, k in enumerate(range(n, 0, -1)):
        board[m + (k - 1)] = row_b[i]
        board[m + (2 * n - k)] = row_a[i]
    for i, k in enumerate(range(1, n + 1)):
        board[2 * n - k] = row_A[i]
        board[k - 1] = row_B[i]
    return Position(rs, board, side)


# ---------------------------------------------------------------------------
# Sowing
# ---------------------------------------------------------------------------

END, HEAD, ENDLESS = 0, 1, 2

# Laps before we begin to record states for cycle detection.  Recording from
# any point on is exact: a repeated state proves the (deterministic) sowing is
# endless, and an endless sowing is eventually periodic, so it repeats a
# recorded state.
_RECORD_AFTER = 32


def sow_segment(mine, m, hole, heads):
    """Lift all stones of ``hole`` in ``mine`` (the mover's 2N track counts,
    modified in place) and sow, relaying, until a lap ends in an empty hole
    (returns (END, hole)), or on an occupied head (returns (HEAD, hole)), or
    the sowing is proven endless (returns (ENDLESS, None))."""
    seen = None
    laps = 0
    while True:
        hand = mine[hole]
        mine[hole] = 0
        q, r = divmod(hand, m)
        if q:
            for i in range(m):
                mine[i] += q
        # drop r stones into hole+1 .. hole+r (mod m)
        a = hole + 1
        b = hole + r
        if b < m:
            for i in range(a, b + 1):
                mine[i] += 1
        else:
            for i in range(a, m):
                mine[i] += 1
            for i in range(0, b - m + 1):
                mine[i] += 1
        last = (hole + hand) % m
        if mine[last] == 1:
            return END, last
        if last in heads:
            return HEAD, last
        # relay
        laps += 1
        if laps > _RECORD_AFTER:
            st = (tuple(mine), last)
            if seen is None:
                seen = {st}
            elif st in seen:
                return ENDLESS, None
            else:
                seen.add(st)
        hole = last


def legal_starts(mine, m):
    big = [t for t in range(m) if mine[t] >= 2]
    if big:
        return big
    return [t for t in range(m) if mine[t] == 1 and mine[(t + 1) % m] == 0]


# ---------------------------------------------------------------------------
# Bonus enumeration
# ---------------------------------------------------------------------------

def canonical_opp_order(n):
    """Track positions of the opponent's holes in canonical pick order:
    outer row 1..N (t = 0..N-1) then inner row 1..N (t = 2N-1 .. N)."""
    return list(range(n)) + [2 * n - k for k in range(1, n + 1)]


def tsoro_bonus_sets(opp, n, K):
    """All subsets (as lists in canonical order) of up to K non-empty holes."""
    order = [t for t in canonical_opp_order(n) if opp[t] > 0]
    out = []

    def rec(start, chosen):
        out.append(list(chosen))
        if len(chosen) == K:
            return
        for i in range(start, len(order)):
            chosen.append(order[i])
            rec(i + 1, chosen)
            chosen.pop()
    rec(0, [])
    return out


def tsoro_bonus_count(opp, n, K):
    nz = sum(1 for c in opp if c > 0)
    return sum(comb(nz, j) for j in range(0, min(K, nz) + 1))


def nsolo_bonus_multisets(opp, n, k):
    """All ways (lists of (t, count) in canonical order) to remove exactly
    min(k, total) stones from opp."""
    total = sum(opp)
    need = min(k, total)
    order = [t for t in canonical_opp_order(n) if opp[t] > 0]
    # suffix capacity to prune
    suffix = [0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + opp[order[i]]
    out = []

    def rec(i, left, chosen):
        if left == 0:
            out.append(list(chosen))
            return
        if i == len(order) or suffix[i] < left:
            return
        t = order[i]
        for c in range(min(left, opp[t]), 0, -1):
            chosen.append((t, c))
            rec(i + 1, left - c, chosen)
            chosen.pop()
        rec(i + 1, left, chosen)
    rec(0, need, [])
    return out


def nsolo_bonus_count(opp, k):
    total = sum(opp)
    need = min(k, total)
    # number of vectors r with 0 <= r_i <= c_i, sum r = need
    ways = [1] + [0] * need
    for c in opp:
        if c == 0:
            continue
        new = [0] * (need + 1)
        # sliding window sum
        acc = 0
        for s in range(need + 1):
            acc += ways[s]
            if s - c - 1 >= 0:
                acc -= ways[s - c - 1]
            new[s] = acc
        ways = new
    return ways[need]


# ---------------------------------------------------------------------------
# Turns
# ---------------------------------------------------------------------------

def _split(pos):
    n = pos.rs.n
    m = 2 * n
    me = pos.side
    op = 1 - me
    mine = pos.board[me * m:(me + 1) * m]
    opp = pos.board[op * m:(op + 1) * m]
    return n, m, me, op, mine, opp


def _join(me, mine, opp):
    return mine + opp if me == SOUTH else opp + mine


def _raw_turns(pos, events=None):
    """Yield (prefix_token, mine, opp, capture_k) for every turn up to (but not
    including) the bonus choice.  capture_k is None when there is no capture,
    else the capture details: for Tsoro True (bonus applies), for Nsolo k."""
    rs = pos.rs
    n, m, me, op, mine0, opp0 = _split(pos)
    heads = rs.head_ts()
    for s in legal_starts(mine0, m):
        start = hole_name(rs, me, s)
        mine = mine0[:]
        kind, h = sow_segment(mine, m, s, heads)
        if kind == ENDLESS:
            if events is not None:
                events.append(("E1-start", start))
            continue
        marks = ""
        seen_heads = set()
        while True:
            if kind == END:
                opp = opp0[:]
                cap = None
                if h >= n:                    # inner row
                    k = 2 * n - h
                    ft = 3 * n - 1 - h      # facing opponent inner hole
                    ot = n - k              # opponent outer hole, same file
                    if opp[ft] > 0:
                        taken = opp[ft]
                        opp[ft] = 0
                        if rs.tsoro:
                            opp[ot] = 0
                            cap = True
                        else:
                            cap = taken
                yield start + marks, mine, opp, cap
                break
            # HEAD: stop always legal
            yield start + marks + "=", mine, opp0, None
            st = (tuple(mine), h)
            if st in seen_heads:
                if events is not None:
                    events.append(("E2", start + marks))
                break                        # E2: continue illegal
            seen_heads.add(st)
            nxt = mine[:]
            kind2, h2 = sow_segment(nxt, m, h, heads)
            if kind2 == ENDLESS:
                if events is not None:
                    events.append(("E1-continue", start + marks))
                break                        # E1: continue illegal
            marks += "+"
            mine, kind, h = nxt, kind2, h2


def legal_turns(pos):
    """List of (token, resulting Position) for every legal turn."""
    rs = pos.rs
    n, m, me, op, _, _ = _split(pos)
    out = []
    for tok, mine, opp, cap in _raw_turns(pos):
        if cap is None or (rs.tsoro and rs.bonus == 0):
            out.append((tok, Position(rs, _join(me, mine, opp), op)))
            continue
        if rs.tsoro:
            for picks in tsoro_bonus_sets(opp, n, rs.bonus):
                o2 = opp[:]
                for t in picks:
                    o2[t] = 0
                t2 = tok + "".join("x" + hole_name(rs, op, t) for t in picks)
                out.append((t2, Position(rs, _join(me, mine, o2), op)))
        else:
            for picks in nsolo_bonus_multisets(opp, n, cap):
                o2 = opp[:]
                parts = []
                for t, c in picks:
                    o2[t] -= c
                    parts.append("x" + hole_name(rs, op, t) + (":%d" % c if c > 1 else ""))
                out.append((tok + "".join(parts), Position(rs, _join(me, mine, o2), op)))
    return out


def count_turns(pos):
    """Number of legal turns (perft depth 1), bonus combinations counted
    combinatorially."""
    rs = pos.rs
    n = rs.n
    total = 0
    for tok, mine, opp, cap in _raw_turns(pos):
        if cap is None or (rs.tsoro and rs.bonus == 0):
            total += 1
        elif rs.tsoro:
            total += tsoro_bonus_count(opp, n, rs.bonus)
        else:
            total += nsolo_bonus_count(opp, cap)
    return total


def perft(pos, depth, cache=None):
    if depth == 0:
        return 1
    if depth == 1:
        return count_turns(pos)
    if cache is None:
        cache = {}
    key = (tuple(pos.board), pos.side, depth)
    v = cache.get(key)
    if v is not None:
        return v
    total = 0
    for _, child in legal_turns(pos):
        total += perft(child, depth - 1, cache)
    cache[key] = total
    return total


def features(pos):
    """Descriptive flags of a position, used to pick varied test positions."""
    rs = pos.rs
    n, m, me, op, mine, opp = _split(pos)
    ev = []
    raws = list(_raw_turns(pos, ev))
    f = set(kind for kind, _ in ev)
    if not raws:
        f.add("no-move")
    if mine and max(mine) < 2 and sum(mine) > 0:
        f.add("single-stones")
    caps = [cap for _, _, _, cap in raws if cap is not None]
    if caps:
        f.add("capture")
    if not rs.tsoro and caps:
        k = max(caps)
        if k >= 3:
            f.add("nsolo-big-capture")
        if sum(opp) - 0 <= 2 * k + 4 and k >= 2:
            f.add("nsolo-capture-few-left")
    toks = [t for t, _, _, _ in raws]
    if any("=" in t for t in toks):
        f.add("head-choice")
    if any("++" in t for t in toks):
        f.add("multi-continue")
    return f


def random_turn(pos, rng):
    """A random legal turn: uniform over start/continue/stop paths, then a
    uniform random bonus choice.  Returns (token, Position) or None."""
    rs = pos.rs
    n, m, me, op, _, _ = _split(pos)
    raws = list(_raw_turns(pos))
    if not raws:
        return None
    tok, mine, opp, cap = raws[rng.randrange(len(raws))]
    opp = opp[:]
    if cap is not None and not (rs.tsoro and rs.bonus == 0):
        if rs.tsoro:
            order = [t for t in canonical_opp_order(n) if opp[t] > 0]
            j = rng.randint(0, min(rs.bonus, len(order)))
            picks = sorted(rng.sample(range(len(order)), j))
            for i in picks:
                opp[order[i]] = 0
            tok += "".join("x" + hole_name(rs, op, order[i]) for i in picks)
        else:
            need = min(cap, sum(opp))
            taken = {}
            for _ in range(need):
                cands = [t for t in range(m) if opp[t] > 0]
                t = rng.choice(cands)
                opp[t] -= 1
                taken[t] = taken.get(t, 0) + 1
            tok += "".join("x" + hole_name(rs, op, t) + (":%d" % taken[t] if taken[t] > 1 else "")
                           for t in canonical_opp_order(n) if t in taken)
    return tok, Position(rs, _join(me, mine, opp), op)


def play(pos, token):
    for tok, child in legal_turns(pos):
        if tok == token:
            return child
    raise ValueError("illegal turn %r in %s" % (token, pos))
