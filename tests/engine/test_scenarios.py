"""Every rule scenario under tests/scenarios passes, and the runner reports as the spec says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.scenarios import Scenario, load_scenarios, main, run_scenario

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
ALL = load_scenarios([SCENARIOS])


@pytest.mark.parametrize(
    "scenario", ALL, ids=[f"{s.path.parent.name}/{s.path.stem}#{s.index}" for s in ALL]
)
def test_scenario(scenario: Scenario) -> None:
    assert run_scenario(scenario.data) == []


def test_every_scenario_names_its_source() -> None:
    assert all(s.data.get("source") for s in ALL)


def test_runner_reports_failures_and_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        "name": "a two resets the pile",
        "source": "test",
        "rules": "classic",
        "state": {
            "turn": 0,
            "pile": ["KC"],
            "hands": [["2C", "5C"], ["3D"]],
            "face_down": [[], []],
        },
        "steps": [{"player": 0, "play": ["2C"], "expect": {"pile_top": "2C", "turn": 1}}],
    }
    bad = dict(good, name="wrong on purpose")
    bad["steps"] = [{"player": 0, "play": ["5C"], "expect": {"turn": 1}}]
    (tmp_path / "cases.json").write_text(json.dumps([good, bad]))
    assert main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 1 failed"
    assert any("wrong on purpose" in line and "cannot_beat" in line for line in out)
    (tmp_path / "cases.json").write_text(json.dumps(good))
    assert main([str(tmp_path / "cases.json")]) == 0
