"""docker-compose.yml and the Dockerfile hold together from a fresh clone (no Docker engine here).

The file is parsed as YAML and every reference it makes is checked: build
contexts, variables, volumes, services, the tokens file, bind mounts, and the
packages the image must contain.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from api.http.hosts import Trusted
from api.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text()
COMPOSE: dict[str, Any] = yaml.safe_load(COMPOSE_TEXT)
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
# ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}; `$${...}` is a literal dollar.
VARIABLE = re.compile(r"(?<!\$)\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<op>:?[-?+])?[^}]*\}")


def docker_section() -> str:
    """docs/OPERATIONS.md's "With Docker", which a fresh clone follows."""
    page = (ROOT / "docs" / "OPERATIONS.md").read_text()
    start = page.index("## With Docker")
    end = page.index("\n## ", start)
    return page[start:end]


def mounts(service: dict[str, Any]) -> list[tuple[str, str]]:
    """(source, target) of each volume entry, short or long syntax."""
    found = []
    for volume in service.get("volumes", []):
        if isinstance(volume, str):
            source, target = volume.split(":")[:2]
        else:
            source, target = volume.get("source", ""), volume["target"]
        found.append((source, target))
    return found


def is_named(source: str) -> bool:
    return bool(source) and not source.startswith((".", "/", "~"))


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        return dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def dockerfile_copies(dockerfile: Path) -> set[str]:
    """Sources of every COPY, flags aside (the last argument is the destination)."""
    sources: set[str] = set()
    for line in dockerfile.read_text().splitlines():
        words = line.split()
        if words and words[0].upper() == "COPY":
            sources |= {word.rstrip("/") for word in words[1:-1] if not word.startswith("--")}
    return sources


def packaged_top_levels() -> set[str]:
    """Top-level packages pyproject.toml ships: folders with __init__.py matching its include."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    return {
        folder.name
        for folder in ROOT.iterdir()
        if (folder / "__init__.py").is_file()
        and any(fnmatch.fnmatch(folder.name, pattern) for pattern in include)
    }


def test_every_build_context_has_its_dockerfile() -> None:
    built = {name: service["build"] for name, service in SERVICES.items() if "build" in service}
    assert built, "no service is built from this repository"
    for name, build in built.items():
        spec = {"context": build} if isinstance(build, str) else build
        context, dockerfile = spec.get("context", "."), spec.get("dockerfile", "Dockerfile")
        assert (ROOT / context / dockerfile).is_file(), f"{name}: no {dockerfile} in {context}"


def test_every_variable_has_a_default_or_is_documented() -> None:
    documented = docker_section()
    for match in VARIABLE.finditer(COMPOSE_TEXT):
        has_default = match["op"] in (":-", "-")
        assert has_default or match["name"] in documented, (
            f"${{{match['name']}}} has no default and OPERATIONS.md's With Docker does not name it"
        )


def test_every_named_volume_is_declared_and_every_dependency_exists() -> None:
    declared = set(COMPOSE.get("volumes") or {})
    for name, service in SERVICES.items():
        for source, _ in mounts(service):
            if is_named(source):
                assert source in declared, f"{name}: volume {source} is not declared"
        for dependency in service.get("depends_on", []):
            assert dependency in SERVICES, f"{name} depends on unknown service {dependency}"


def test_the_api_tokens_file_lies_inside_a_mounted_volume() -> None:
    api = SERVICES["api"]
    tokens = PurePosixPath(environment(api)["THREADLINE_TOKENS_FILE"])
    targets = [PurePosixPath(target) for source, target in mounts(api) if is_named(source)]
    assert any(tokens.is_relative_to(target) for target in targets), (
        f"{tokens} is in no named volume of the api service"
    )


def test_no_bind_mount_needs_a_file_a_fresh_clone_lacks() -> None:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot tell what a fresh clone holds")
    tracked = {PurePosixPath(path) for path in listed.stdout.splitlines()}
    tracked_dirs = {parent for path in tracked for parent in path.parents}
    for name, service in SERVICES.items():
        for source, _ in mounts(service):
            if is_named(source):
                continue
            path = PurePosixPath((ROOT / source).resolve().relative_to(ROOT).as_posix())
            assert path in tracked or path in tracked_dirs, (
                f"{name}: bind mount of {source}, which a fresh clone does not have"
            )


def test_the_image_copies_every_package_pyproject_ships() -> None:
    copied = dockerfile_copies(ROOT / "Dockerfile")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    needed = {*packaged_top_levels(), "pyproject.toml", pyproject["project"]["readme"]}
    assert {"api", "graph", "resolvers", "cypher"} <= needed
    assert needed <= copied, f"the Dockerfile does not COPY {sorted(needed - copied)}"
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for source in needed:
        assert not any(fnmatch.fnmatch(source, pattern) for pattern in ignored), (
            f".dockerignore hides {source} from the build"
        )


def test_the_api_answers_to_the_name_prometheus_scrapes_it_by() -> None:
    """The API refuses a Host it does not answer to (api/http/hosts.py): Prometheus's."""
    api = environment(SERVICES["api"])
    settings = Settings(
        host=api["THREADLINE_HOST"], allowed_hosts=api["THREADLINE_ALLOWED_HOSTS"].split(",")
    )
    scraped = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    targets = [
        target
        for job in scraped["scrape_configs"]
        for static in job["static_configs"]
        for target in static["targets"]
    ]
    assert targets
    for target in targets:
        assert Trusted.from_settings(settings).refusal(target, None) is None, target
