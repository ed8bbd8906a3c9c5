"""Draws the kernelspec logos (a pipeline of three passes, the middle one highlighted) as
PNG files at 32x32 and 64x64, and the same picture as SVG. Run it to regenerate them:
python3 make_logos.py (no dependencies beyond the standard library)."""
import struct
import zlib

BG = (30, 41, 59)
BAR = (148, 163, 184)
HOT = (249, 115, 22)

# Shapes in a 64-unit square: (x0, y0, x1, y1, colour).
SHAPES = [
    (10, 12, 54, 22, BAR),
    (10, 27, 54, 37, HOT),
    (10, 42, 54, 52, BAR),
]


def pixel(x, y):
    for x0, y0, x1, y1, c in SHAPES:
        if x0 <= x < x1 and y0 <= y < y1:
            return c
    return BG


def png(size):
    scale = 64 / size
    rows = b""
    for j in range(size):
        row = b"\x00"
        for i in range(size):
            r, g, b = pixel((i + 0.5) * scale, (j + 0.5) * scale)
            row += bytes((r, g, b))
        rows += row

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def svg():
    rect = lambda x0, y0, x1, y1, c: (
        f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="2" '
        f'fill="rgb{c}"/>')
    body = "".join(rect(*s) for s in SHAPES)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">'
            f'<rect width="64" height="64" rx="8" fill="rgb{BG}"/>{body}</svg>\n')


for n in (32, 64):
    with open(f"logo-{n}x{n}.png", "wb") as f:
        f.write(png(n))
with open("logo-svg.svg", "w") as f:
    f.write(svg())
