"""Rulesets are entry points of the group ``duelbot.rulesets`` (issue 24, item 5).

duelbot's own pyproject.toml declares its three there and the registry loads the group.
A plug-in that fails to import, whose object is not a Ruleset, or whose id is already
loaded is refused with one warning naming the entry point, its distribution and why; the
others load. The test doubles are real importlib.metadata objects: ``EntryPoint``s built
directly, and distributions read from a dist-info directory made in a temporary folder.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from importlib.metadata import Distribution, EntryPoint
from pathlib import Path

import pytest

from bot.rules import plugins, registry
from bot.rules.plugins import GROUP

ROOT = Path(__file__).resolve().parents[2]
FENCING_SRC = ROOT / "tests" / "rulesets" / "fencing_package" / "src"

#: Plug-in modules for the doubles: a good ruleset (object, class, factory), an object of
#: another kind, a factory that fails, a ruleset claiming a built-in id, a module that does
#: not import.
TOYS = {
    "toy_plugin_rulesets.py": """
        from duelbot_fencing.ruleset import Fencing

        class Toy(Fencing):
            id = "toy-bout"
            title = "Toy Bout"

        class Other(Fencing):
            id = "other-bout"
            title = "Other Bout"

        class Impostor(Fencing):
            id = "rule-2.14"
            title = "Not Rule 2.14"

        TOY = Toy()
        TOY_AGAIN = Toy()
        NOT_A_RULESET = {"id": "dict-bout"}

        def make_other():
            return Other()

        def broken_factory():
            raise RuntimeError("the table of touches is missing")
    """,
    "toy_plugin_broken.py": """
        import a_module_nobody_installed  # noqa: F401
    """,
}


@pytest.fixture
def toys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, source in TOYS.items():
        (tmp_path / name).write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield tmp_path
    finally:
        for name in TOYS:
            sys.modules.pop(name.removesuffix(".py"), None)


def entry_point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name, value, GROUP)


def dist_info(folder: Path, name: str, version: str, entry_points: dict[str, str]) -> Path:
    """A distribution's metadata as pip installs it: ``name-version.dist-info``."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}", encoding="utf-8")
    return info


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records
        if r.name == plugins.__name__ and r.levelno == logging.WARNING
    ]  # fmt: skip


# -- duelbot's own rulesets --------------------------------------------------------------------


def test_pyproject_declares_the_built_in_rulesets_in_the_group() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    group = declared["project"]["entry-points"][GROUP]
    assert group == {ep.name: ep.value for ep in registry.BUILTIN_ENTRY_POINTS}
    assert set(group) == {ruleset.id for ruleset in registry.builtin()}


def test_the_installed_metadata_declares_them() -> None:
    """The install this runs in (``make install``) carries the group: the registry loads
    the built-in rulesets from it, not from the fallback list."""
    own = {ep.name: ep.value for ep in plugins.installed_entry_points() if plugins.is_own(ep)}
    assert own == {ep.name: ep.value for ep in registry.BUILTIN_ENTRY_POINTS}, (
        "duelbot's installed metadata lacks the duelbot.rulesets entry points: reinstall it "
        "(make install)"
    )


def test_the_built_in_list_stands_in_for_missing_metadata(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=plugins.__name__)
    loaded = plugins.load((), registry.BUILTIN_ENTRY_POINTS)
    assert sorted(loaded.own) == sorted(loaded.rulesets) == sorted(r.id for r in registry.builtin())
    assert all(loaded.rulesets[r.id] is r for r in registry.builtin())
    assert loaded.refused == () and warnings_of(caplog) == []
    assert "using its built-in list" in caplog.text


# -- plug-ins: what loads, what is refused -----------------------------------------------------


def test_an_object_a_class_and_a_factory_load(toys: Path, caplog: pytest.LogCaptureFixture) -> None:
    loaded = plugins.load(
        [
            entry_point("toy-bout", "toy_plugin_rulesets:TOY"),
            entry_point("other-bout", "toy_plugin_rulesets:make_other"),
        ],
        registry.BUILTIN_ENTRY_POINTS,
    )
    assert set(loaded.rulesets) == {"toy-bout", "other-bout", *registry.ids()}
    assert set(loaded.own) == set(registry.ids())  # a plug-in is not built in
    assert type(loaded.rulesets["other-bout"]).__name__ == "Other"
    assert loaded.refused == () and warnings_of(caplog) == []
    by_class = plugins.load([entry_point("toy-bout", "toy_plugin_rulesets:Toy")])
    assert type(by_class.rulesets["toy-bout"]).__name__ == "Toy"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (
            "toy_plugin_broken:RULESET",
            "it failed to import: ModuleNotFoundError: No module named "
            "'a_module_nobody_installed'",
        ),
        (
            "toy_plugin_rulesets:NO_SUCH_NAME",
            "it failed to import: AttributeError:",
        ),
        (
            "toy_plugin_rulesets:NOT_A_RULESET",
            "toy_plugin_rulesets:NOT_A_RULESET is a dict, not a bot.rules.base.Ruleset (nor a "
            "class or function that returns one when called with no argument)",
        ),
        (
            "toy_plugin_rulesets:broken_factory",
            "calling toy_plugin_rulesets:broken_factory with no argument failed: "
            "RuntimeError: the table of touches is missing",
        ),
        (
            "toy_plugin_rulesets:Impostor",
            "its ruleset id 'rule-2.14' is already loaded from "
            "'rule-2.14 = bot.rules.rule_2_14.ruleset:RULE_2_14' of duelbot (its built-in list)",
        ),
    ],
    ids=["import-error", "missing-attribute", "not-a-ruleset", "factory-fails", "collides"],
)
def test_a_bad_plug_in_is_refused_in_one_line_and_the_others_load(
    toys: Path, caplog: pytest.LogCaptureFixture, value: str, reason: str
) -> None:
    bad = entry_point("bad-bout", value)
    loaded = plugins.load(
        [bad, entry_point("toy-bout", "toy_plugin_rulesets:TOY")], registry.BUILTIN_ENTRY_POINTS
    )
    assert set(loaded.rulesets) == {"toy-bout", *registry.ids()}
    assert loaded.rulesets["rule-2.14"] is registry.get("rule-2.14")
    (refusal,) = loaded.refused
    assert refusal.entry_point == f"bad-bout = {value}"
    assert refusal.reason.startswith(reason), refusal.reason
    assert warnings_of(caplog) == [refusal.line()]
    assert refusal.line().startswith(
        f"Ruleset plug-in refused: entry point 'bad-bout = {value}' (group {GROUP}) of "
        "no distribution (not from installed metadata): "
    )
    assert "\n" not in refusal.line()


def test_of_two_plug_ins_with_one_id_the_first_distribution_wins(
    toys: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Installed plug-ins load in the order of their distributions' names: the same set of
    packages always keeps the same one, and the refusal names both."""
    site = toys / "site"
    dist_info(site, "zz-toys", "2.0", {"toy-bout": "toy_plugin_rulesets:TOY_AGAIN"})
    dist_info(site, "aa-toys", "1.0", {"toy-bout": "toy_plugin_rulesets:TOY"})
    found = [ep for dist in Distribution.discover(path=[str(site)]) for ep in dist.entry_points]
    loaded = plugins.load(found, registry.BUILTIN_ENTRY_POINTS)
    toy = sys.modules["toy_plugin_rulesets"]
    assert loaded.rulesets["toy-bout"] is toy.TOY
    assert warnings_of(caplog) == [
        f"Ruleset plug-in refused: entry point 'toy-bout = toy_plugin_rulesets:TOY_AGAIN' "
        f"(group {GROUP}) of zz-toys 2.0: its ruleset id 'toy-bout' is already loaded from "
        "'toy-bout = toy_plugin_rulesets:TOY' of aa-toys 1.0"
    ]


def test_an_installed_distribution_is_named_in_its_refusal(
    toys: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A dist-info on sys.path, as pip leaves it: ``installed_entry_points`` finds it, and
    its refusal names the distribution and its version."""
    dist_info(toys, "duelbot-toys", "0.3.1", {"broken-bout": "toy_plugin_broken:RULESET"})
    found = [ep for ep in plugins.installed_entry_points() if ep.name == "broken-bout"]
    assert len(found) == 1
    loaded = plugins.load(found, registry.BUILTIN_ENTRY_POINTS)
    assert "broken-bout" not in loaded.rulesets
    (line,) = warnings_of(caplog)
    assert line.startswith(
        f"Ruleset plug-in refused: entry point 'broken-bout = toy_plugin_broken:RULESET' "
        f"(group {GROUP}) of duelbot-toys 0.3.1: it failed to import: ModuleNotFoundError"
    ), line


def test_the_registry_of_a_process_loads_the_group(toys: Path) -> None:
    """The registry itself, in a fresh process with a plug-in distribution on its path:
    the good plug-in is found by ``get``, each bad one is one line on stderr (logging's
    last resort, as `duelbot verify` shows it), and the built-in ones load."""
    dist_info(
        toys,
        "duelbot-toys",
        "0.3.1",
        {
            "toy-bout": "toy_plugin_rulesets:TOY",
            "broken-bout": "toy_plugin_broken:RULESET",
            "rule-2.14": "toy_plugin_rulesets:Impostor",
            "dict-bout": "toy_plugin_rulesets:NOT_A_RULESET",
        },
    )
    code = (
        "from bot.rules import registry\n"
        "print(*registry.ids()); print(registry.get('toy-bout').title)\n"
        "print(registry.get('rule-2.14').title)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60, cwd=toys,
        env={"PYTHONPATH": f"{toys}:{FENCING_SRC}:{ROOT}", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    ids, toy_title, default_title = run.stdout.splitlines()
    assert ids.split() == ["by-this-axe", "foeq-spell-duel", "rule-2.14", "toy-bout"]
    assert toy_title == "Toy Bout" and default_title != "Not Rule 2.14"
    refused = run.stderr.splitlines()
    assert len(refused) == 3, run.stderr
    assert all(line.startswith("Ruleset plug-in refused: entry point '") for line in refused)
    assert all(" of duelbot-toys 0.3.1: " in line for line in refused)
    reasons = " ".join(refused)
    assert "'broken-bout = toy_plugin_broken:RULESET'" in reasons
    assert "'dict-bout = toy_plugin_rulesets:NOT_A_RULESET'" in reasons
    assert "its ruleset id 'rule-2.14' is already loaded" in reasons
