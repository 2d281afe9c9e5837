"""``bobing read-dice PHOTO… [--json]``: the contract the acceptance checks use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.clitools import run
from tests.vision.photos import jpeg

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "dice-photos"


def test_human_line_per_photo(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    photo = str(FIXTURES / "valid_50.jpg")
    code, out, err = run(capsys, monkeypatch, "read-dice", photo, photo)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{photo}: 4 dice: ")
    assert sorted(lines[0].split(": ")[2].split(" — ")[0].split()) == ["2", "3", "5", "6"]
    assert "4 dice seen" in lines[0]


def test_chinese_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOBING_LANG")
    code, out, _ = run(capsys, monkeypatch, "read-dice", str(FIXTURES / "valid_3.jpg"))
    assert code == 0
    assert "2 颗骰子：1 1" in out


def test_json_contract_keeps_order_and_paths_as_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(FIXTURES)
    empty_table = tmp_path / "table.jpg"
    empty_table.write_bytes(jpeg())
    code, out, err = run(
        capsys,
        monkeypatch,
        "read-dice",
        "valid_50.jpg",
        str(empty_table),
        "./valid_3.jpg",
        "--json",
    )
    assert code == 0, err  # a photo with no dice was still read
    data = json.loads(out)
    assert [p["file"] for p in data["photos"]] == [
        "valid_50.jpg",
        str(empty_table),
        "./valid_3.jpg",
    ]
    first, table, third = data["photos"]
    assert sorted(d["face"] for d in first["dice"]) == [2, 3, 5, 6]
    assert table["dice"] == [] and "dice_seen:0" in table["warnings"]
    assert [d["face"] for d in third["dice"]] == [1, 1]
    for photo in data["photos"]:
        assert set(photo) == {"file", "dice", "warnings"}
        for die in photo["dice"]:
            assert set(die) == {"face", "box", "confidence"}
            x, y, w, h = die["box"]
            assert 0 <= x < 640 and 0 <= y < 480 and w > 0 and h > 0
            assert 0 <= die["confidence"] <= 1


def test_an_unreadable_photo_is_an_error_for_that_photo_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo")
    missing = tmp_path / "missing.jpg"
    good = str(FIXTURES / "valid_3.jpg")
    code, out, err = run(capsys, monkeypatch, "read-dice", str(text), good, str(missing))
    assert code == 1
    assert out.count("\n") == 1 and out.startswith(good)  # the good photo is still read
    assert f"{text}: the file is not a photo" in err
    assert f"{missing}: cannot read photo" in err and "No such file" in err
    assert "Traceback" not in err
    code, out, err = run(capsys, monkeypatch, "read-dice", "--json", str(text), good)
    assert code == 1
    photos = json.loads(out)["photos"]
    assert [p["file"] for p in photos] == [str(text), good]
    assert photos[0]["error"] == "photo_not_image" and photos[0]["dice"] == []


def test_help_says_what_it_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "read-dice", "--help")
    assert code == 0
    assert "read-dice [OPTIONS]" in out and "PHOTO" in out and "--json" in out
    # The help is in the language of the import (zh-Hans by default).
    assert "退出码为0" in "".join(out.split())
