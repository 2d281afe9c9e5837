"""Synthetic photos of 博饼 dice in a porcelain bowl, with their true faces (tests, benchmarks).

No photo of 博饼 dice (1 and 4 pips red, the 1 a large red dot) in a white bowl with a blue
rim is in the repository, so the project draws them: six dice at random places and angles in
the bowl, each with a sliver of a side face showing (as from a phone held at a slant), under
random light, blur and sensor noise, encoded as JPEG. A seeded ``random.Random`` makes every
photo reproducible.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from bobing.vision.photo import Pixels

PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}
"""Where a face's pips are, as fractions of the face (x, y)."""
RED = (200, 28, 40)
BLACK = (25, 25, 30)


@dataclass(frozen=True)
class Rendered:
    """A synthetic photo: its JPEG bytes, its true faces and where each die's top face is."""

    jpeg: bytes
    faces: tuple[int, ...]
    centres: tuple[tuple[float, float], ...]


def _pip_colour(face: int) -> tuple[int, int, int]:
    return RED if face in (1, 4) else BLACK


def render_bowl(
    rng: random.Random, *, faces: tuple[int, ...] | None = None, size: tuple[int, int] = (1280, 960)
) -> Rendered:
    """Six 博饼 dice in a blue-rimmed white bowl on a table, photographed from above."""
    width, height = size
    faces = faces or tuple(rng.randint(1, 6) for _ in range(6))
    image = np.zeros((height, width, 3), np.float32)
    table = np.array([rng.uniform(120, 170), rng.uniform(80, 110), rng.uniform(50, 70)])
    image[:] = table
    cx, cy = width / 2 + rng.uniform(-30, 30), height / 2 + rng.uniform(-20, 20)
    radius = min(width, height) * rng.uniform(0.46, 0.49)
    yy, xx = np.mgrid[0:height, 0:width]
    dist = np.hypot(xx - cx, yy - cy) / radius
    inside = dist < 1
    # The bowl: white porcelain, darker towards the wall, a blue band near the rim.
    shade = 235 - 40 * np.clip(dist, 0, 1) ** 3
    for c in range(3):
        image[..., c] = np.where(inside, shade, image[..., c])
    rim = (dist > 0.9) & (dist < 0.97)
    image[rim] = (40, 70, 170)
    thin = (dist > 0.85) & (dist < 0.865)
    image[thin] = (60, 90, 190)
    die = radius * rng.uniform(0.17, 0.2)
    placed: list[tuple[float, float]] = []
    while len(placed) < 6:
        angle = rng.uniform(0, 2 * math.pi)
        r = math.sqrt(rng.uniform(0, 1)) * (radius * 0.8 - die)
        x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
        if all(math.hypot(x - px, y - py) > die * 1.6 for px, py in placed):
            placed.append((x, y))
    tilt = (rng.uniform(-0.25, 0.25), rng.uniform(0.05, 0.3))
    for face, (x, y) in zip(faces, placed, strict=True):
        _draw_die(image, rng, face, x, y, die, rng.uniform(0, math.pi / 2), tilt)
    light = rng.uniform(0.7, 1.1)
    gradient = 1 + rng.uniform(-0.15, 0.15) * (xx - width / 2) / width
    image = image * light * gradient[..., None]
    blur = rng.choice([0, 0, 1, 2, 3])
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    image += np.random.default_rng(rng.randrange(2**32)).normal(0, 4, image.shape)
    pixels: Pixels = np.clip(image, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(
        ".jpg", cv2.cvtColor(pixels, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 88]
    )
    assert ok
    return Rendered(jpeg.tobytes(), faces, tuple(placed))


def _draw_die(
    image: np.ndarray,
    rng: random.Random,
    face: int,
    x: float,
    y: float,
    side: float,
    angle: float,
    tilt: tuple[float, float],
) -> None:
    c, s = math.cos(angle), math.sin(angle)

    def to_image(u: float, v: float) -> tuple[float, float]:
        # (u, v) in the face's own square, 0–1, to the photo's pixels.
        du, dv = (u - 0.5) * side, (v - 0.5) * side
        return x + du * c - dv * s, y + du * s + dv * c

    corners = np.array([to_image(u, v) for u, v in ((0, 0), (1, 0), (1, 1), (0, 1))])
    offset = np.array([tilt[0] * side, tilt[1] * side])
    # The side face (and its shadow) below the top face, as seen at a slant.
    shadow = corners + offset * 1.6
    cv2.fillConvexPoly(image, np.round(shadow).astype(np.int32), (150, 150, 150), cv2.LINE_AA)
    body = np.vstack([corners, corners + offset])
    hull = cv2.convexHull(np.round(body).astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(image, hull, (200, 200, 195), cv2.LINE_AA)
    top = rng.uniform(238, 250)
    cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), (top, top, top - 4), cv2.LINE_AA)
    for u, v in PIPS[face]:
        px, py = to_image(u, v)
        r = side * (0.17 if face == 1 else 0.1)
        cv2.circle(
            image,
            (round(px * 8), round(py * 8)),
            round(r * 8),
            _pip_colour(face),
            -1,
            cv2.LINE_AA,
            shift=3,
        )
