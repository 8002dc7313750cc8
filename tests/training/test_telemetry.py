"""The trainer's telemetry: records as CloudWatch embedded metric format, sent to stdout or the agent's TCP/UDP
listener, and as TensorBoard scalars read back from the event file."""

from __future__ import annotations

import io
import json
import math
import socket
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from eks_training.core import training_metrics as tm
from eks_training.training.telemetry import (
    UNKNOWN,
    EmfSink,
    TensorBoardSink,
    emf_document,
    job_identity,
    open_sinks,
    split_endpoint,
)

# CloudWatch's StandardUnit names (PutMetricData API reference), the only units an EMF metric may declare.
STANDARD_UNITS = {
    "Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes", "Bits",
    "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second", "Kilobytes/Second",
    "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second", "Megabits/Second",
    "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
}


def validate_emf(document: Any) -> list[str]:
    """The rules of CloudWatch's "Specification: Embedded metric format" that a document can break on its own;
    returns the broken ones (empty: valid)."""
    errors: list[str] = []
    if not isinstance(document, dict):
        return ["the root is not a JSON object"]
    aws = document.get("_aws")
    if not isinstance(aws, dict):
        return ["_aws is missing or not an object"]
    timestamp = aws.get("Timestamp")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        errors.append(f"_aws.Timestamp is not a non-negative integer (ms since the epoch): {timestamp!r}")
    if "LogGroupName" in aws and not isinstance(aws["LogGroupName"], str):
        errors.append("_aws.LogGroupName is not a string")
    directives = aws.get("CloudWatchMetrics")
    if not isinstance(directives, list) or not directives:
        return errors + ["_aws.CloudWatchMetrics is not a non-empty array"]
    for directive in directives:
        namespace = directive.get("Namespace") if isinstance(directive, dict) else None
        if not isinstance(namespace, str) or not 1 <= len(namespace) <= 1024:
            errors.append(f"a directive's Namespace is not a string of 1-1024 characters: {namespace!r}")
        dimension_sets = directive.get("Dimensions") if isinstance(directive, dict) else None
        if not isinstance(dimension_sets, list):
            errors.append("a directive's Dimensions is not an array")
            dimension_sets = []
        for dimension_set in dimension_sets:
            if not isinstance(dimension_set, list) or len(dimension_set) > 30:
                errors.append(f"a dimension set is not an array of at most 30 names: {dimension_set!r}")
                continue
            for name in dimension_set:
                # A dimension names a top-level member, and dimension values are strings.
                if not isinstance(document.get(name), str):
                    errors.append(f"dimension {name!r} has no top-level string value")
        metrics = directive.get("Metrics") if isinstance(directive, dict) else None
        if not isinstance(metrics, list) or not 1 <= len(metrics) <= 100:
            errors.append("a directive's Metrics is not an array of 1-100 metric definitions")
            metrics = []
        for metric in metrics:
            name = metric.get("Name") if isinstance(metric, dict) else None
            if not isinstance(name, str) or not 1 <= len(name) <= 1024:
                errors.append(f"a metric definition has no Name string: {metric!r}")
                continue
            if "Unit" in metric and metric["Unit"] not in STANDARD_UNITS:
                errors.append(f"metric {name!r} has unit {metric['Unit']!r}, not a CloudWatch StandardUnit")
            # A metric's member is a number (or an array of numbers); JSON has no NaN, CloudWatch takes none.
            values = document.get(name)
            values = values if isinstance(values, list) else [values]
            if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                     for v in values):
                errors.append(f"metric {name!r} has no finite numeric top-level value: {document.get(name)!r}")
    return errors


STEP_RECORD = {"step": 100, "loss": 2.5, "lr": 3e-4, "grad_norm": 0.75, "tokens_per_s": 51234.5,
               "samples_consumed": 3200, "mfu": 0.41}


def test_the_validator_catches_what_the_specification_forbids() -> None:
    good = {"_aws": {"Timestamp": 1, "CloudWatchMetrics": [{"Namespace": "N", "Dimensions": [["D"]],
                                                            "Metrics": [{"Name": "m", "Unit": "Count"}]}]},
            "D": "x", "m": 1}
    assert validate_emf(good) == []
    assert validate_emf({**good, "m": float("nan")})  # NaN: not a number CloudWatch accepts
    assert validate_emf({**good, "m": "1"})
    assert validate_emf({k: v for k, v in good.items() if k != "D"})  # a dimension without its value
    assert validate_emf({**good, "_aws": {**good["_aws"], "Timestamp": 1.5}})
    assert validate_emf({**good, "_aws": {"Timestamp": 1, "CloudWatchMetrics": [{**good["_aws"]["CloudWatchMetrics"][0],
                                                                                  "Namespace": 7}]}})


def test_a_step_record_becomes_an_emf_document_of_the_platform_contract() -> None:
    document = emf_document({**STEP_RECORD, "time": 1764551400.123}, "team-a", "llama-8b")
    assert validate_emf(json.loads(json.dumps(document, allow_nan=False))) == []
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    # What constructs/observability.py graphs and alarms on: this namespace, these dimensions, these names.
    assert directive["Namespace"] == "EksTraining" == tm.METRICS_NAMESPACE
    assert directive["Dimensions"] == [["Namespace", "Job"]]
    assert document["Namespace"] == "team-a" and document["Job"] == "llama-8b"
    assert document["_aws"]["Timestamp"] == 1764551400123
    names = {metric["Name"] for metric in directive["Metrics"]}
    assert names == {"loss", "grad_norm", "tokens_per_second", "mfu", "nonfinite_loss"}
    assert names <= set(tm.TRAINER_METRICS)
    assert (document["loss"], document["grad_norm"], document["tokens_per_second"], document["mfu"]) == \
        (2.5, 0.75, 51234.5, 0.41)
    assert document["nonfinite_loss"] == 0 and document["step"] == 100
    assert "tokens_per_s" not in document and "lr" not in document  # lr is not in the contract
    units = {metric["Name"]: metric["Unit"] for metric in directive["Metrics"]}
    assert units["tokens_per_second"] == "Count/Second" and units["nonfinite_loss"] == "Count"


def test_an_eval_record_carries_eval_loss_and_other_events_carry_no_metrics() -> None:
    document = emf_document({"event": "eval", "step": 200, "eval_loss": 2.1, "eval_perplexity": 8.17,
                             "eval_tokens": 4096}, "ns", "job", now=10.0)
    assert validate_emf(document) == []
    assert {m["Name"] for m in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]} == {"eval_loss", "nonfinite_loss"}
    assert document["eval_loss"] == 2.1 and document["_aws"]["Timestamp"] == 10000
    # A spike repeats the step's loss (it would count twice); resumed and diverged records carry none.
    assert emf_document({"event": "loss_spike", "step": 5, "loss": 9.0, "recent_mean": 2.0, "factor": 4.5},
                        "ns", "job") is None
    assert emf_document({"event": "resumed", "step": 5, "samples_consumed": 10}, "ns", "job") is None
    assert emf_document({"step": 5, "samples_consumed": 10}, "ns", "job") is None


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_non_finite_loss_is_dropped_and_counted(bad: float) -> None:
    document = emf_document({**STEP_RECORD, "loss": bad, "grad_norm": bad}, "ns", "job", now=1.0)
    assert validate_emf(document) == []
    # Strict JSON: the document serialises without NaN/Infinity.
    line = json.dumps(document, allow_nan=False)
    assert "loss" not in {m["Name"] for m in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert "loss" not in document and "grad_norm" not in document
    assert document["nonfinite_loss"] == 1 and document["tokens_per_second"] == 51234.5
    assert json.loads(line)["nonfinite_loss"] == 1


def test_a_diverged_step_with_no_finite_metric_still_reports_the_count() -> None:
    document = emf_document({"step": 7, "loss": float("nan")}, "ns", "job", now=1.0)
    assert validate_emf(document) == []
    assert [m["Name"] for m in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == ["nonfinite_loss"]
    assert document["nonfinite_loss"] == 1
    # A non-finite throughput is dropped but is not a diverged loss.
    assert emf_document({"step": 7, "loss": 1.0, "tokens_per_s": float("inf")}, "ns", "job")["nonfinite_loss"] == 0


def test_job_identity_reads_the_pod_and_falls_back_to_unknown(tmp_path: Path) -> None:
    namespace_file = tmp_path / "namespace"
    namespace_file.write_text("team-b\n")
    assert job_identity("run-1", env={}, namespace_file=namespace_file) == ("team-b", "run-1")
    assert job_identity(None, env={"POD_NAMESPACE": "team-c", "JOB_NAME": "run-2"},
                        namespace_file=namespace_file) == ("team-c", "run-2")
    assert job_identity("flag-wins", env={"JOB_NAME": "env"}, namespace_file=namespace_file)[1] == "flag-wins"
    # Outside a pod: no variables, no service account file. A clear value, no crash.
    assert job_identity(None, env={}, namespace_file=tmp_path / "absent") == (UNKNOWN, UNKNOWN) == ("unknown",) * 2
    assert job_identity("  ", env={"POD_NAMESPACE": " "}, namespace_file=tmp_path / "absent") == (UNKNOWN, UNKNOWN)


def test_the_stdout_sink_writes_one_valid_emf_line_per_metric_record() -> None:
    stream = io.StringIO()
    sink = EmfSink("ns", "job", stream=stream, log_group=tm.metrics_log_group_name("prod"))
    for record in ({**STEP_RECORD, "step": 10}, {"event": "loss_spike", "step": 10, "loss": 9.0},
                   {**STEP_RECORD, "step": 20, "loss": float("nan")}, {"event": "eval", "step": 20, "eval_loss": 2.0}):
        sink.write(record)
    sink.close()
    documents = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [d["step"] for d in documents] == [10, 20, 20]
    assert all(validate_emf(d) == [] for d in documents)
    assert [d["nonfinite_loss"] for d in documents] == [0, 1, 0]
    assert {d["_aws"]["LogGroupName"] for d in documents} == {"/eks-training/prod/training-metrics"}


def _listen_tcp() -> tuple[socket.socket, list[bytes], threading.Event, threading.Thread]:
    """A TCP listener that reads two lines from its first connection, then drops it (as a restarting agent does),
    then reads its second connection until the client closes it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []
    dropped = threading.Event()

    def serve() -> None:
        for lines_wanted in (2, None):
            connection, _ = server.accept()
            with connection:
                data = b""
                while chunk := connection.recv(65536):
                    data += chunk
                    if lines_wanted and data.count(b"\n") >= lines_wanted:
                        break
                received.append(data)
            dropped.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server, received, dropped, thread


def test_the_agent_sink_sends_newline_delimited_emf_over_tcp_and_reconnects() -> None:
    server, received, dropped, thread = _listen_tcp()
    port = server.getsockname()[1]
    warnings = io.StringIO()
    sink = EmfSink("ns", "job", endpoint=f"tcp://127.0.0.1:{port}", warnings=warnings)
    sink.write({**STEP_RECORD, "step": 1})
    sink.write({**STEP_RECORD, "step": 2})
    assert dropped.wait(timeout=5)
    # The first send on a connection the peer closed can still succeed locally (TCP learns of the close from
    # the reply), so a record may be lost there; the ones after it must reach the new connection.
    for step in range(3, 8):
        sink.write({**STEP_RECORD, "step": step})
    sink.close()
    thread.join(timeout=5)
    server.close()
    assert len(received) == 2, received
    first = [json.loads(line) for line in received[0].decode().splitlines()]
    assert [d["step"] for d in first] == [1, 2]
    assert all(validate_emf(d) == [] for d in first)
    second = [json.loads(line) for line in received[1].decode().splitlines()]
    assert [d["step"] for d in second][-3:] == [5, 6, 7]
    assert all(validate_emf(d) == [] for d in second)
    assert warnings.getvalue() == ""


def test_the_agent_sink_sends_over_udp() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind(("127.0.0.1", 0))
        server.settimeout(5)
        sink = EmfSink("ns", "job", endpoint=f"udp://127.0.0.1:{server.getsockname()[1]}")
        sink.write({**STEP_RECORD, "step": 3})
        data, _ = server.recvfrom(65536)
        sink.close()
    assert data.endswith(b"\n")
    document = json.loads(data)
    assert validate_emf(document) == [] and document["step"] == 3


def test_an_unreachable_agent_warns_once_and_never_stops_training() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    warnings, stream = io.StringIO(), io.StringIO()
    sink = EmfSink("ns", "job", stream=stream, endpoint=f"tcp://127.0.0.1:{port}", warnings=warnings)
    for step in range(1, 4):
        sink.write({**STEP_RECORD, "step": step})
    sink.close()
    lines = warnings.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"warning: EMF endpoint tcp://127.0.0.1:{port} unreachable")
    assert len(stream.getvalue().splitlines()) == 3  # stdout lines go on regardless


@pytest.mark.parametrize("endpoint", ["http://agent:25888", "tcp://agent", "tcp://:25888", "tcp://agent:0",
                                      "tcp://agent:99999", "agent:25888", "udp://agent:port"])
def test_a_bad_endpoint_is_one_line_naming_the_flag(endpoint: str) -> None:
    with pytest.raises(ValueError) as caught:
        split_endpoint(endpoint)
    message = str(caught.value)
    assert "\n" not in message
    assert message == (f"--emf-endpoint={endpoint!r} is not allowed: tcp://HOST:PORT or udp://HOST:PORT, "
                       "e.g. tcp://cloudwatch-agent.amazon-cloudwatch:25888")


def test_the_contract_endpoint_parses() -> None:
    assert split_endpoint(tm.EMF_AGENT_ENDPOINT) == ("tcp", "cloudwatch-agent.amazon-cloudwatch", 25888)
    assert split_endpoint("udp://[::1]:25888") == ("udp", "::1", 25888)


def test_open_sinks_follows_the_settings() -> None:
    def settings(**values: Any) -> SimpleNamespace:
        return SimpleNamespace(**{"emf": False, "emf_endpoint": None, "tensorboard_dir": None, "job_name": None,
                                  **values})

    assert open_sinks(settings(), env={}) == []
    stream = io.StringIO()
    (sink,) = open_sinks(settings(emf=True, job_name="run-9"), stdout=stream,
                         env={"POD_NAMESPACE": "team-d", "CLUSTER_NAME": "staging"})
    sink.write(STEP_RECORD)
    document = json.loads(stream.getvalue())
    assert (document["Namespace"], document["Job"]) == ("team-d", "run-9")
    assert document["_aws"]["LogGroupName"] == "/eks-training/staging/training-metrics"
    # The endpoint alone sends to the agent and prints nothing.
    (agent_only,) = open_sinks(settings(emf_endpoint="udp://127.0.0.1:9"), env={}, stdout=stream)
    assert agent_only.stream is None and agent_only.agent is not None
    agent_only.close()


def _scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(folder))
    accumulator.Reload()
    return {tag: [(event.step, event.value) for event in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()["scalars"]}


def test_tensorboard_scalars_read_back_from_the_event_file(tmp_path: Path) -> None:
    folder = tmp_path / "tensorboard"
    sink = TensorBoardSink(folder)
    sink.write({"step": 10, "loss": 3.0, "lr": 1e-4, "grad_norm": 1.5, "tokens_per_s": 1000.0, "mfu": 0.25})
    sink.write({"event": "loss_spike", "step": 10, "loss": 99.0})  # not a point of the loss curve
    sink.write({"step": 20, "loss": 2.0, "lr": 2e-4, "grad_norm": float("nan"), "tokens_per_s": 1100.0,
                "mfu": None})
    sink.write({"event": "eval", "step": 20, "eval_loss": 2.25, "eval_perplexity": 9.49})
    sink.close()
    assert list(folder.glob("events.out.tfevents.*"))
    scalars = _scalars(folder)
    assert set(scalars) == {"train/loss", "train/lr", "train/grad_norm", "train/tokens_per_second", "train/mfu",
                            "eval/loss"}
    assert scalars["train/loss"] == [(10, 3.0), (20, 2.0)]
    assert scalars["train/tokens_per_second"] == [(10, 1000.0), (20, 1100.0)]
    assert scalars["train/grad_norm"] == [(10, 1.5)]  # the NaN is not a point
    assert scalars["train/mfu"] == [(10, 0.25)]
    assert scalars["eval/loss"] == [(20, 2.25)]
    assert [(s, pytest.approx(v)) for s, v in scalars["train/lr"]] == [(10, 1e-4), (20, 2e-4)]


def test_the_trainer_flags_open_the_sinks_and_the_metrics_logger_feeds_them(tmp_path: Path) -> None:
    from eks_training.training.config import parse_config
    from eks_training.training.metrics import MetricsLogger

    config = parse_config(["--data", "/d", "--emf", "true", "--job-name", "run-5",
                           "--emf-endpoint", "udp://127.0.0.1:25888"])
    assert (config.emf, config.job_name, config.emf_endpoint) == (True, "run-5", "udp://127.0.0.1:25888")
    defaults = parse_config(["--data", "/d"])
    assert (defaults.emf, defaults.emf_endpoint, defaults.tensorboard_dir, defaults.job_name) == (False, None, None, None)
    assert open_sinks(defaults) == []

    stdout, json_lines = io.StringIO(), io.StringIO()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as agent:
        agent.bind(("127.0.0.1", 0))
        agent.settimeout(5)
        config = parse_config(["--data", "/d", "--emf", "true", "--job-name", "run-5",
                               "--emf-endpoint", f"udp://127.0.0.1:{agent.getsockname()[1]}"])
        logger = MetricsLogger(json_lines, 100, sinks=open_sinks(config, stdout=stdout, env={"POD_NAMESPACE": "ns"}))
        logger.event(step=10, loss=float("nan"), lr=1e-4, grad_norm=2.0, tokens_per_s=900.0, mfu=None)
        sent = json.loads(agent.recvfrom(65536)[0])
        written = json_lines.getvalue()
        logger.close()
    # The JSON line keeps null for the NaN (strict JSON); EMF drops it from the metrics and counts it.
    (line,) = [json.loads(text) for text in written.splitlines()]
    assert line["loss"] is None and line["step"] == 10
    (printed,) = [json.loads(text) for text in stdout.getvalue().splitlines()]
    assert printed == sent
    assert validate_emf(printed) == []
    assert (printed["Namespace"], printed["Job"], printed["nonfinite_loss"]) == ("ns", "run-5", 1)
    assert printed["_aws"]["Timestamp"] == int(line["time"] * 1000)  # the JSON line's time, to the millisecond
    assert "loss" not in printed and printed["grad_norm"] == 2.0 and printed["tokens_per_second"] == 900.0


def test_the_metrics_logger_writes_tensorboard_from_the_flag(tmp_path: Path) -> None:
    from eks_training.training.config import parse_config
    from eks_training.training.metrics import MetricsLogger

    folder = tmp_path / "ckpt" / "tensorboard"
    config = parse_config(["--data", "/d", "--tensorboard-dir", str(folder)])
    logger = MetricsLogger(io.StringIO(), 100, sinks=open_sinks(config))
    logger.event(step=5, loss=4.0, lr=1e-3, grad_norm=1.0, tokens_per_s=10.0, mfu=0.5)
    logger.event(event="eval", step=5, eval_loss=4.5)
    logger.close()
    scalars = _scalars(folder)
    assert scalars["train/loss"] == [(5, 4.0)] and scalars["eval/loss"] == [(5, 4.5)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--emf-endpoint", "http://agent:25888"], "--emf-endpoint='http://agent:25888' is not allowed: "
                                                   "tcp://HOST:PORT or udp://HOST:PORT, e.g. "
                                                   "tcp://cloudwatch-agent.amazon-cloudwatch:25888"),
        (["--emf", "maybe"], "--emf='maybe' is not allowed: true or false"),
        (["--job-name", " "], "--job-name=' ' is not allowed: a job name"),
    ],
)
def test_bad_telemetry_flags_are_one_line(argv: list[str], message: str) -> None:
    from eks_training.training.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as caught:
        parse_config(["--data", "/d", *argv])
    assert str(caught.value) == message


def test_tensorboard_dir_without_the_package_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from eks_training.training.config import ConfigError, parse_config

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tensorboard" else real(name, *a))
    with pytest.raises(ConfigError) as caught:
        parse_config(["--data", "/d", "--tensorboard-dir", "/ckpt/tb"])
    assert str(caught.value) == ("--tensorboard-dir='/ckpt/tb' is not allowed: a folder path, with the tensorboard "
                                 "package installed (pip install tensorboard==2.21.0)")


def test_a_training_run_with_emf_prints_cloudwatch_records(token_data, tmp_path, capsys, monkeypatch):
    # End to end through train(): the flags reach the metrics logger, and rank 0's records go out as EMF too.
    from eks_training.training.config import parse_config
    from eks_training.training.device import select_runtime
    from eks_training.training.train import train
    from training_helpers import TINY_FLAGS

    monkeypatch.setenv("POD_NAMESPACE", "ai-research")
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "3", "--emf", "true",
                           "--job-name", "llm-run", "--metrics-file", str(tmp_path / "metrics.jsonl")])
    train(config, select_runtime("cpu", env={}))
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    step_records = [r for r in records if "loss" in r]
    assert [r["step"] for r in step_records] == [1, 2, 3]
    # The run's goodput record (training/goodput.py) goes out with the same labels.
    (goodput,) = [r for r in records if "goodput" in r]
    assert (goodput["Namespace"], goodput["Job"], goodput["step"]) == ("ai-research", "llm-run", 3)
    assert 0 < goodput["goodput"] < 1 and goodput["job_seconds"] > 0
    # Where the seconds went, one metric per category, adding up to the job's seconds (the dashboard's stack).
    split = [goodput[name] for name in tm.TIME_SPLIT_METRICS.values()]
    assert goodput["productive_seconds"] > 0 and goodput["startup_seconds"] > 0
    assert sum(split) == pytest.approx(goodput["job_seconds"], abs=0.01)
    for record in step_records:
        assert (record["Namespace"], record["Job"]) == ("ai-research", "llm-run")
        names = {m["Name"] for m in record["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
        assert {"loss", "tokens_per_second"} <= names and all(isinstance(record[n], (int, float)) for n in names)


def test_a_metrics_file_in_a_missing_folder_is_created_and_an_unusable_one_is_one_line(token_data, tmp_path):
    from eks_training.training.config import ConfigError, parse_config
    from eks_training.training.device import select_runtime
    from eks_training.training.train import train
    from training_helpers import TINY_FLAGS, read_records

    target = tmp_path / "runs" / "llm" / "metrics.jsonl"
    train(parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "3", "--metrics-file", str(target)]),
          select_runtime("cpu", env={}))
    assert [r["step"] for r in read_records(target) if "loss" in r] == [1, 2, 3]

    (tmp_path / "a-file").write_text("")
    bad = tmp_path / "a-file" / "metrics.jsonl"
    with pytest.raises(ConfigError) as raised:  # before the model is built: on every rank alike
        train(parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "3", "--metrics-file", str(bad)]),
              select_runtime("cpu", env={}))
    assert str(raised.value) == (f"--metrics-file='{bad}' is not allowed: a file path in a folder this process can "
                                 "create and write (File exists)")
