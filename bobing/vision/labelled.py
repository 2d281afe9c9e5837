"""Labelled photos (YOLO-style ``.txt`` beside each ``.jpg``) and the reader's scores on them.

A label line is ``CLASS XC YC W H``: ``CLASS`` 0–5 is the top face 1–6, the box (centre and
size as fractions of the photo) is drawn around the top face's pips. Used by the training
script, the accuracy tests and ``benchmarks/bench_vision.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bobing.vision.reader import Reading


@dataclass(frozen=True)
class Label:
    """One labelled die: its top face and its box in the photo's pixels."""

    face: int
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Photo:
    """A labelled photo on disk."""

    path: Path
    labels: tuple[Label, ...]

    @property
    def faces(self) -> Counter[int]:
        """The labelled faces as a multiset."""
        return Counter(label.face for label in self.labels)


def load_labels(text: str, width: int, height: int) -> tuple[Label, ...]:
    """The labels of one ``.txt`` file for a photo of ``width`` × ``height`` pixels."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        cls = int(parts[0])
        xc, yc, w, h = (float(p) for p in parts[1:])
        box = ((xc - w / 2) * width, (yc - h / 2) * height, w * width, h * height)
        out.append(Label(cls + 1, box))
    return tuple(out)


def photos(folder: Path) -> list[Photo]:
    """Every ``*.jpg`` of ``folder`` that has its ``.txt`` labels, in name order."""
    from PIL import Image

    out = []
    for path in sorted(folder.glob("*.jpg"), key=lambda p: (len(p.stem), p.stem)):
        txt = path.with_suffix(".txt")
        if not txt.exists():
            continue
        with Image.open(path) as image:
            width, height = image.size
        out.append(Photo(path, load_labels(txt.read_text("utf-8"), width, height)))
    return out


@dataclass
class Score:
    """Photo-exact rate, die-level F1 (multiset overlap) and the confusion of faces."""

    photos: int = 0
    exact: int = 0
    true_positive: int = 0
    read: int = 0
    labelled: int = 0
    confusion: Counter[tuple[int, int]] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def add(self, name: str, photo: Photo, reading: Reading) -> None:
        """Count one photo's reading against its labels."""
        got = Counter(reading.faces)
        want = photo.faces
        self.photos += 1
        self.exact += got == want
        self.true_positive += sum((got & want).values())
        self.read += sum(got.values())
        self.labelled += sum(want.values())
        for label, die in _pairs(photo.labels, reading):
            self.confusion[(label, die)] += 1
        if got != want:
            self.misses.append(
                f"{name}: read {sorted(got.elements())}, labelled {sorted(want.elements())}"
            )

    @property
    def photo_exact(self) -> float:
        """The share of photos whose every die was read right (and nothing more)."""
        return self.exact / max(1, self.photos)

    @property
    def f1(self) -> float:
        """Die-level F1 over the faces' multisets."""
        precision = self.true_positive / max(1, self.read)
        recall = self.true_positive / max(1, self.labelled)
        return 2 * precision * recall / max(1e-9, precision + recall)

    def confusion_table(self) -> str:
        """Rows: labelled face (0 = none labelled there); columns: face read (0 = missed)."""
        head = "label\\read  " + "  ".join(f"{c:>3}" for c in range(7))
        lines = [head]
        for row in range(7):
            cells = "  ".join(f"{self.confusion[(row, c)]:>3}" for c in range(7))
            lines.append(f"{row:>10}  {cells}")
        return "\n".join(lines)


def _pairs(labels: Sequence[Label], reading: Reading) -> Iterable[tuple[int, int]]:
    # A read die and a label are paired when their boxes' centres are within the larger box.
    free = list(reading.dice)
    for label in labels:
        x, y, w, h = label.box
        cx, cy = x + w / 2, y + h / 2
        best = None
        for die in free:
            dx, dy, dw, dh = die.box
            ex, ey = dx + dw / 2, dy + dh / 2
            reach = max(w, h, dw, dh) * 0.75 + 4
            if abs(cx - ex) <= reach and abs(cy - ey) <= reach:
                best = die
                break
        if best is None:
            yield label.face, 0
        else:
            free.remove(best)
            yield label.face, best.face
    for die in free:
        yield 0, die.face
