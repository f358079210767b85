"""The project as users install it: the built wheel, in a fresh virtual environment.

The test builds the wheel of every distribution in the repository (the root's
``pyproject.toml``, the server; and any one folder down: the SDK in ``sdk/``,
the engine in ``engine/``) in a temporary folder, installs them together
into a new virtual environment outside the checkout and runs the
installed ``agents-club`` there, from a working directory outside the checkout:
``simulate`` for every game, then ``serve`` on the embedded Redis, whose
rulebooks, spectator page and admission must answer, and where ``play`` sits a
house bot's brain at a short table against house bots, with a token minted by
the organiser key that ``serve`` wrote.

Nothing of the source tree is importable or readable there, so any file the
code reads beside its sources instead of as package data (the rulebooks were
read from ``docs/`` once) fails here, as it would for a user.

Speed: the wheel's dependencies are not downloaded again. They are the
distributions this test itself runs on, which satisfy the same requirements,
so each one the wheel needs (its requirements, their requirements, with the
markers and extras that apply) is linked into the new environment from its
installed files; only those are importable there, so an import the wheel does
not declare still fails, and ``pip check`` confirms every declared requirement
is met. When one of them is not installed here (or not in a version that
fits), pip installs everything from the package index instead (using its
cache). Building the wheel asks pip for the build backend the same way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import venv
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import httpx
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from agents_club_cli.embedded_redis import free_port
from agents_club_cli.serve import wait_until_ready
from gateway import __version__

ROOT = Path(__file__).resolve().parents[1]

DISTRIBUTIONS = ("agents-club", "agents-club-sdk", "agents-club-engine")
"""The server, the SDK and the engine: the server's wheel needs the other two."""

EXTRAS = {"agents-club": ("embedded",)}
"""Extras installed with each distribution, as a user running the server installs it."""

NOT_SHIPPED = {"tests", "docs", "bench", "examples", "openapi", "build", "dist"}
"""Folders of the checkout that no wheel may carry (as import packages or data)."""

NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", ".data", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "*.whl",
)
"""What a clean clone lacks: never copied into the build folder."""


def _projects(source: Path) -> list[Path]:
    """The folders of ``source`` that hold a distribution (a ``pyproject.toml``)."""
    return [source, *sorted(path.parent for path in source.glob("*/pyproject.toml"))]


def _run(
    command: list[str | Path], *, env: dict[str, str] | None = None, cwd: Path | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``command``; its output becomes the assertion message when it fails."""
    finished = subprocess.run([str(part) for part in command], env=env, cwd=cwd, timeout=timeout,
                              capture_output=True, text=True, check=False)  # fmt: skip
    assert finished.returncode == 0, f"{command}:\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}"
    return finished


def _build_wheels(scratch: Path) -> list[Path]:
    """Build every distribution's wheel from a copy of the checkout (setuptools writes
    ``build/`` and ``*.egg-info`` into the folder it builds: not into the worktree)."""
    source = scratch / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE, symlinks=True)
    wheels = scratch / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", wheels,
          *_projects(source)], timeout=240)  # fmt: skip
    built = sorted(wheels.glob("*.whl"))
    assert len(built) == len(_projects(source)), built
    assert {_wheel_metadata(wheel)[0] for wheel in built} >= set(DISTRIBUTIONS), built
    assert "gateway" in _packages(built) and not _packages(built) & NOT_SHIPPED, _packages(built)
    return built


def _packages(wheels: list[Path]) -> set[str]:
    """The top-level import packages (and modules) the wheels ship."""
    tops: set[str] = set()
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            tops |= {name.split("/")[0].removesuffix(".py") for name in archive.namelist()}
    return {top for top in tops if not top.endswith(".dist-info")}


def _wheel_metadata(wheel: Path) -> tuple[str, list[str]]:
    """The distribution name and the ``Requires-Dist`` lines of a wheel."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        fields = Parser().parsestr(archive.read(name).decode("utf-8"))
    return str(fields["Name"]), list(fields.get_all("Requires-Dist") or [])


def _applies(requirement: Requirement, extras: tuple[str, ...] | frozenset[str]) -> bool:
    """Whether ``requirement`` is needed on this interpreter with ``extras`` requested."""
    marker = requirement.marker
    return marker is None or any(marker.evaluate({"extra": extra}) for extra in ("", *extras))


def _installed_dependencies(wheels: list[Path]) -> list[metadata.Distribution] | None:
    """The installed distributions the wheels need, transitively; ``None`` when one is
    missing here, does not fit its requirement, or has no record of its files."""
    pending: list[tuple[Requirement, tuple[str, ...] | frozenset[str]]] = []
    for wheel in wheels:
        name, requires = _wheel_metadata(wheel)
        pending += [(Requirement(line), EXTRAS.get(name, ())) for line in requires]
    return _closure(pending, {canonicalize_name(_wheel_metadata(wheel)[0]) for wheel in wheels})


def _closure(
    pending: list[tuple[Requirement, tuple[str, ...] | frozenset[str]]], built: set[str]
) -> list[metadata.Distribution] | None:
    """The installed distributions ``pending`` needs, transitively, but the ``built`` ones;
    ``None`` when one is missing here, does not fit, or has no record of its files."""
    needed: dict[str, metadata.Distribution] = {}
    expanded: set[tuple[str, frozenset[str]]] = set()
    while pending:
        requirement, extras = pending.pop()
        name = canonicalize_name(requirement.name)
        if not _applies(requirement, extras) or name in built:
            continue  # a built distribution's own requirements are already pending
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
        if distribution.files is None or not requirement.specifier.contains(
            distribution.version, prereleases=True
        ):
            return None
        needed[name] = distribution
        if (name, frozenset(requirement.extras)) not in expanded:
            expanded.add((name, frozenset(requirement.extras)))
            pending += [(Requirement(line), frozenset(requirement.extras))
                        for line in distribution.requires or []]  # fmt: skip
    return list(needed.values())


def _link(distributions: list[metadata.Distribution], site_packages: Path) -> None:
    """Make exactly ``distributions`` importable in ``site_packages``: a link to each
    top-level file or folder their records list (scripts outside it are not needed)."""
    for distribution in distributions:
        tops = {file.parts[0] for file in distribution.files or []}
        for top in sorted(tops - {"..", "__pycache__"}):
            link = site_packages / top
            origin = Path(str(distribution.locate_file(top)))
            if origin.exists() and not (link.exists() or link.is_symlink()):
                link.symlink_to(origin)  # a folder two of them share is linked once


def _install(wheels: list[Path], environment: Path) -> str:
    """Install the wheels into the new ``environment``; says how the dependencies came."""
    venv.create(environment, with_pip=False, symlinks=True)
    python = environment / "bin" / "python"
    pip: list[str | Path] = [sys.executable, "-m", "pip", "--python", python]
    site_packages = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    dependencies = _installed_dependencies(wheels)
    if dependencies is not None:
        _link(dependencies, site_packages)
        _run([*pip, "install", "--quiet", "--no-deps", "--no-index", *wheels], timeout=120)
        _run([*pip, "check"], timeout=60)
        return f"{len(dependencies)} dependencies linked from the running environment"
    targets = [f"{wheel}[{','.join(EXTRAS[name])}]" if (name := _wheel_metadata(wheel)[0]) in EXTRAS
               else str(wheel) for wheel in wheels]  # fmt: skip
    _run([*pip, "install", "--quiet", "--find-links", wheels[0].parent, *targets], timeout=240)
    return "dependencies installed from the index"


def _user_environment(environment: Path) -> dict[str, str]:
    """A user's shell with the new environment first on PATH: nothing of the checkout,
    its virtual environment or the test's Redis and gateway settings."""
    variables = {
        name: value for name, value in os.environ.items()
        if name not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "REDIS_URL"}
        and not name.startswith("AGENTS_CLUB_")
    }  # fmt: skip
    variables["PATH"] = f"{environment / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    variables["PYTHONSAFEPATH"] = "1"  # not even the working directory is importable
    return variables


def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    started = time.monotonic()
    wheels = _build_wheels(tmp_path / "build")
    environment = tmp_path / "env"
    how = _install(wheels, environment)
    installed = time.monotonic()
    home = tmp_path / "home"  # the user's working directory
    home.mkdir()
    shell = _user_environment(environment)
    agents_club = environment / "bin" / "agents-club"

    # Every package comes from the new environment; the checkout is nowhere on the path.
    packages = sorted(_packages(wheels))
    site = _run([environment / "bin" / "python", "-c",
                 f"import json, {', '.join(packages)}; "
                 f"print(json.dumps({{n: __import__(n).__file__ for n in {packages!r}}}))"], env=shell, cwd=home)  # fmt: skip
    for package, file in json.loads(site.stdout).items():
        assert Path(file).is_relative_to(environment), (package, file)
        assert not Path(file).resolve().is_relative_to(ROOT), (package, file)
    assert _run([agents_club, "--version"], env=shell, cwd=home).stdout == f"agents-club {__version__}\n"

    for game, bots in (("market-fortune", "greedy,random"), ("hab-und-gut", "greedy,random,random")):
        mode = ["--mode", "family"] if game == "market-fortune" else []
        simulated = _run([agents_club, "simulate", "--game", game, *mode, "--seats", str(len(bots.split(","))),
                          "--bots", bots, "--games", "2", "--seed", "3", "--json", "--quiet"], env=shell, cwd=home)  # fmt: skip
        assert json.loads(simulated.stdout)["games"] == 2

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data_dir = home / "data"
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [agents_club, "serve", "--port", str(port), "--data-dir", data_dir],
            env=shell, cwd=home, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_until_ready(base, server, log_path=log_path)
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.get("/healthz").json() == {"status": "ok", "version": __version__}
            games = [game["name"] for game in client.get("/v1/games").json()["games"]]
            assert sorted(games) == ["hab-und-gut", "market-fortune"]
            for game in games:
                rulebook = client.get(f"/v1/games/{game}/rulebook")
                assert rulebook.status_code == 200, rulebook.text
                # The packaged file (as served: maintainers' comments may be left out).
                source = ROOT / "engine" / game.replace("-", "_") / "rulebook.md"
                headings = re.findall(r"^#+ .+$", source.read_text(encoding="utf-8"), re.MULTILINE)
                assert len(headings) > 10, headings
                assert [line for line in rulebook.text.splitlines() if line in headings] == headings
            assert client.get("/watch").status_code == 200
            assert client.get("/openapi.json").json()["paths"]
            challenge = client.post("/v1/admission/challenges",
                                    json={"agent_name": "wheel-tester", "game": "hab-und-gut"})  # fmt: skip
            assert challenge.status_code == 201, challenge.text
            assert len(challenge.json()["questions"]) == 3 and challenge.json()["puzzle"]

            played = _run([agents_club, "play", "--server", base, "--data-dir", data_dir,
                           "--bot", "greedy", "--new", "3", "--option", "turn_limit_per_seat=6",
                           "--seed", "4", "--quiet"], env=shell, cwd=home)  # fmt: skip
            table_id = re.fullmatch(r"table (\w+): .*\n", played.stdout)
            assert table_id, played.stdout
            table = client.get(f"/v1/tables/{table_id.group(1)}").json()
            assert table["status"] == "finished"
            assert [seat["kind"] for seat in table["seated"]] == ["agent", "house_bot", "house_bot"]
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert server.returncode == 0, log_path.read_text(errors="replace")[-3000:]
    finished = time.monotonic()
    print(f"built and installed in {installed - started:.1f} s ({how}); ran in {finished - installed:.1f} s")


def test_plain_pip_installs_the_checkout_editable_from_its_folders(tmp_path: Path) -> None:
    """README's route without uv: ``pip install -e ./engine -e ./sdk -e .`` in a fresh
    environment. The server requires ``agents-club-sdk`` and ``agents-club-engine``,
    which are on no index (and an index's would be someone else's): pip must take both
    from the folders named beside it. Their dependencies are linked from this
    environment, as above, so pip has nothing else to fetch but the build backend."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE, symlinks=True)
    environment = tmp_path / "env"
    venv.create(environment, with_pip=False, symlinks=True)
    python = environment / "bin" / "python"
    pending: list[tuple[Requirement, tuple[str, ...] | frozenset[str]]] = []
    for folder in _projects(source):
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        pending += [(Requirement(spec), ()) for spec in project["dependencies"]]
    dependencies = _closure(pending, {canonicalize_name(name) for name in DISTRIBUTIONS})
    assert dependencies is not None, "this environment holds what the checkout needs"
    site_packages = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    _link(dependencies, site_packages)
    report = tmp_path / "report.json"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--report", report,
          "-e", "./engine", "-e", "./sdk", "-e", "."], cwd=source, timeout=240)  # fmt: skip
    installed = {item["metadata"]["name"]: item["download_info"]
                 for item in json.loads(report.read_text(encoding="utf-8"))["install"]}  # fmt: skip
    assert set(installed) == set(DISTRIBUTIONS), installed
    for name, download in installed.items():
        assert download["url"].startswith("file://") and download["dir_info"]["editable"], name
    _run([sys.executable, "-m", "pip", "--python", python, "check"], timeout=60)
    shell = _user_environment(environment)
    engine = _run([python, "-c", "import engine; print(engine.__file__)"], env=shell, cwd=tmp_path)
    assert Path(engine.stdout.strip()).is_relative_to(source / "engine"), engine.stdout
    assert _run([environment / "bin" / "agents-club", "--version"], env=shell,
                cwd=tmp_path).stdout == f"agents-club {__version__}\n"
