"""Every user-input error has one format, built by ``core.validation.invalid``: ``field=value is not allowed: ...``.

Read from the source with `ast`: a ``ValueError`` (or the trainer's ``ConfigError``, or an ``error:`` line printed
by hand) whose literal text says "is not allowed", "is not a valid" or "is not an", or the trainer's old
"NAME: got VALUE; allowed: ...", or that writes a field and its value as ``f"NAME={value!r} ..."`` (the
"must be ..." and "is a ..." variants), is a hand-written copy of that format (or a second one) and fails here;
``invalid(field, value, allowed)`` passes. Command-line errors (``RenderError``'s ``--option: ...``) are not
ValueErrors and keep their own style.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from eks_training.core.validation import invalid

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("core", "constructs", "workloads", "infra", "training")
#: The generated CRD classes (`cdk8s import`): only generate.py and the package's __init__ there are ours.
GENERATED = REPO / "workloads" / "imports"
#: The one module that writes the format.
HOME = "core/validation.py"
PHRASES = ("is not allowed", "is not a valid", "is not an ", ": got ", "; allowed:")
#: What a hand-written field error is built with: the exceptions user input raises, and a printed ``error:`` line.
BUILDERS = ("ValueError", "ConfigError", "print")
#: The exceptions whose ``f"NAME={value!r} ..."`` text is a field error written by hand.
EXCEPTIONS = ("ValueError", "ConfigError")
# A field name (or its index, or a quoted key) right before '=': what precedes the value's repr in such a text.
_FIELD_EQUALS = re.compile(r"(^|[\w\])'-])=$")


def _literal_text(node: ast.expr) -> str:
    """The constant text of a string or f-string argument ("" when it is neither)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value for part in node.values if isinstance(part, ast.Constant) and isinstance(part.value, str))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_text(node.left) + _literal_text(node.right)
    if isinstance(node, ast.IfExp):  # either branch may be the message
        return _literal_text(node.body) + "\n" + _literal_text(node.orelse)
    return ""


def _writes_field_equals_value(node: ast.expr) -> bool:
    """Whether an f-string in ``node`` writes ``NAME={value!r}``: a field and its value, as invalid() does."""
    for joined in (n for n in ast.walk(node) if isinstance(n, ast.JoinedStr)):
        for text, value in zip(joined.values, joined.values[1:]):
            if (isinstance(text, ast.Constant) and isinstance(text.value, str) and _FIELD_EQUALS.search(text.value)
                    and isinstance(value, ast.FormattedValue) and value.conversion == ord("r")):
                return True
    return False


def hand_written_errors(source: str, filename: str = "<source>") -> list[int]:
    """Lines where one of BUILDERS is called with one of PHRASES in its first argument's literal text, or an
    exception of EXCEPTIONS with a text that writes ``NAME={value!r}``."""
    lines = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
            continue
        phrased = node.func.id in BUILDERS and any(phrase in _literal_text(node.args[0]) for phrase in PHRASES)
        if phrased or (node.func.id in EXCEPTIONS and _writes_field_equals_value(node.args[0])):
            lines.append(node.lineno)
    return sorted(lines)


def _violations() -> dict[str, list[int]]:
    found = {}
    for layer in LAYERS:
        for path in sorted((REPO / layer).rglob("*.py")):
            name = path.relative_to(REPO).as_posix()
            # The generated CRD classes below workloads/imports/ are cdk8s's code, not ours (as in test_layers).
            if "__pycache__" in path.parts or name == HOME or (path.is_relative_to(GENERATED) and path.parent != GENERATED):
                continue
            lines = hand_written_errors(path.read_text(encoding="utf-8"), name)
            if lines:
                found[name] = lines
    return found


def test_user_input_errors_go_through_invalid() -> None:
    assert _violations() == {}, "raise invalid(field, value, allowed) from eks_training.core.validation instead"


@pytest.mark.parametrize("source", [
    'raise ValueError(f"{field}={value!r} is not allowed: use {allowed}")',
    'raise ValueError("subnet=None is not allowed: give one")',
    'raise ValueError(f"{field}={value!r} is not a valid " f"{what}: use {allowed}")',
    'error = ValueError("x is not " + "allowed: y" if False else "name=1 is not a valid name")',
    'def f(v):\n    raise ValueError(f"name={v!r} " + "is not allowed: use a DNS label")',
    'raise ValueError(f"zone={zone!r} is not an availability zone name: use e.g. us-east-1a")',
    # The trainer's old format, from a ValueError, its ConfigError, or an error line printed by hand.
    'raise ValueError(f"--emf-endpoint: got {endpoint!r}; allowed: tcp://HOST:PORT")',
    'raise ConfigError(f"{flag}: needs the package {name!r};" " allowed: pip install it") from None',
    'def f(n):\n    print(f"error: --num-workers: got {n}; allowed: an integer >= 1", file=sys.stderr)',
    'return ConfigError(f"{name}: got {value!r}; allowed: {allowed}")',
    # A field and its value written by hand, whatever follows.
    'raise ValueError(f"{where} taints={self.taints!r} must be NodeTaint values")',
    'raise ValueError(f"sha256={sha256!r} is not a hex SHA-256 digest (64 characters 0-9a-f)")',
    'raise ValueError(f"{where} labels[{key!r}]={value!r} must be a string")',
    'raise ConfigError("setting " f"name={name!r} belongs to Kubernetes")',
    'raise ValueError(f"queue {name!r} {attribute}={value!r} must be a QueueResources")',
])
def test_the_rule_catches_a_hand_written_message(source: str) -> None:
    assert hand_written_errors(source) != []


@pytest.mark.parametrize("source", [
    'raise invalid("field", value, "use 1-63 lowercase letters")',
    'raise ValueError(f"cannot express {value!r} as a cdk-nag finding id")',
    'raise RenderError(f"--nodes: {nodes} is not allowed: 1 to 4 nodes")',
    'raise ConfigError(message)',
    'print(f"error: {invalid(\'--num-workers\', n, \'an integer >= 1\')}", file=sys.stderr)',
    'raise ValueError("plot needs the matplotlib package: pip install matplotlib==3.11.2")',
    'raise ValueError(f"cannot parse {text!r}: {reason}")',
    'raise ValueError(f"a == {b!r} never holds")',
    'log(f"retrying name={name!r}")',
])
def test_the_rule_lets_the_helper_and_other_errors_through(source: str) -> None:
    assert hand_written_errors(source) == []


def test_the_format_names_field_value_and_what_is_allowed() -> None:
    error = invalid("cluster.endpoint_access", "open", "use one of public, private")
    assert isinstance(error, ValueError)
    assert str(error) == "cluster.endpoint_access='open' is not allowed: use one of public, private"
    assert (error.field, error.value, error.allowed) == ("cluster.endpoint_access", "open", "use one of public, private")


def test_the_shared_checks_let_cdk_tokens_through_and_refuse_the_same_text_written_out() -> None:
    import aws_cdk as cdk

    from eks_training.core import validation as v

    name = cdk.Fn.join("-", ["acme", cdk.Aws.ACCOUNT_ID, "data"])  # known only at deploy time
    arn = cdk.Fn.sub("arn:aws:iam::${AWS::AccountId}:role/x")
    size = cdk.Token.as_number(cdk.Fn.ref("Size"))
    assert v.check_bucket_name("data_bucket_name", name) == name
    assert v.check_role_arn("admin_role_arns[0]", arn) == arn
    # Written into a config file: the deploy account's id, which CloudFormation substitutes.
    assert v.check_role_arn("admin_role_arns[0]", "arn:aws:iam::${AWS::AccountId}:role/x")
    assert v.check_whole_number("max_size", size, minimum=1) == size
    v.check_node_group_sizes(0, size, 4)
    for check, field, text in ((v.check_bucket_name, "data_bucket_name", "acme-${AWS::AccountId}-data"),
                               (v.check_role_arn, "admin_role_arns[0]", "role/x")):
        with pytest.raises(ValueError, match=rf"^{re.escape(field)}={re.escape(repr(text))} is not allowed: "):
            check(field, text)
