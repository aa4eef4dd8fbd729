"""Which Chromium twins browse with: the headless shell where it is installed (less CPU a live step), the
full browser where it is not, and a clear refusal where neither is."""

from __future__ import annotations

import pytest

from agent.browser import chromium


def _executable(folder, name: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_the_headless_shell_is_chosen_over_the_full_browser(tmp_path, monkeypatch):
    monkeypatch.setattr(chromium, "CHROMIUM_PATH", str(tmp_path / "not-configured"))
    _executable(tmp_path, "chromium")
    shell = _executable(tmp_path, "chromium-headless-shell")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert chromium.chromium_path() == shell


def test_the_full_browser_serves_where_the_shell_is_not_installed(tmp_path, monkeypatch):
    monkeypatch.setattr(chromium, "CHROMIUM_PATH", str(tmp_path / "not-configured"))
    full = _executable(tmp_path, "chromium")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert chromium.chromium_path() == full


def test_a_configured_binary_wins_and_none_at_all_is_refused_with_how_to_install(tmp_path, monkeypatch):
    configured = _executable(tmp_path, "my-chrome")
    _executable(tmp_path, "chromium-headless-shell")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(chromium, "CHROMIUM_PATH", configured)
    assert chromium.chromium_path() == configured

    monkeypatch.setattr(chromium, "CHROMIUM_PATH", str(tmp_path / "gone"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(chromium.ChromiumMissing, match="scripts/setup --browser"):
        chromium.chromium_path()


def test_this_machine_browses_with_the_headless_shell_the_setup_installs():
    assert chromium.chromium_path().endswith("chromium-headless-shell")
