"""The plugin registry's entry points, scanned once and kept (core/plugins.entry_points).

A kept listing is used only while everything the scan read is unchanged: a
distribution installed, changed or removed on sys.path is found by the next
run, and the registry holds what pluggy's own entry-point loading would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

from citeledger.core import hookspecs, plugins

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "tests" / "fixtures" / "real" / "stream" / "express-res-send.jsonl"

# A third-party channel module: it credits nothing, under its own name.
CHANNEL = '''
import attrs
from citeledger.core import Finding, hookimpl


class Quiet:
    name = "{name}"

    @attrs.frozen
    class Options:
        pass

    def __init__(self, options):
        self.options = options

    def judge(self, answer, envelope):
        return {{path: Finding(self.name, False, None, "quiet") for path in envelope.paths}}


@hookimpl
def citeledger_register_channels(register):
    register(Quiet)
'''


def install(site: Path, dist: str, module: str, channel: str) -> Path:
    """A distribution `dist` on `site` whose entry point names channel module `module`."""
    (site / f"{module}.py").write_text(CHANNEL.format(name=channel))
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[citeledger.channels]\n{channel} = {module}\n")
    return info


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "citeledger"


def listings(home: Path) -> list[Path]:
    return sorted(home.glob("entry-points-*")) if home.is_dir() else []


def test_a_kept_listing_is_read_without_scanning(cache_home, monkeypatch):
    first = plugins.entry_points()
    assert ("citeledger.channels", "symbol", "citeledger.channels.symbol", "") in first
    assert len(listings(cache_home)) == 1

    def no_scan():
        raise AssertionError("scanned although a listing is kept")

    monkeypatch.setattr(plugins, "_scan", no_scan)
    assert plugins.entry_points() == first


def test_the_listing_is_what_importlib_metadata_finds(cache_home):
    from importlib import metadata

    expected = [(ep.group, ep.name, ep.module, ep.attr or "") for dist in metadata.distributions()
                for ep in dist.entry_points if ep.group in plugins.GROUPS]
    assert plugins.entry_points() == expected  # scanned
    assert plugins.entry_points() == expected  # kept


def test_a_distribution_installed_changed_or_removed_later_is_seen(cache_home, tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    names = lambda: {(name, module) for group, name, module, _ in plugins.entry_points()  # noqa: E731
                     if group == "citeledger.channels"}
    before = names()
    assert ("quiet", "quiet_channel") not in before

    info = install(site, "quiet_dist", "quiet_channel", "quiet")
    assert names() == before | {("quiet", "quiet_channel")}

    (info / "entry_points.txt").write_text("[citeledger.channels]\nquiet = other_module\n")
    assert names() == before | {("quiet", "other_module")}

    for f in info.iterdir():
        f.unlink()
    info.rmdir()
    assert names() == before


@pytest.mark.parametrize("content", [b"", b"garbage\n", b"citeledger entry points 1\nnot\ta\tlisting\n", None])
def test_a_damaged_listing_is_scanned_again(cache_home, monkeypatch, content):
    expected = plugins.entry_points()
    [path] = listings(cache_home)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if content is None else content)  # None: torn in half
    scanned = []
    real_scan = plugins._scan
    monkeypatch.setattr(plugins, "_scan", lambda: scanned.append(1) or real_scan())
    assert plugins.entry_points() == expected
    assert scanned == [1]
    assert path.read_bytes() == data  # rewritten whole


def test_the_registry_holds_what_pluggy_would_load(cache_home, tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    install(site, "quiet_dist", "quiet_channel", "quiet")
    # A second distribution registering a name already taken: pluggy keeps the first found.
    install(site, "shadow_dist", "shadow_channel", "symbol")

    reference = pluggy.PluginManager("citeledger")
    reference.add_hookspecs(hookspecs)
    for group in plugins.GROUPS:
        reference.load_setuptools_entrypoints(group)
    expected = {reference.get_name(p): p for p in reference.get_plugins()}

    plugins.manager.cache_clear()
    try:
        for _ in range(2):  # scanned, then kept
            plugins.manager.cache_clear()
            pm = plugins.manager()
            assert {pm.get_name(p): p for p in pm.get_plugins()} == expected
        assert pm.get_plugin("quiet").__name__ == "quiet_channel"
        assert pm.get_plugin("symbol") is expected["symbol"]
    finally:
        plugins.manager.cache_clear()
        sys.modules.pop("quiet_channel", None)
        sys.modules.pop("shadow_channel", None)


def test_a_plugin_installed_after_a_run_is_used_by_the_next(tmp_path):
    """End to end, as a user installs a plugin between two runs of the command."""
    site = tmp_path / "site"
    site.mkdir()
    rules = tmp_path / "quiet.yaml"
    rules.write_text("extends: default\nchannels:\n  rank: [path, quiet]\n  quiet: {}\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "citeledger.cli", "score", "--ruleset", str(rules), "--json", str(RUN)]

    before = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert before.returncode == 2 and "quiet" in before.stderr, before.stderr
    assert listings(tmp_path / "cache" / "citeledger")  # the listing without it was kept

    install(site, "quiet_dist", "quiet_channel", "quiet")
    after = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["channels"] == ["path", "quiet"]
