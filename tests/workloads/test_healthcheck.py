"""The health-check kind: schema-valid MPIJobs for p5 and trn1, the test tools' flags, the floors, and the scripts'
behaviour when run against stand-in binaries (a slow node is named; a healthy fabric passes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.workloads.job_healthcheck import (
    EFA_LINE_RATE_GBITS,
    NODE_NAME_FILE,
    health_check,
    health_check_init_container,
    launcher_script,
    network_floor,
    node_check_script,
    node_floor,
)
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.jobs import JOB_KINDS
from support.k8s_schemas import validate_k8s_objects


def _job(instance_type: str, nodes: int = 4, **overrides) -> TrainingJob:
    return TrainingJob(**{**dict(name="hc", namespace="team-a", instance_type=instance_type, nodes=nodes,
                                 image="repo/health:1", checkpoint_s3_uri="s3://ckpt-bucket/hc"), **overrides})


def _specs(obj: dict) -> tuple[dict, dict]:
    replicas = obj["spec"]["mpiReplicaSpecs"]
    return replicas["Launcher"]["template"]["spec"], replicas["Worker"]["template"]["spec"]


@pytest.mark.parametrize("instance_type", ["p5.48xlarge", "trn1.32xlarge"])
def test_renders_a_schema_valid_mpijob_on_whole_nodes(instance_type: str) -> None:
    (obj,) = validate_k8s_objects(health_check(_job(instance_type)), kubernetes_versions=("1.31", "1.35"))
    facts = INSTANCE_TYPES[instance_type]
    assert (obj["kind"], obj["apiVersion"]) == ("MPIJob", "kubeflow.org/v2beta1")
    assert obj["spec"]["runPolicy"]["backoffLimit"] == 0
    assert obj["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 4
    launcher, worker = _specs(obj)
    assert launcher["restartPolicy"] == "Never"
    assert worker["nodeSelector"] == {"node.kubernetes.io/instance-type": instance_type}
    assert worker["tolerations"][0]["key"] == facts.resource_name
    # The checkpoint sidecar belongs to training, not to a health check.
    assert [c["name"] for c in worker["initContainers"]] == ["node-health-check"]
    for container in (worker["containers"][0], worker["initContainers"][0]):
        limits = container["resources"]["limits"]
        assert limits[facts.resource_name] == str(facts.accelerators)
        assert limits["vpc.amazonaws.com/efa"] == str(facts.efa_interfaces)
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["FI_PROVIDER"] == "efa" and env["FI_EFA_USE_DEVICE_RDMA"] == "1"
        assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in container["env"]


def test_nvidia_commands_use_the_nccl_tests_flags() -> None:
    (obj,) = health_check(_job("p5.48xlarge"))
    launcher, worker = _specs(obj)
    script = launcher["containers"][0]["command"][2]
    # 4 nodes x 8 GPUs, one MPI rank per GPU (-g 1), 8 B to 8 GiB doubling, results checked.
    assert ("timeout 900 mpirun --allow-run-as-root -np 32 -H $ALL --map-by ppr:8:node --bind-to none "
            "-x NCCL_DEBUG=WARN -x FI_PROVIDER=efa -x FI_EFA_USE_DEVICE_RDMA=1 -x RDMAV_FORK_SAFE=1 "
            "all_reduce_perf -b 8 -e 8G -f 2 -g 1 -c 1 -n 20 -w 5") in script
    assert "judge \"all 4 nodes\" 8 '9,13' 200.0 GB/s world" in script
    node = worker["initContainers"][0]["command"][2]
    # One process driving all 8 GPUs of the node, no network.
    assert "timeout 300 all_reduce_perf -b 8 -e 1G -f 2 -g 8 -c 1 -n 20 -w 5" in node
    assert "'9,13' 225.0 GB/s" in node


def test_neuron_commands_use_the_nccom_test_flags() -> None:
    (obj,) = health_check(_job("trn1.32xlarge"))
    launcher, worker = _specs(obj)
    script = launcher["containers"][0]["command"][2]
    # 4 nodes x 32 NeuronCores; MPI mode with host IPs and the root communicator on the first one.
    assert ('NEURON_RT_ROOT_COMM_ID="$first:45654" timeout 900 nccom-test -r 128 -N 4 -b 8 -e 1GB -f 2 -n 20 -w 5 '
            "-d fp32 --check all_ones allr --hosts $ips") in script
    assert "judge \"all 4 nodes\" 6 '' 46.6 GiB/s world" in script
    node = worker["initContainers"][0]["command"][2]
    assert "timeout 300 nccom-test -r 32 -b 8 -e 256MB -f 2 -n 20 -w 5 -d fp32 --check all_ones allr" in node
    assert " -N " not in node


def test_floors_follow_the_line_rate_and_nvlink() -> None:
    assert (network_floor(_job("p5.48xlarge")).value, network_floor(_job("p5.48xlarge")).unit) == (200.0, "GB/s")
    assert (network_floor(_job("p4d.24xlarge")).value, node_floor(_job("p4d.24xlarge")).value) == (25.0, 150.0)
    # trn1.32xlarge: 800 Gbit/s, half of it in GiB/s as nccom-test prints.
    assert network_floor(_job("trn1.32xlarge")).describe() == "46.6 GiB/s"
    assert node_floor(_job("trn1.32xlarge")) is None and network_floor(_job("g5.xlarge", nodes=2)) is None
    # Every EFA type of the catalog has a line rate, so no EFA type renders without a floor.
    assert {t for t, f in INSTANCE_TYPES.items() if f.efa_supported} <= set(EFA_LINE_RATE_GBITS)


def test_registered_as_a_kind_for_any_accelerator() -> None:
    kind = JOB_KINDS["health-check"]
    assert (kind.accelerator, kind.multi_node, kind.is_script) == ("any", True, False)
    (obj,) = kind.build(_job("trn1.32xlarge", nodes=2), None)
    assert "nccom-test" in obj["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"][2]


@pytest.mark.parametrize("instance_type", ["p5.48xlarge", "trn1.32xlarge"])
def test_render_job_picks_the_tool_from_the_instance_type(instance_type: str) -> None:
    from eks_training.infra.config import load_environment
    from eks_training.infra.tools.job_render import render_job

    (obj,) = render_job(load_environment("prod"), "health-check", instance_type=instance_type, nodes=2,
                        image="repo/health:1", namespace="training")
    launcher, worker = _specs(obj)
    tool = "nccom-test" if instance_type.startswith("trn") else "all_reduce_perf"
    assert tool in launcher["containers"][0]["command"][2]
    assert worker["nodeSelector"]["node.kubernetes.io/instance-type"] == instance_type


def test_init_container_for_training_kinds_is_the_node_check() -> None:
    container = health_check_init_container(_job("p5.48xlarge", nodes=1))
    assert container["name"] == "node-health-check" and container["command"][:2] == ["sh", "-c"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"


# --- the scripts, run against stand-in binaries --------------------------------------------------------------

_FAKE_MPIRUN = r'''
import os, sys
args = sys.argv[1:]
hosts = [h.split(":")[0] for h in args[args.index("-H") + 1].split(",")]
if "cat" in args:
    print("node-of-" + hosts[0]); sys.exit(0)
slow = os.environ.get("SLOW_HOST", "")
busbw = 20.0 if slow in hosts else 300.0
print("#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong")
for size in (8, 1073741824):
    print(f"  {size} {size // 4} float sum -1 10.0 1.0 {busbw / (1 if size > 8 else 100)} 0 10.0 1.0 {busbw} 0")
print(f"# Avg bus bandwidth : {busbw}")
'''

_FAKE_NCCOM = r'''
import os, sys
args = sys.argv[1:]
ips = args[args.index("--hosts") + 1:] if "--hosts" in args else []
busbw = 5.0 if os.environ.get("SLOW_IP", "none") in ips else 80.0
print("size(B) count(elems) type time(us) algbw(GB/s) busbw(GB/s)")
print(f"1073741824 268435456 fp32 100 80.0 {busbw}")
print(f"Avg bus bandwidth: {busbw}GB/s")
'''

_FAKE_ALL_REDUCE = r'''
import os
wrong = os.environ.get("WRONG", "0")
print(f"  1073741824 268435456 float sum -1 10.0 400.0 400.0 {wrong} 10.0 400.0 400.0 {wrong}")
'''

_FAKE_GETENT = r'''
import sys
host = sys.argv[2]
print(f"10.0.0.{int(host.split('-worker-')[1].split('.')[0]) + 1}  {host}")
'''


def _bin(tmp_path: Path, programs: dict[str, str]) -> dict[str, str]:
    """PATH with stand-ins (Python scripts) for the tools the scripts call; `timeout`, awk and cut stay real."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name, source in programs.items():
        path = folder / name
        path.write_text(f"#!{sys.executable}\n{source}")
        path.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def _run(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, env={**os.environ, **env}, timeout=60)


def test_launcher_names_the_slow_gpu_node(tmp_path: Path) -> None:
    env = _bin(tmp_path, {"mpirun": _FAKE_MPIRUN})
    script = launcher_script(_job("p5.48xlarge", nodes=3))
    healthy = _run(script, env)
    assert healthy.returncode == 0, healthy.stderr
    assert "health-check passed: 3 nodes" in healthy.stdout
    slow = _run(script, {**env, "SLOW_HOST": "hc-worker-1.hc.team-a.svc"})
    assert slow.returncode == 1
    assert "slow (bus bandwidth 20.0 GB/s < floor 200.0 GB/s)" in slow.stdout
    assert slow.stderr.strip().splitlines()[-1] == ("health-check FAILED: slow or failed node(s): "
                                                     "hc-worker-1.hc.team-a.svc (node node-of-hc-worker-1.hc.team-a.svc)")


def test_launcher_names_the_slow_trainium_node_by_its_ip(tmp_path: Path) -> None:
    env = _bin(tmp_path, {"mpirun": _FAKE_MPIRUN, "nccom-test": _FAKE_NCCOM, "getent": _FAKE_GETENT})
    script = launcher_script(_job("trn1.32xlarge", nodes=4))
    assert _run(script, env).returncode == 0
    slow = _run(script, {**env, "SLOW_IP": "10.0.0.3"})  # worker 2
    assert slow.returncode == 1
    assert slow.stderr.strip().splitlines()[-1] == ("health-check FAILED: slow or failed node(s): "
                                                     "hc-worker-2.hc.team-a.svc (node node-of-hc-worker-2.hc.team-a.svc)")


def test_node_check_fails_on_wrong_results_naming_the_node(tmp_path: Path) -> None:
    env = {**_bin(tmp_path, {"all_reduce_perf": _FAKE_ALL_REDUCE}), "NODE_NAME": "ip-10-0-1-7.ec2.internal"}
    script = node_check_script(_job("p5.48xlarge", nodes=1))
    ok = _run(script, env)
    assert ok.returncode == 0 and "ok (bus bandwidth 400.0 GB/s" in ok.stdout
    broken = _run(script, {**env, "WRONG": "3"})
    assert broken.returncode == 1
    assert "failed (wrong results)" in broken.stdout
    assert broken.stderr.strip() == ("health-check FAILED: node ip-10-0-1-7.ec2.internal: its own accelerators failed "
                                     "the single-node all-reduce: cordon it and let node auto repair replace it")


def test_worker_keeps_its_node_name_for_the_launcher() -> None:
    (obj,) = health_check(_job("p5.48xlarge"))
    _, worker = _specs(obj)
    command = worker["containers"][0]["command"]
    assert command[:2] == ["sh", "-c"] and NODE_NAME_FILE in command[2] and command[2].endswith("exec /usr/sbin/sshd -De")
