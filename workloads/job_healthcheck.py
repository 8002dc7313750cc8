"""The `health-check` job kind: prove the nodes and their fabric before a training run spends hours on them.

One MPIJob (`kubeflow.org/v2beta1`) on the same nodes a training job would get, whole-node resources, EFA:

* Every worker first runs :func:`health_check_init_container`: a single-node all-reduce on all of its accelerators
  (NVLink / NeuronLink, no network), which fails that pod, naming its node, when a device is broken or slow.
* The launcher then runs one all-reduce across all nodes over EFA and compares the bus bandwidth at the largest
  message size with a floor for the instance type. Below the floor, or on a failure, it runs the same test on each
  pair of neighbouring nodes (a ring: 0-1, 1-2, ..., n-1-0), so the node whose both pairs are slow is named, and
  exits 1 with one line naming it (worker host and Kubernetes node).

NVIDIA: `all_reduce_perf` from NVIDIA's nccl-tests, launched by `mpirun`. Flags as the nccl-tests README documents
them (github.com/NVIDIA/nccl-tests, "Arguments"): `-b` minimum and `-e` maximum size in bytes, `-f` multiplication
factor between sizes, `-g` GPUs per thread (1: one MPI rank per GPU; on one node without MPI, `-g <gpus>`), `-c 1`
check results, `-n` iterations, `-w` warmup iterations. The README's multi-node example is
`mpirun -np 64 -N 8 all_reduce_perf -b 8 -e 8G -f 2 -g 1`. The output's data rows are
`size count type redop root time algbw busbw #wrong` (out of place) then `time algbw busbw #wrong` (in place);
busbw is in GB/s (10^9 bytes).

Neuron: `nccom-test` from the Neuron SDK's aws-neuronx-tools (Neuron docs, "NCCOM-TEST User Guide"): the operation
`allr` (all-reduce), `-r/--nworkers` total ranks (NeuronCores), `-N/--nnodes`, `-b/--minbytes`, `-e/--maxbytes`,
`-f/--stepfactor`, `-n/--iters`, `-w/--warmup_iters`, `-d/--datatype`, `-c/--check` (`random` or `all_ones`),
`-s/--hosts` for MPI execution with `NEURON_RT_ROOT_COMM_ID=<first host IP>:<port>`. Its rows are
`size count type time algbw busbw`, busbw in GiB/s (2^30 bytes).

The image must carry the test binary (all_reduce_perf with aws-ofi-nccl, or the Neuron tools), `mpirun` and sshd.
"""

from __future__ import annotations

import dataclasses
import shlex

from eks_training.core.validation import invalid
from eks_training.workloads.job_mpi import IMAGE_SSH_DIR, MPIJOB_API, worker_host
from eks_training.workloads.job_pods import TrainingJob, fabric_env, restricted, training_container, training_pod_spec
from eks_training.workloads.labels import common_labels
from eks_training.core.names import MPI_LAUNCHER_SERVICE_ACCOUNT

COMPONENT = "health-check"
NCCL_ALL_REDUCE = "all_reduce_perf"
NCCOM_TEST = "nccom-test"
#: Where each worker writes its Kubernetes node name, so the launcher can name a slow node.
NODE_NAME_FILE = "/tmp/eks-training-node-name"
#: Port of the Neuron runtime's root communicator on the first host (any free port; the docs' example uses 45654).
NEURON_ROOT_COMM_PORT = 45654
# Whole runs stop here instead of hanging on a dead peer: a health check must fail fast.
_WORLD_TIMEOUT_S = 900
_PAIR_TIMEOUT_S = 300
_NODE_TIMEOUT_S = 300
_ACTIVE_DEADLINE_S = 3600

# EC2's published network bandwidth of the EFA-capable types, in Gbit/s (EC2 accelerated computing specs).
EFA_LINE_RATE_GBITS: dict[str, int] = {
    "p4d.24xlarge": 400, "p4de.24xlarge": 400,
    "p5.48xlarge": 3200, "p5e.48xlarge": 3200, "p5en.48xlarge": 3200, "p6-b200.48xlarge": 3200,
    "g5.12xlarge": 40, "g5.48xlarge": 100, "g6.12xlarge": 40, "g6.48xlarge": 100,
    "g6e.12xlarge": 100, "g6e.48xlarge": 400,
    "trn1.32xlarge": 800, "trn1n.32xlarge": 1600, "trn2.48xlarge": 3200,
}
#: Multi-node floor: this fraction of the node's EFA line rate. An all-reduce's bus bandwidth across nodes is bounded
#: by each node's network bandwidth; healthy EFA runs reach well above half of it at GiB messages, while a node
#: whose NCCL fell back to TCP, or that lost EFA interfaces, lands far below. p5.48xlarge: 3200 Gbit/s = 400 GB/s,
#: floor 200 GB/s. A floor, not a benchmark: raise it to a measured baseline with `min_busbw`.
NETWORK_FLOOR_FRACTION = 0.5
# Single-node NVIDIA floor in GB/s: half of one GPU's unidirectional NVLink bandwidth (A100 NVLink3 300 GB/s,
# H100/H200 NVLink4 450 GB/s, B200 NVLink5 900 GB/s); an intra-node all-reduce on healthy NVLink measures ~75-80%
# of it. PCIe-only GPUs (A10G, L4, L40S) and Neuron nodes get no single-node floor: correctness only.
NVLINK_FLOOR_GBS: dict[str, float] = {"A100": 150.0, "H100": 225.0, "H200": 225.0, "B200": 450.0}


@dataclasses.dataclass(frozen=True)
class Floor:
    """A minimum bus bandwidth in the unit the tool prints ("GB/s" for nccl-tests, "GiB/s" for nccom-test)."""

    value: float
    unit: str

    def describe(self) -> str:
        return f"{self.value:g} {self.unit}"


def network_floor(job: TrainingJob) -> Floor | None:
    """The multi-node bus bandwidth floor of the job's instance type (None: no EFA, correctness only)."""
    facts = job.facts
    if not facts.efa_supported:
        return None
    if job.instance_type not in EFA_LINE_RATE_GBITS:
        raise invalid("instance_type", job.instance_type, "an EFA type with a recorded line rate (add it to "
                      "EFA_LINE_RATE_GBITS in eks_training.workloads.job_healthcheck)")
    bytes_per_second = EFA_LINE_RATE_GBITS[job.instance_type] * 1e9 / 8 * NETWORK_FLOOR_FRACTION
    if facts.accelerator == "neuron":
        return Floor(round(bytes_per_second / 2**30, 1), "GiB/s")
    return Floor(round(bytes_per_second / 1e9, 1), "GB/s")


def node_floor(job: TrainingJob) -> Floor | None:
    """The single-node bus bandwidth floor (None: correctness only)."""
    facts = job.facts
    if facts.accelerator == "nvidia" and facts.accelerator_name in NVLINK_FLOOR_GBS:
        return Floor(NVLINK_FLOOR_GBS[facts.accelerator_name], "GB/s")
    return None


# --- the test commands ----------------------------------------------------------------------------------------


def nccl_all_reduce_command(*, gpus_per_process: int, max_bytes: str) -> list[str]:
    """`all_reduce_perf` from 8 bytes to ``max_bytes``, doubling, checking results (nccl-tests README flags)."""
    return [NCCL_ALL_REDUCE, "-b", "8", "-e", max_bytes, "-f", "2", "-g", str(gpus_per_process), "-c", "1",
            "-n", "20", "-w", "5"]


def nccom_all_reduce_command(*, ranks: int, nodes: int, max_bytes: str) -> list[str]:
    """`nccom-test` all-reduce over ``ranks`` NeuronCores on ``nodes`` nodes (hosts are appended for nodes > 1)."""
    command = [NCCOM_TEST, "-r", str(ranks)]
    if nodes > 1:
        command += ["-N", str(nodes)]
    return command + ["-b", "8", "-e", max_bytes, "-f", "2", "-n", "20", "-w", "5", "-d", "fp32",
                      "--check", "all_ones", "allr"]


def _mpirun(job: TrainingJob, hosts_var: str, ranks_expr: str) -> list[str]:
    """`mpirun` over the hosts in shell variable ``hosts_var`` (``h:slots,...``), one rank per GPU."""
    per_node = job.facts.accelerators
    env_flags = [flag for item in fabric_env(job, for_trainer=False)
                 for flag in ("-x", f"{item['name']}={item['value']}")]
    return ["mpirun", "--allow-run-as-root", "-np", ranks_expr, "-H", f"${hosts_var}",
            "--map-by", f"ppr:{per_node}:node", "--bind-to", "none", *env_flags]


def _words(command: list[str]) -> str:
    """A command for the script; words starting with '$' stay unquoted (shell expansions, built by us)."""
    return " ".join(word if word.startswith("$") else shlex.quote(word) for word in command)


# The shell function every script uses: run a command (each under `timeout`), print its output, and judge it by exit
# status, wrong results and the bus bandwidth of the largest size (column `bw_col` of the last data row).
_JUDGE = r"""
judge() {
  label=$1 bw_col=$2 wrong_cols=$3 floor=$4 unit=$5
  shift 5
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  result=$(printf '%s\n' "$out" | awk -v c="$bw_col" -v w="$wrong_cols" '
    $1 ~ /^[0-9]+$/ && NF >= c { bw = $c; n = split(w, cols, ","); for (i = 1; i <= n; i++) if (cols[i] != "" && ($cols[i] + 0) != 0) bad = 1 }
    END { printf "%s %d\n", (bw == "" ? "none" : bw), bad }')
  bw=${result% *}
  bad=${result#* }
  if [ "$rc" -ne 0 ]; then verdict="failed (exit status $rc)";
  elif [ "$bad" -ne 0 ]; then verdict="failed (wrong results)";
  elif [ "$bw" = none ]; then verdict="failed (no result rows)";
  elif [ "$floor" != none ] && ! awk -v b="$bw" -v f="$floor" 'BEGIN { exit !(b + 0 >= f + 0) }'; then
    verdict="slow (bus bandwidth $bw $unit < floor $floor $unit)";
  else
    echo "health-check: $label: ok (bus bandwidth $bw $unit at the largest size, floor $floor $unit)"
    return 0
  fi
  echo "health-check: $label: $verdict"
  return 1
}
"""


def _columns(job: TrainingJob) -> tuple[str, str]:
    """(busbw column, comma-separated #wrong columns) of the tool's data rows."""
    return ("8", "9,13") if job.facts.accelerator == "nvidia" else ("6", "")


def node_check_script(job: TrainingJob) -> str:
    """The single-node check: all accelerators of this node, no network; names the node when it fails."""
    facts = job.facts
    floor = node_floor(job)
    bw_col, wrong_cols = _columns(job)
    if facts.accelerator == "nvidia":
        # One process driving every GPU (`-g <gpus>`): the README's single-node form, no MPI needed.
        command = nccl_all_reduce_command(gpus_per_process=facts.accelerators, max_bytes="1G")
    else:
        command = nccom_all_reduce_command(ranks=facts.neuron_cores, nodes=1, max_bytes="256MB")
    floor_word, unit = (str(floor.value), floor.unit) if floor else ("none", "GB/s" if facts.accelerator == "nvidia" else "GiB/s")
    return "\n".join([
        "set -u",
        _JUDGE,
        f'if ! judge "node $NODE_NAME ({facts.accelerators} x {facts.accelerator_name}, single node)" '
        f"{bw_col} '{wrong_cols}' {floor_word} {unit} timeout {_NODE_TIMEOUT_S} {_words(command)}; then",
        '  echo "health-check FAILED: node $NODE_NAME: its own accelerators failed the single-node all-reduce: '
        'cordon it and let node auto repair replace it" >&2',
        "  exit 1",
        "fi",
    ])


def health_check_init_container(job: TrainingJob) -> dict:
    """An init container for a training pod: the single-node all-reduce on the node's accelerators, failing fast.

    It requests the whole node like the trainer (init containers run before it, so nothing is counted twice) and
    names the Kubernetes node in its one-line failure. The job's image must carry the test binary.
    """
    node_env = {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
    return training_container(job, ["sh", "-c", node_check_script(job)], name="node-health-check",
                              extra_env=[node_env], runs_trainer=False)


def launcher_script(job: TrainingJob) -> str:
    """The launcher's script: the all-node all-reduce, then, when it fails or is slow, neighbouring pairs."""
    facts = job.facts
    hosts = [worker_host(job, i) for i in range(job.nodes)]
    floor = network_floor(job) if job.nodes > 1 else node_floor(job)
    pair_floor = network_floor(job)
    bw_col, wrong_cols = _columns(job)
    unit = "GB/s" if facts.accelerator == "nvidia" else "GiB/s"

    def word(value: Floor | None) -> str:
        return str(value.value) if value else "none"

    lines = ["set -u", _JUDGE, f"HOSTS={shlex.quote(' '.join(hosts))}", f"NODES={job.nodes}"]
    if facts.accelerator == "nvidia":
        per_node = facts.accelerators
        lines += [
            # mpirun's host list: every worker with one slot per GPU.
            f'ALL=$(for h in $HOSTS; do printf "%s:{per_node}," "$h"; done); ALL=${{ALL%,}}',
            f"world() {{ timeout {_WORLD_TIMEOUT_S} {_words(_mpirun(job, 'ALL', f'{per_node * job.nodes}'))} "
            f"{_words(nccl_all_reduce_command(gpus_per_process=1, max_bytes='8G'))}; }}",
            f'pair() {{ PAIR="$1:{per_node},$2:{per_node}"; timeout {_PAIR_TIMEOUT_S} {_words(_mpirun(job, "PAIR", str(2 * per_node)))} '
            f"{_words(nccl_all_reduce_command(gpus_per_process=1, max_bytes='1G'))}; }}",
        ]
    else:
        cores = facts.neuron_cores
        world = nccom_all_reduce_command(ranks=cores * job.nodes, nodes=job.nodes, max_bytes="1GB")
        pair = nccom_all_reduce_command(ranks=cores * 2, nodes=2, max_bytes="256MB")
        lines += [
            # nccom-test's MPI mode wants host IPs and the first one's IP:port as the runtime's root communicator.
            'ip_of() { getent hosts "$1" | awk \'{ print $1; exit }\'; }',
            f'world() {{ first=$(ip_of "${{HOSTS%% *}}"); ips=$(for h in $HOSTS; do ip_of "$h"; done); '
            f'NEURON_RT_ROOT_COMM_ID="$first:{NEURON_ROOT_COMM_PORT}" timeout {_WORLD_TIMEOUT_S} {_words(world)} --hosts $ips; }}',
            f'pair() {{ a=$(ip_of "$1"); b=$(ip_of "$2"); '
            f'NEURON_RT_ROOT_COMM_ID="$a:{NEURON_ROOT_COMM_PORT}" timeout {_PAIR_TIMEOUT_S} {_words(pair)} --hosts "$a" "$b"; }}',
        ]
    lines += [
        'node_of() { mpirun --allow-run-as-root -np 1 -H "$1:1" cat ' + NODE_NAME_FILE + ' 2>/dev/null || echo unknown; }',
        f'if judge "all {job.nodes} nodes" {bw_col} \'{wrong_cols}\' {word(floor)} {unit} world; then',
        '  echo "health-check passed: $NODES nodes"; exit 0',
        "fi",
        'if [ "$NODES" -lt 2 ]; then echo "health-check FAILED: node $(node_of "${HOSTS%% *}") ($HOSTS)" >&2; exit 1; fi',
        # Ring of neighbouring pairs: a bad node makes both of its pairs fail; with two nodes, either may be it.
        "set -- $HOSTS; n=$#; i=0; bad_pairs=''",
        "for h in $HOSTS; do",
        '  next=$(echo $HOSTS $HOSTS | cut -d" " -f$((i + 2))); i=$((i + 1))',
        '  [ "$n" -eq 2 ] && [ "$i" -eq 2 ] && break',
        f'  judge "pair $h + $next" {bw_col} \'{wrong_cols}\' {word(pair_floor)} {unit} pair "$h" "$next"'
        ' || bad_pairs="$bad_pairs $h+$next"',
        "done",
        "suspects=''",
        "for h in $HOSTS; do",
        '  hits=0; for p in $bad_pairs; do case "+$p+" in *"+$h+"*) hits=$((hits + 1));; esac; done',
        '  if [ "$hits" -ge 2 ] || { [ "$n" -eq 2 ] && [ "$hits" -ge 1 ]; }; then',
        '    suspects="$suspects $h (node $(node_of "$h"))"; fi',
        "done",
        'if [ -n "$suspects" ]; then',
        '  echo "health-check FAILED: slow or failed node(s):$suspects" >&2',
        'elif [ -n "$bad_pairs" ]; then',
        '  echo "health-check FAILED: slow or failed pair(s):$bad_pairs (no single node in two of them)" >&2',
        "else",
        '  echo "health-check FAILED: every pair passed but all $NODES nodes together did not: suspect the placement'
        ' group or the fabric, not one node" >&2',
        "fi",
        "exit 1",
    ]
    return "\n".join(lines)


def health_check(job: TrainingJob) -> list[dict]:
    """The health-check MPIJob for ``job``'s nodes (its checkpoint sidecar and trainer flags do not apply)."""
    job = dataclasses.replace(job, checkpoint_s3_uri=None, train_args=())
    node_env = {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
    # sshd does not pass the container's environment to mpirun's sessions: the node name goes into a file.
    worker = training_container(
        job, ["sh", "-c", f'printf "%s" "$NODE_NAME" > {NODE_NAME_FILE} && exec /usr/sbin/sshd -De'],
        name="worker", extra_env=[node_env], runs_trainer=False)
    worker_template = {
        "metadata": {"labels": common_labels(COMPONENT)},
        "spec": training_pod_spec(job, [worker], restart_policy="Never",
                                  init_containers=[health_check_init_container(job)]),
    }
    launcher = {
        "name": "launcher",
        "image": job.image,
        "command": ["sh", "-c", launcher_script(job)],
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}},
    }
    launcher_template = {
        "metadata": {"labels": common_labels(COMPONENT)},
        "spec": restricted({"serviceAccountName": MPI_LAUNCHER_SERVICE_ACCOUNT, "restartPolicy": "Never",
                            "containers": [launcher]}),
    }
    return [{
        "apiVersion": MPIJOB_API,
        "kind": "MPIJob",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(COMPONENT)},
        "spec": {
            "slotsPerWorker": job.facts.accelerators,
            "sshAuthMountPath": IMAGE_SSH_DIR,  # the image's non-root sshd reads its keys there
            "mpiImplementation": "OpenMPI",
            "launcherCreationPolicy": "WaitForWorkersReady",
            # One try: a health check that retries hides the flaky node it exists to find.
            "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0,
                          "activeDeadlineSeconds": _ACTIVE_DEADLINE_S, "ttlSecondsAfterFinished": 86400},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": launcher_template},
                "Worker": {"replicas": job.nodes, "template": worker_template},
            },
        },
    }]
