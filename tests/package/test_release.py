"""One release, one version: the dbt package, the engine and the adapter plugin carry
the same version, dbt's version range admits the dbt this repository pins and tests, and
the changelog has the version's section."""

from __future__ import annotations

import re
import tomllib

import yaml
from dbt_common.semver import VersionSpecifier, versions_compatible

from tests.conftest import PROJECT_DIR


def _pinned(package: str) -> str:
    for line in (PROJECT_DIR / "constraints.txt").read_text().splitlines():
        if line.startswith(f"{package}=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"{package} is not pinned in constraints.txt")


def test_the_package_engine_and_adapter_carry_one_version():
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    engine = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["project"]["version"]
    adapter = tomllib.loads((PROJECT_DIR / "adapter" / "pyproject.toml").read_text())["project"]["version"]
    plugin = (PROJECT_DIR / "adapter" / "src" / "dbt" / "adapters" / "spark_session" / "__version__.py").read_text()
    plugin_version = re.search(r'version\s*=\s*"([^"]+)"', plugin).group(1)
    assert {project["version"], engine, adapter, plugin_version} == {project["version"]}, (
        f"dbt_project.yml {project['version']}, pyproject.toml {engine}, adapter {adapter}, plugin {plugin_version}")


def test_the_required_dbt_version_admits_the_pinned_dbt_core():
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    required = [VersionSpecifier.from_version_string(spec) for spec in project["require-dbt-version"]]
    pinned = VersionSpecifier.from_version_string(_pinned("dbt-core"))
    assert versions_compatible(pinned, *required)
    # The range names the minor version tested, not more.
    assert not versions_compatible(VersionSpecifier.from_version_string("1.12.0"), *required)
    assert not versions_compatible(VersionSpecifier.from_version_string("1.10.9"), *required)


def test_the_changelog_has_a_section_for_this_version():
    version = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["version"]
    headings = re.findall(r"^## (\S+)", (PROJECT_DIR / "CHANGELOG.md").read_text(), flags=re.MULTILINE)
    assert version in headings, f"CHANGELOG.md has no section for {version}: {headings}"
