"""Summing a sampled bot's stacks by function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.samples import main, read_stacks, shares

STACKS = """\
main;loop;click;render 6
main;loop;click 3
main;loop;recurse;recurse 1
"""


def test_a_function_counts_every_sample_taken_under_it_once() -> None:
    total, under, on_top = shares(read_stacks(STACKS))
    assert total == 10
    assert under["loop"] == 10 and under["click"] == 9 and under["render"] == 6
    # A function on a stack twice counts its sample once.
    assert under["recurse"] == 1
    assert on_top == {"render": 6, "click": 3, "recurse": 1}


def test_the_summary_prints_shares_of_all_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bot.samples"
    path.write_text(STACKS, encoding="utf-8")
    assert main([str(path), "--top", "2"]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert figures == {
        "samples": 10,
        "under": {"main": 100.0, "loop": 100.0},
        "on top": {"render": 60.0, "click": 30.0},
    }


def test_an_empty_file_is_said_to_hold_no_samples(tmp_path: Path) -> None:
    path = tmp_path / "bot.samples"
    path.write_text("", encoding="utf-8")
    assert main([str(path)]) == 1


def test_a_file_that_is_not_there_is_named_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "missing.samples")]) == 2
    said = capsys.readouterr().out
    assert "missing.samples: cannot be read" in said and "Traceback" not in said
