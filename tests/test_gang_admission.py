"""All-or-nothing admission: the Kueue manager configuration we ship sets waitForPodsReady, Kueue 0.19.2's chart
takes it, and Kueue's Configuration API (decoded strictly, then validated) accepts it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from eks_training.core.validation import InvalidValue
from eks_training.core.versions import KUEUE
from eks_training.infra.addons.kueue import manager_configuration
from eks_training.workloads.kueue_admission import GangAdmission
from eks_training.infra.tools.check import helm
from support import upstream_data
from support.kueue_config_api import configuration_errors, parse_go_duration

README = Path(__file__).resolve().parents[1] / "README.md"


def _shipped_configuration(prod) -> dict:
    """The Configuration in the ConfigMap Kueue's chart renders from the values of prod's release."""
    release = prod.helm_releases["kueue"]
    chart = upstream_data.chart_dir(KUEUE.chart, KUEUE.version)
    assert helm.unknown_value_paths(chart, release["Values"]) == []
    objects = helm.render_chart(chart, release="kueue", namespace=release["Namespace"], values=release["Values"],
                                kube_version="1.35")
    (config_map,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].endswith("manager-config")]
    return yaml.safe_load(config_map["data"]["controller_manager_config.yaml"])


def test_the_shipped_kueue_configuration_sets_wait_for_pods_ready_and_kueue_accepts_it(prod):
    configuration = _shipped_configuration(prod)
    assert configuration_errors(configuration) == []
    # The API version the pinned chart itself configures its manager with.
    chart = upstream_data.chart_dir(KUEUE.chart, KUEUE.version)
    chart_default = yaml.safe_load(yaml.safe_load((chart / "values.yaml").read_text())["managerConfig"][
        "controllerManagerConfigYaml"])
    assert configuration["apiVersion"] == chart_default["apiVersion"]
    wait = configuration["waitForPodsReady"]
    assert parse_go_duration(wait["timeout"]) == 15 * 60 and parse_go_duration(wait["recoveryTimeout"]) == 15 * 60
    assert wait["blockAdmission"] is False
    assert wait["requeuingStrategy"] == {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 1800,
                                         "backoffLimitCount": 6}


def test_the_readme_states_the_numbers_kueue_is_given():
    text = README.read_text()
    section = text[text.index("## Share the cluster: queues, network placement, restarts"):]
    section = section[:section.index("\n## ", 3)]
    wait = GangAdmission().wait_for_pods_ready()
    paragraph = next(p for p in section.split("\n\n") if "waitForPodsReady" in p)
    strategy = wait["requeuingStrategy"]
    for number in (f"{parse_go_duration(wait['timeout']) / 60:.0f} minutes", f"{strategy['backoffBaseSeconds']} s",
                   f"{strategy['backoffMaxSeconds'] // 60} minutes", f"{strategy['backoffLimitCount']} requeues"):
        assert number in paragraph, number


@pytest.mark.parametrize(("change", "error"), [
    (lambda w: w.update(timeout="15 minutes"), "waitForPodsReady.timeout: time: invalid duration"),
    (lambda w: w.update(timeout="0s"), "waitForPodsReady.timeout: Required value"),
    (lambda w: w.pop("timeout"), "waitForPodsReady.timeout: Required value"),
    (lambda w: w.update(recoveryTimeout="-1m"), "waitForPodsReady.recoveryTimeout: Invalid value"),
    (lambda w: w.update(blockAdmision=False), 'waitForPodsReady: unknown field "blockAdmision"'),
    (lambda w: w["requeuingStrategy"].update(timestamp="Admission"), "timestamp: Unsupported value: 'Admission'"),
    (lambda w: w["requeuingStrategy"].update(backoffBaseSeconds=-60), "backoffBaseSeconds: Invalid value: -60"),
    (lambda w: w["requeuingStrategy"].update(backoffMaxSeconds=2**31), "backoffMaxSeconds: 2147483648 is not an int32"),
    (lambda w: w["requeuingStrategy"].update(backoffLimit=3), 'requeuingStrategy: unknown field "backoffLimit"'),
])
def test_the_config_api_model_refuses_what_kueue_refuses(change, error):
    configuration = manager_configuration(["training"], ["batch/job"])
    assert configuration_errors(configuration) == []
    change(configuration["waitForPodsReady"])
    (found,) = configuration_errors(configuration)
    assert error in found


def test_the_configuration_carries_the_chosen_numbers():
    chosen = GangAdmission(timeout_minutes=25, recovery_timeout_minutes=5, backoff_base_seconds=30,
                           backoff_max_seconds=600, backoff_limit_count=None)
    wait = manager_configuration(["training"], ["batch/job"], chosen)["waitForPodsReady"]
    assert configuration_errors({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                                 "waitForPodsReady": wait}) == []
    assert (wait["timeout"], wait["recoveryTimeout"]) == ("25m", "5m")
    # No limit: the field is left out (Kueue's null, requeue for ever).
    assert wait["requeuingStrategy"] == {"timestamp": "Eviction", "backoffBaseSeconds": 30, "backoffMaxSeconds": 600}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"timeout_minutes": 0}, "GangAdmission.timeout_minutes=0 is not allowed: a whole number of at least 1"),
    ({"backoff_base_seconds": 1.5}, "GangAdmission.backoff_base_seconds=1.5 is not allowed"),
    ({"backoff_max_seconds": 30}, "GangAdmission.backoff_max_seconds=30 is not allowed: at least backoff_base_seconds "
                                  "(60)"),
    ({"backoff_limit_count": -1}, "GangAdmission.backoff_limit_count=-1 is not allowed"),
])
def test_gang_admission_mistakes_are_one_line(kwargs, message):
    with pytest.raises(InvalidValue) as raised:
        GangAdmission(**kwargs)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_go_durations_parse_as_go_does():
    assert parse_go_duration("1h30m") == 5400 and parse_go_duration("90s") == 90 and parse_go_duration("0") == 0
    assert parse_go_duration("-1.5m") == -90
    for bad in ("15", "m", "1d", "", 15):
        with pytest.raises(ValueError):
            parse_go_duration(bad)
    assert re.fullmatch(r"\d+m", GangAdmission().wait_for_pods_ready()["timeout"])


def _prod_with(**gang) -> dict:
    import copy

    from eks_training.infra.config import ENVIRONMENTS_DIR

    data = copy.deepcopy(yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text()))
    data["services"]["kueue_gang_admission"] = gang
    return data


def test_the_environment_file_sets_the_numbers_the_addon_gives_kueue():
    from eks_training.infra.config import parse_config

    from eks_training.infra.addons.kueue import gang_admission_of

    assert gang_admission_of(parse_config(_prod_with())) == GangAdmission()
    config = parse_config(_prod_with(timeout_minutes=30, backoff_limit_count=None))
    wait = manager_configuration(["training"], ["batch/job"], gang_admission_of(config))["waitForPodsReady"]
    assert wait["timeout"] == "30m" and "backoffLimitCount" not in wait["requeuingStrategy"]
    assert configuration_errors({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                                 "waitForPodsReady": wait}) == []


@pytest.mark.parametrize(("gang", "message"), [
    ({"timeout_minutes": 0}, "services.kueue_gang_admission.timeout_minutes=0 is not allowed"),
    ({"backoff_base_seconds": 600, "backoff_max_seconds": 60},
     "services.kueue_gang_admission.backoff_max_seconds=60 is not allowed: at least backoff_base_seconds (600)"),
])
def test_gang_admission_settings_mistakes_are_one_line(gang, message):
    from eks_training.infra.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as raised:
        parse_config(_prod_with(**gang), source="prod.yaml")
    assert message in str(raised.value) and "\n" not in str(raised.value)
