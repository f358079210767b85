"""The games catalogue and rulebooks."""

from __future__ import annotations

from fastapi.testclient import TestClient

from engine.registry import all_games


def test_games_lists_every_registered_game_with_modes_and_bots(client: TestClient) -> None:
    response = client.get("/v1/games")
    assert response.status_code == 200
    games = {game["name"]: game for game in response.json()["games"]}
    assert set(games) == set(all_games())
    for name, game in games.items():
        info = all_games()[name].info
        assert [mode["name"] for mode in game["modes"]] == [mode.name for mode in info.modes]
        assert {v["name"] for v in game["variants"]} == set(info.variants)
        assert "random" in game["house_bots"]
        assert game["rulebook_url"] == f"/v1/games/{name}/rulebook"


def test_rulebook_is_markdown_and_unknown_games_are_problems(client: TestClient) -> None:
    for name in all_games():
        response = client.get(f"/v1/games/{name}/rulebook")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/markdown")
        assert response.text.lstrip().startswith("#")
    missing = client.get("/v1/games/chess/rulebook")
    assert missing.status_code == 404 and missing.json()["code"] == "game/not_found"
    other_language = client.get(f"/v1/games/{next(iter(all_games()))}/rulebook", params={"lang": "xx"})
    assert other_language.status_code == 404
    assert other_language.json()["code"] == "rulebook/not_found"
    bad = client.get(f"/v1/games/{next(iter(all_games()))}/rulebook", params={"lang": "english"})
    assert bad.status_code == 422 and bad.json()["code"] == "request/invalid"
