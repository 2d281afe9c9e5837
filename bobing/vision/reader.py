"""Reading the top faces: pips are found, the top face's pips kept, then grouped into dice.

1. **Pips.** A pip is a small dark (or red) round spot on a bright face: a morphological
   black-hat of the photo's darkest channel (red pips are dark in green and blue) finds spots
   smaller than the kernel; each spot's shape, contrast and the brightness and colour of the
   ring around it are its features.
2. **Top-face pips.** A small logistic model (``pip_model.json``, trained from labelled photos
   by ``python -m bobing.vision.train``) scores each spot: side faces' pips are foreshortened,
   fainter and smaller than the top face's; cables, wood grain and shadows have no white ring.
3. **Dice.** Top-face pips closer than a few pip radii and of like size are one die
   (single linkage); a group of more than six is dice touching, split in space.

The face is the number of pips; the confidence is the pips' mean score, lowered for a group
whose pips are unlike in size. See docs/vision.md for the accuracy and where it fails.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

import cv2
import numpy as np
import numpy.typing as npt

from bobing.vision.limits import UNSURE
from bobing.vision.photo import Pixels, decode_photo

Floats = npt.NDArray[np.float64]

KERNEL = 31
"""The black-hat's kernel at the working scale: wider than the largest pip (a 博饼 1)."""
MIN_CONTRAST = 35
"""A spot's darkest-channel contrast (0–255) to be considered a pip at all."""
LINK = 3.6
"""Two pips are one die's when their distance is under LINK × the sum of their radii."""
LONE = 5.0
"""A lone pip this close (× the sum of radii) to another die's pip is that die's side face."""
LONE_SCORE = 0.9
"""A lone pip (a 1) needs this score: a stray spot is more often alone than in a pattern."""
BLURRED = 10.0
"""Below this variance of the Laplacian (at the working scale) a photo is called blurred: the
sharpest webcam photos of the shared set score 50–230, the softest 10–12."""
DARK = 60
"""Below this mean grey level (0–255) a photo is called too dark."""
FEATURES = (
    "contrast",
    "relative_contrast",
    "log_area_ratio",
    "roundness",
    "fill",
    "ring_light",
    "ring_relative_light",
    "ring_saturation",
    "ring_spread",
    "ring_darkest",
    "neighbour_size_ratio",
    "neighbours",
)
"""The features of one spot, in the model's order."""


@dataclass(frozen=True)
class Die:
    """One die read: its top face, the face's box ``(x, y, w, h)`` in the photo's pixels."""

    face: int
    box: tuple[int, int, int, int]
    confidence: float

    @property
    def unsure(self) -> bool:
        """Whether the reader is unsure of this die (the pad marks it)."""
        return self.confidence < UNSURE


@dataclass(frozen=True)
class Reading:
    """What one photo showed: its dice (left to right, top to bottom) and warnings."""

    dice: tuple[Die, ...]
    warnings: tuple[str, ...]
    width: int
    height: int

    @property
    def faces(self) -> tuple[int, ...]:
        """The faces read, in the dice's order."""
        return tuple(die.face for die in self.dice)

    def as_json(self) -> dict[str, object]:
        """The reading as the CLI's ``--json`` and the table route answer it."""
        return {
            "dice": [
                {"face": d.face, "box": list(d.box), "confidence": d.confidence} for d in self.dice
            ],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Spot:
    """A candidate pip at the working scale: centre, radius, box and features."""

    x: float
    y: float
    radius: float
    box: tuple[int, int, int, int]
    features: tuple[float, ...]


@cache
def _model() -> tuple[Floats, Floats, Floats, float]:
    text = resources.files("bobing.vision").joinpath("pip_model.json").read_text("utf-8")
    model = json.loads(text)
    if tuple(model["features"]) != FEATURES:
        raise RuntimeError("pip_model.json was trained on other features: retrain it")
    return (
        np.array(model["mean"], dtype=np.float64),
        np.array(model["scale"], dtype=np.float64),
        np.array(model["weights"], dtype=np.float64),
        float(model["bias"]),
    )


def spots(rgb: Pixels) -> list[Spot]:
    """Every dark or red spot that might be a pip, with its features."""
    darkest = rgb.min(axis=2)
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    saturation = hsv[..., 1]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (KERNEL, KERNEL))
    blackhat = cv2.morphologyEx(darkest, cv2.MORPH_BLACKHAT, kernel)
    mask = (blackhat > MIN_CONTRAST).astype(np.uint8)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    height, width = darkest.shape
    # Brightness relative to the whitest of the photo (a die's face), not to its background.
    light = float(np.quantile(darkest, 0.99))
    raw: list[tuple[float, float, float, tuple[int, int, int, int], list[float]]] = []
    for j in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[j])
        if area < 5 or w > KERNEL or h > KERNEL:
            continue
        radius = math.sqrt(area / math.pi)
        pad = max(3, round(radius * 1.2))
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(width, x + w + pad), min(height, y + h + pad)
        blob = (labels[y0:y1, x0:x1] == j).astype(np.uint8)
        grown = cv2.dilate(blob, np.ones((3, 3), np.uint8), iterations=1)
        ring = cv2.dilate(blob, np.ones((3, 3), np.uint8), iterations=pad) > grown
        ring &= mask[y0:y1, x0:x1] == 0
        if not ring.any():
            continue
        ring_values = darkest[y0:y1, x0:x1][ring].astype(np.float64)
        moments = cv2.moments(blob, binaryImage=True)
        mu20, mu02, mu11 = moments["mu20"], moments["mu02"], moments["mu11"]
        spread = math.sqrt(max(0.0, (mu20 - mu02) ** 2 + 4 * mu11**2))
        major = (mu20 + mu02 + spread) / 2
        minor = (mu20 + mu02 - spread) / 2
        roundness = math.sqrt(max(minor, 0.0) / major) if major > 0 else 0.0
        ellipse = 4 * math.pi * math.sqrt(max(major, 1e-9) * max(minor, 1e-9)) / max(area, 1)
        contrast = float(blackhat[y0:y1, x0:x1][blob.astype(bool)].mean())
        ring_light = float(np.median(ring_values))
        features = [
            contrast / 255,
            0.0,
            math.log(area),
            roundness,
            min(2.0, area / max(ellipse, 1e-9)),
            ring_light / 255,
            (ring_light - light) / 255,
            float(saturation[y0:y1, x0:x1][ring].mean()) / 255,
            float(ring_values.std()) / 255,
            (float(np.quantile(ring_values, 0.1)) - light) / 255,
            0.0,
            0.0,
        ]
        raw.append((centres[j][0], centres[j][1], radius, (x, y, w, h), features))
    if not raw:
        return []
    xy = np.array([(r[0], r[1]) for r in raw])
    radii = np.array([r[2] for r in raw])
    contrasts = np.array([r[4][0] for r in raw])
    strong = contrasts >= np.quantile(contrasts, 0.5)
    typical_area = float(np.median(np.log(radii[strong] ** 2 * math.pi)))
    top_contrast = float(np.quantile(contrasts, 0.9))
    strong_enough = contrasts >= 0.5 * top_contrast
    out = []
    for cx, cy, radius, box, features in raw:
        distance = np.hypot(xy[:, 0] - cx, xy[:, 1] - cy)
        # Neighbours are strong spots only: a side face's faint slivers beside a 博饼 die's
        # large 1 must not make it look like an odd one out.
        near = (distance < LINK * (radii + radius)) & (distance > 0) & strong_enough
        features[1] = features[0] / max(top_contrast, 1e-9)
        features[2] -= typical_area
        if near.any():
            features[10] = math.log(radius / float(np.median(radii[near])))
        features[11] = min(6.0, float(near.sum())) / 6
        out.append(Spot(cx, cy, radius, box, tuple(features)))
    return out


def pip_scores(found: list[Spot]) -> Floats:
    """Each spot's probability of being a top-face pip (the trained logistic model)."""
    if not found:
        return np.zeros(0)
    mean, scale, weights, bias = _model()
    matrix = (np.array([s.features for s in found]) - mean) / scale
    return 1 / (1 + np.exp(-(matrix @ weights + bias)))


def _groups(pips: list[Spot]) -> list[list[int]]:
    parent = list(range(len(pips)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(pips):
        for j in range(i + 1, len(pips)):
            b = pips[j]
            ratio = max(a.radius, b.radius) / max(min(a.radius, b.radius), 1e-9)
            if ratio < 1.8 and math.hypot(a.x - b.x, a.y - b.y) < LINK * (a.radius + b.radius):
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(pips)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _side_face(group: list[int], pips: list[Spot], scores: Floats, groups: list[list[int]]) -> bool:
    # A group beside a surer group is that die's side face, seen at an angle; a lone pip (a 1)
    # must be sure as well: a stray spot is more often alone than in a die's pattern.
    mean = float(np.mean(scores[group]))
    if len(group) == 1 and mean < LONE_SCORE:
        return True
    for other in groups:
        if other is group or float(np.mean(scores[other])) <= mean:
            continue
        if len(group) > 1 and mean >= LONE_SCORE:
            continue
        for i in group:
            a = pips[i]
            for j in other:
                b = pips[j]
                if math.hypot(a.x - b.x, a.y - b.y) < LONE * (a.radius + b.radius):
                    return True
    return False


def _split(points: Floats, parts: int) -> list[list[int]]:
    # Dice touching: k-means in space, started from points far apart (deterministic).
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    cv2.setRNGSeed(31)
    _, labels, _ = cv2.kmeans(
        points.astype(np.float32), parts, None, criteria, 3, cv2.KMEANS_PP_CENTERS
    )
    return [list(np.flatnonzero(labels.ravel() == k)) for k in range(parts)]


def read_image(rgb: Pixels, width: int | None = None, height: int | None = None) -> Reading:
    """Read the dice of an RGB image; boxes are scaled to ``width`` × ``height`` if given."""
    work_h, work_w = rgb.shape[:2]
    width = work_w if width is None else width
    height = work_h if height is None else height
    sx, sy = width / work_w, height / work_h
    found = spots(rgb)
    scores = pip_scores(found)
    pips = [s for s, p in zip(found, scores, strict=True) if p >= 0.5]
    kept = scores[scores >= 0.5]
    warnings: list[str] = []
    dice: list[Die] = []
    touching = False
    groups = _groups(pips)
    groups = [g for g in groups if not _side_face(g, pips, kept, groups)]
    for group in groups:
        parts = [group]
        if len(group) == 7:
            # One stray spot beside a 6 (two dice showing 1 and 6 touching are rarer).
            parts = [sorted(group, key=lambda i: -kept[i])[:6]]
        elif len(group) > 7:
            touching = True
            points = np.array([(pips[i].x, pips[i].y) for i in group])
            parts = [[group[k] for k in part] for part in _split(points, math.ceil(len(group) / 6))]
        for part in parts:
            if not part:
                continue
            members = [pips[i] for i in part]
            radii = np.array([m.radius for m in members])
            confidence = float(np.mean(kept[part]))
            if len(part) > 1:
                confidence *= max(0.0, 1 - float(radii.std() / radii.mean()))
            if len(part) > 6:
                confidence *= 0.5
            x0 = min(m.box[0] for m in members)
            y0 = min(m.box[1] for m in members)
            x1 = max(m.box[0] + m.box[2] for m in members)
            y1 = max(m.box[1] + m.box[3] for m in members)
            box = (
                round((x0 - 1) * sx),
                round((y0 - 1) * sy),
                round((x1 - x0 + 2) * sx),
                round((y1 - y0 + 2) * sy),
            )
            dice.append(Die(min(len(part), 6), box, round(confidence, 3)))
    dice.sort(key=lambda d: (d.box[1] + d.box[3] / 2) // max(1, height // 4) * 1e6 + d.box[0])
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if float(np.mean(gray)) < DARK:
        warnings.append("too_dark")
    if float(cv2.Laplacian(gray, cv2.CV_64F).var()) < BLURRED:
        warnings.append("blurred")
    if touching:
        warnings.append("dice_touching")
    if len(dice) != 6:
        warnings.append(f"dice_seen:{len(dice)}")
    return Reading(tuple(dice), tuple(warnings), width, height)


def read_dice(data: bytes) -> Reading:
    """Read the dice of a photo's bytes (JPEG, PNG or WebP); raises ``PhotoError`` if unreadable."""
    rgb, width, height = decode_photo(data)
    return read_image(rgb, width, height)
