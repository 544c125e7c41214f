#!/usr/bin/env python3
"""Draws the web app's PNG icons (the design of assets/img/icon.svg) with the standard
library only: `python3 scripts/make-icons.py` writes assets/img/icon-192.png,
icon-512.png and icon-maskable-512.png. The PNGs are checked in; rerun after a change."""
import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "crates" / "matombo-web" / "assets" / "img"
WOOD, HOLE, STONE, BG = (0x9A, 0x66, 0x34), (0x4A, 0x2C, 0x14), (0xF3, 0xEA, 0xD8), (0xF7, 0xF1, 0xE6)
HOLES = [(16, 22), (32, 22), (48, 22), (16, 42), (32, 42), (48, 42)]
STONES = [(30, 20), (34, 24), (14, 42), (18, 42), (48, 42)]


def colour_at(x, y, maskable):
    """The colour of the 64x64 design at (x, y); None is transparent."""
    if maskable:
        # A full-bleed background, the board shrunk into the safe zone (the middle 80%).
        x, y = (x - 32) / 0.72 + 32, (y - 32) / 0.72 + 32
    colour = BG if maskable else None
    # The board: a rounded rectangle (2, 8)-(62, 56), radius 12.
    cx, cy = min(max(x, 14), 50), min(max(y, 20), 44)
    if 2 <= x <= 62 and 8 <= y <= 56 and (x - cx) ** 2 + (y - cy) ** 2 <= 144:
        colour = WOOD
    for hx, hy in HOLES:
        if (x - hx) ** 2 + (y - hy) ** 2 <= 49:
            colour = HOLE
    for sx, sy in STONES:
        if (x - sx) ** 2 + (y - sy) ** 2 <= 2.6**2:
            colour = STONE
    return colour


def png(size, maskable):
    """RGBA PNG bytes, each pixel averaged over 4x4 samples."""
    rows = []
    ss = 4
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    c = colour_at((px + (sx + 0.5) / ss) * 64 / size, (py + (sy + 0.5) / ss) * 64 / size, maskable)
                    if c:
                        acc[0] += c[0]
                        acc[1] += c[1]
                        acc[2] += c[2]
                        acc[3] += 1
            n = acc[3]
            row += bytes([acc[0] // n, acc[1] // n, acc[2] // n, 255 * n // (ss * ss)] if n else [0, 0, 0, 0])
        rows.append(bytes(row))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False), ("icon-maskable-512.png", 512, True)]:
    (OUT / name).write_bytes(png(size, maskable))
    print(OUT / name)
