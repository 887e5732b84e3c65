"""The play benchmark runs a small seeded game through the sandbox and reports its figures."""

from __future__ import annotations

import json

import pytest

from bench.harness import KINDS, REPORT_KEYS, classify, percentile, webhook_target
from bench.play import main


def test_a_small_bench_finishes_its_games_and_reports_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--tables", "1", "--humans", "2", "--seed", "1", "--think", "0", "0.005"]
    code = main([*argv, "--quick", "--quiet", "0.3", "--max-seconds", "90"])
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert set(REPORT_KEYS) <= set(figures)
    assert code == 0
    assert figures["games_finished"] == figures["tables"] == 1
    assert figures["human_moves"] > 0
    assert list(figures["calls"]) == list(KINDS)
    assert sum(figures["calls"].values()) == figures["calls_total"]
    # Every interaction is answered by one callback, and nothing failed.
    assert figures["calls"]["callback"] == figures["interactions"]
    assert figures["failures"]["interactions_not_answered"] == 0
    assert figures["failures"]["rest_errors"] == 0
    assert figures["answer_ms"]["p50"] is not None
    assert figures["bot_cpu_ms_per_move"] > 0


def test_calls_are_classified_by_route_and_channel() -> None:
    dm = {7}

    def kind(method: str, route: str, path: str) -> str:
        entry = {"method": method, "route": route, "path": f"/api/v10{path}"}
        return classify(entry, dm)

    messages, message = (
        "/channels/{channel_id}/messages",
        "/channels/{channel_id}/messages/{message_id}",
    )
    callback = "/interactions/{interaction_id}/{interaction_token}/callback"
    webhook = "/webhooks/{application_id}/{interaction_token}/messages/{message_id}"
    assert kind("POST", callback, "/interactions/1/t/callback") == "callback"
    assert kind("PATCH", webhook, "/webhooks/1/t/messages/@original") == "interaction_webhook"
    assert kind("POST", "/users/@me/channels", "/users/@me/channels") == "dm_open"
    assert kind("POST", messages, "/channels/7/messages") == "dm_send"
    assert kind("POST", messages, "/channels/8/messages") == "channel_send"
    assert kind("PATCH", message, "/channels/7/messages/9") == "dm_edit"
    assert kind("PATCH", message, "/channels/8/messages/9") == "channel_edit"
    assert kind("DELETE", message, "/channels/8/messages/9") == "delete"
    assert kind("GET", "/users/@me", "/users/@me") == "other"


def test_interaction_webhooks_are_told_apart_by_their_interactions_channel() -> None:
    entry = {"path": "/api/v10/webhooks/1/tok/messages/@original"}
    assert webhook_target(entry, {7}, {"tok": 7}) == "dm"
    assert webhook_target(entry, {7}, {"tok": 8}) == "channel"
    assert webhook_target(entry, {7}, {}) == "unknown"


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0
    assert percentile([], 0.5) is None
