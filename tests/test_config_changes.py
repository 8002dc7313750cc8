"""An environment file from an older release loads or is refused in one line naming what changed; the release is
in one place (core/version.py), which the installed package, the CLI and the changelog agree on."""

from __future__ import annotations

import copy
import importlib.metadata
import tomllib
from pathlib import Path

import pytest
import yaml

from eks_training.core.version import CONFIG_SCHEMA_VERSION, __version__
from eks_training.infra.config import ENVIRONMENTS_DIR, ConfigError, load_config_file, parse_config
from eks_training.infra.config_changes import ConfigChange, upgrade_config
from eks_training.infra.tools.cli import main

REPO = Path(__file__).resolve().parent.parent
#: dev.yaml as 0.1.0 shipped it.
OLD_DEV = Path(__file__).resolve().parent / "support" / "environments" / "dev-0.1.0.yaml"
DEV = yaml.safe_load((ENVIRONMENTS_DIR / "dev.yaml").read_text())


def test_a_file_of_0_1_0_is_refused_naming_each_change_until_it_loads(tmp_path) -> None:
    data = yaml.safe_load(OLD_DEV.read_text())
    steps = [
        ("network.restrict_egress=True is not allowed", "0.1.0 left pods' egress open",
         lambda d: d["network"].update(restrict_egress=False)),
        ("cluster.public_access_cidrs=[] is not allowed", "0.1.0 opened a public endpoint to every address",
         lambda d: d["cluster"].update(public_access_cidrs=["192.0.2.0/24"])),
        ("cluster.admin_role_arns=[] is not allowed", "0.1.0 admitted only the identity that deployed",
         lambda d: d["cluster"].update(admin_role_arns=["arn:aws:iam::${AWS::AccountId}:role/admin"])),
    ]
    for refused, change, fix in steps:
        with pytest.raises(ConfigError) as raised:
            parse_config(copy.deepcopy(data), source="dev.yaml")
        line = str(raised.value)
        assert line.startswith(f"dev.yaml: {refused}") and "\n" not in line, line
        assert line.endswith(f"(changed in eks-training 0.2.0: {change}" + line.split(change, 1)[1]), line
        fix(data)
    assert parse_config(data).name == "dev"


@pytest.mark.parametrize("written", [{"network": {"restrict_egress": True}}, {"schema_version": CONFIG_SCHEMA_VERSION}])
def test_a_changed_default_is_named_only_where_an_older_file_left_it_unset(written) -> None:
    # The value written out, or a file that states this release's format: no earlier default to blame.
    data = copy.deepcopy(DEV)
    del data["network"]["restrict_egress"]
    data["network"]["vpc_endpoints"] = False
    data["network"].update(written.get("network", {}))
    data.update({k: v for k, v in written.items() if k != "network"})
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    assert "network.restrict_egress=True is not allowed" in str(raised.value)
    assert "changed in eks-training" not in str(raised.value)


def test_a_removed_key_names_the_release_that_removed_it(tmp_path) -> None:
    text = (ENVIRONMENTS_DIR / "dev.yaml").read_text().replace("  nat_gateways: 1\n",
                                                                "  nat_gateways: 1\n  existing_vpc_id: vpc-0123\n")
    (tmp_path / "dev.yaml").write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_config_file(tmp_path / "dev.yaml")
    assert str(raised.value) == ("dev.yaml: network.existing_vpc_id: removed in eks-training 0.2.0: nothing read it "
                                 "(the platform always creates its own VPC): delete the key")


@pytest.mark.parametrize(("stated", "message"), [
    (CONFIG_SCHEMA_VERSION + 1, f"config: schema_version={CONFIG_SCHEMA_VERSION + 1} is not allowed: this release of "
                                f"eks-training ({__version__}) reads up to {CONFIG_SCHEMA_VERSION}; upgrade "
                                "eks-training to read this file"),
    ("two", f"config: schema_version='two' is not allowed: use a whole number from 1 to {CONFIG_SCHEMA_VERSION}"),
    (True, "config: schema_version=True is not allowed"),
])
def test_schema_version_newer_than_this_release_or_not_a_number_is_refused(stated, message) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({**DEV, "schema_version": stated})
    assert str(raised.value).startswith(message)


def test_a_file_stating_this_schema_loads_like_one_stating_none() -> None:
    assert parse_config({**DEV, "schema_version": CONFIG_SCHEMA_VERSION}) == parse_config(DEV)


def test_a_renamed_key_is_read_under_its_new_name_and_given_twice_is_refused() -> None:
    renamed = (ConfigChange(CONFIG_SCHEMA_VERSION, "0.3.0", "renamed", ("network", "nat_gateways"), "plural",
                            ("network", "nats")),)
    old = {"network": {"nat_gateways": 2, "cidr": "10.0.0.0/16"}}
    assert upgrade_config(old, renamed) == {"network": {"nats": 2, "cidr": "10.0.0.0/16"}}
    assert old == {"network": {"nat_gateways": 2, "cidr": "10.0.0.0/16"}}  # the caller's data is left as it was
    # A file written for the schema with the change is not translated.
    assert upgrade_config({**old, "schema_version": CONFIG_SCHEMA_VERSION}, renamed) == old
    with pytest.raises(ValueError, match=r"^network.nat_gateways: renamed to network.nats in eks-training 0.3.0: "
                                         r"give it once, under the new name$"):
        upgrade_config({"network": {"nat_gateways": 2, "nats": 2}}, renamed)


def test_the_release_is_in_one_place(capsys) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "eks_training.core.version.__version__"}
    assert importlib.metadata.version("eks-training") == __version__
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"eks-training {__version__}\n"
    changelog = (REPO / "CHANGELOG.md").read_text()
    releases = [line.split()[1] for line in changelog.splitlines() if line.startswith("## ")]
    assert releases[0] == __version__ and "0.1.0" in releases
