"""Train the top-face pip model from labelled photos: ``python -m bobing.vision.train``.

Every spot the reader finds (:func:`bobing.vision.reader.spots`) is a training example: a
top-face pip when its centre lies in a labelled box, anything else otherwise. The model is an
L2-regularised logistic regression fitted by Newton's method (deterministic: the same photos
give the same weights, to the last digit printed). ``--folds K`` instead estimates accuracy on
unseen photos: each fold's photos are read by a model trained on the other folds only.

    python -m bobing.vision.train --photos ../shared/dice-photos [--out FILE] [--folds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from bobing.vision import reader
from bobing.vision.labelled import Photo, Score, photos
from bobing.vision.photo import decode_photo

MODEL = Path(__file__).with_name("pip_model.json")
PENALTY = 1.0
"""The L2 penalty on the standardised weights."""


def examples(photo: Photo) -> tuple[np.ndarray, np.ndarray]:
    """The features and top-pip targets of one photo's spots."""
    rgb, width, height = decode_photo(photo.path.read_bytes())
    sx = rgb.shape[1] / width
    sy = rgb.shape[0] / height
    found = reader.spots(rgb)
    x = np.array([s.features for s in found], dtype=np.float64).reshape(-1, len(reader.FEATURES))
    y = np.zeros(len(found))
    for i, spot in enumerate(found):
        for label in photo.labels:
            bx, by, bw, bh = label.box
            if (
                bx * sx - 2 <= spot.x <= (bx + bw) * sx + 2
                and by * sy - 2 <= spot.y <= (by + bh) * sy + 2
            ):
                y[i] = 1
    return x, y


def fit(x: np.ndarray, y: np.ndarray) -> dict[str, object]:
    """A logistic model of ``y`` on ``x`` (standardised), as ``pip_model.json`` holds it."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    ridge = PENALTY * np.eye(z.shape[1])
    ridge[-1, -1] = 0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(z @ w)))
        gradient = z.T @ (p - y) + ridge @ w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + ridge
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return {
        "features": list(reader.FEATURES),
        "mean": [round(v, 8) for v in mean.tolist()],
        "scale": [round(v, 8) for v in scale.tolist()],
        "weights": [round(v, 8) for v in w[:-1].tolist()],
        "bias": round(float(w[-1]), 8),
    }


def cross_validate(all_photos: list[Photo], folds: int) -> Score:
    """Accuracy on unseen photos: photo ``i`` is read by a model trained without fold ``i % K``."""
    data = [examples(p) for p in all_photos]
    score = Score()
    for k in range(folds):
        train = [d for i, d in enumerate(data) if i % folds != k]
        model = fit(np.vstack([d[0] for d in train]), np.concatenate([d[1] for d in train]))
        with use_model(model):
            for i, photo in enumerate(all_photos):
                if i % folds == k:
                    score.add(photo.path.name, photo, reader.read_dice(photo.path.read_bytes()))
    return score


class use_model:
    """Read with ``model`` instead of the shipped weights (cross-validation)."""

    def __init__(self, model: dict[str, object]) -> None:
        self.model = model

    def __enter__(self) -> None:
        m = self.model
        self.saved = reader._model
        loaded = (
            np.array(m["mean"]),
            np.array(m["scale"]),
            np.array(m["weights"]),
            float(m["bias"]),  # type: ignore[arg-type]
        )
        reader._model = lambda: loaded  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        reader._model = self.saved


def main(argv: list[str] | None = None) -> int:
    """Train (or cross-validate) from a folder of labelled photos."""
    parser = argparse.ArgumentParser(prog="python -m bobing.vision.train", description=__doc__)
    parser.add_argument("--photos", type=Path, default=Path("../shared/dice-photos"))
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--folds", type=int, default=0, help="cross-validate instead of training")
    args = parser.parse_args(argv)
    found = photos(args.photos)
    if not found:
        print(f"no labelled photos in {args.photos}", file=sys.stderr)
        return 1
    if args.folds:
        score = cross_validate(found, args.folds)
        print(
            f"{args.folds}-fold cross-validation over {score.photos} photos: "
            f"photo-exact {score.photo_exact:.3f}, die F1 {score.f1:.3f}"
        )
        print(score.confusion_table())
        for miss in score.misses:
            print("  " + miss)
        return 0
    data = [examples(p) for p in found]
    model = fit(np.vstack([d[0] for d in data]), np.concatenate([d[1] for d in data]))
    args.out.write_text(json.dumps(model, indent=1) + "\n", "utf-8")
    print(f"trained on {len(found)} photos ({sum(len(d[1]) for d in data)} spots): {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
