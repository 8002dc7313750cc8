"""One error format for every input a user can get wrong, the checks that config, constructs, workloads and
training share, and the test for values CDK fills in at deploy time.

Every check raises :func:`invalid`'s one line, ``field=value is not allowed: what is allowed``, and lets a CDK
token through (its value is known only at deploy time). The config layer (``infra/config.py``) calls these same
checks, so a setting is held to one rule whether it comes from an environment file or a construct's props.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import date
from typing import Iterable

# How CDK writes an unresolved value into a string ("${Token[Ref::12]}") and into a number (a reserved double).
_STRING_TOKEN = re.compile(r"\$\{Token\[[^\]]+\]\}")
_NUMBER_TOKEN_MAGNITUDE = 1e289


class InvalidValue(ValueError):
    """A user-input error: ``str(err)`` is the one line; ``field``, ``value`` and ``allowed`` are its parts."""

    def __init__(self, field: str, value: object, allowed: str) -> None:
        super().__init__(f"{field}={value!r} is not allowed: {allowed}")
        self.field = field
        self.value = value
        self.allowed = allowed

    def __reduce__(self) -> tuple:
        # Rebuilt from its parts, not from the message, when pickled (errors that cross process boundaries).
        return type(self), (self.field, self.value, self.allowed)


def invalid(field: str, value: object, allowed: str) -> InvalidValue:
    """The project's one-line error: the field, the bad value and what is allowed."""
    return InvalidValue(field, value, allowed)


def is_token(value: object) -> bool:
    """Whether ``value`` holds a CDK token (known only at deploy time: checks must let it through)."""
    if isinstance(value, str):
        return bool(_STRING_TOKEN.search(value))
    if isinstance(value, float):
        return abs(value) > _NUMBER_TOKEN_MAGNITUDE
    return False


def check_one_of(field: str, value: object, allowed: Iterable[object]) -> object:
    """``value`` if it is one of ``allowed``, else the one-line error listing them."""
    choices = tuple(allowed)
    if is_token(value):
        return value
    if isinstance(value, bool) and not any(isinstance(c, bool) for c in choices) or value not in choices:
        raise invalid(field, value, f"use one of {', '.join(map(str, choices))}")
    return value


def check_whole_number(field: str, value: object, *, minimum: int, maximum: int | None = None, unit: str = "") -> int:
    """An ``int`` (not a bool) from ``minimum`` to ``maximum`` (no upper bound when None)."""
    if is_token(value):
        return value  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum is not None and value > maximum):
        span = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise invalid(field, value, f"use a whole number{' of ' + unit if unit else ''} {span}")
    return value


# --- names and ids AWS defines -------------------------------------------------------------------------------

#: A DNS label (RFC 1123): Kubernetes namespaces and most object names, and the platform's own names.
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_REGION = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$")
#: Written in a role ARN instead of the 12 digits: the account the stack deploys to (CloudFormation substitutes it).
DEPLOY_ACCOUNT = "${AWS::AccountId}"
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(\d{12}|\$\{AWS::AccountId\}):role/[\w+=,.@/-]{1,512}$")
_CAPACITY_RESERVATION = re.compile(r"^cr-[0-9a-f]{17}$")
_ADDON_VERSION = re.compile(r"^v\d+\.\d+\.\d+-eksbuild\.\d+$")
_METRICS_NAMESPACE = re.compile(r"^[A-Za-z0-9_./#:-]{1,255}$")

# S3 general purpose bucket naming rules:
# https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
_BUCKET_NAME_CHARS = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_RESERVED_BUCKET_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_RESERVED_BUCKET_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")
BUCKET_NAME_RULE = (
    "3-63 characters of lowercase letters, digits, '.' and '-', starting and ending with a letter or digit, "
    "no '..', not an IP address, no reserved prefix (xn--, sthree-, amzn-s3-demo-) or suffix "
    "(-s3alias, --ol-s3, .mrap, --x-s3, --table-s3)"
)

#: Days CloudWatch Logs can keep a log group (its retention values).
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922,
                      3288, 3653)
#: Minutes an idle-accelerator alarm may wait: one CloudWatch alarm period, which goes up to one day.
IDLE_MINUTES = (1, 1440)
#: Capacity a managed node group can be bought with.
NODE_GROUP_CAPACITY_TYPES = ("on-demand", "spot", "capacity-reservation", "capacity-block")
#: Capacity types that run on reserved capacity and so need its ``cr-`` id.
RESERVED_CAPACITY_TYPES = ("capacity-reservation", "capacity-block")
#: Who can reach the EKS API endpoint.
ENDPOINT_ACCESS = ("public", "private", "public_and_private")
#: Capacity a Karpenter NodePool can launch (its ``karpenter.sh/capacity-type`` values); "reserved" runs on
#: ODCRs or Capacity Blocks, like the managed node groups' :data:`RESERVED_CAPACITY_TYPES`, and needs their ``cr-`` ids.
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")


def check_endpoint_access(endpoint_access: object, public_access_cidrs: object) -> None:
    """Who reaches the API endpoint. A public-only endpoint cannot be narrowed to networks (EKS applies the CIDRs to
    the public endpoint, and aws-eks-v2 refuses ``PUBLIC.onlyFrom`` since nodes would lose the API), so networks
    need ``public_and_private``."""
    check_one_of("endpoint_access", endpoint_access, ENDPOINT_ACCESS)
    if endpoint_access == "public" and public_access_cidrs:
        raise invalid("endpoint_access", "public", "public_and_private to admit only public_access_cidrs (a public-only "
                      "endpoint cannot be restricted to networks), or private")


def covers_every_address(cidrs: Iterable[str]) -> bool:
    """Whether ``cidrs`` together admit every IPv4 address (0.0.0.0/0, or 0.0.0.0/1 with 128.0.0.0/1, ...)."""
    networks = [ipaddress.ip_network(c, strict=False) for c in cidrs if not is_token(c)]
    v4 = [n for n in networks if n.version == 4]
    return any(n.prefixlen == 0 for n in ipaddress.collapse_addresses(v4))


def check_dns_label(field: str, value: object) -> str:
    """A DNS label: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit."""
    if not is_token(value) and (not isinstance(value, str) or not DNS_LABEL.match(value)):
        raise invalid(field, value, "use 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit")
    return value  # type: ignore[return-value]


def check_bucket_name(field: str, value: object) -> str:
    """An S3 general purpose bucket name."""
    if is_token(value):
        return value  # type: ignore[return-value]
    broken = (
        not isinstance(value, str)
        or not _BUCKET_NAME_CHARS.match(value)
        or ".." in value
        or value.startswith(_RESERVED_BUCKET_PREFIXES)
        or value.endswith(_RESERVED_BUCKET_SUFFIXES)
        or _is_ip_address(value)
    )
    if broken:
        raise invalid(field, value, f"use an S3 bucket name: {BUCKET_NAME_RULE}")
    return value  # type: ignore[return-value]


def _is_ip_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def check_region(field: str, value: object) -> str:
    if not is_token(value) and (not isinstance(value, str) or not _REGION.match(value)):
        raise invalid(field, value, "use an AWS region name such as us-west-2")
    return value  # type: ignore[return-value]


def check_role_arn(field: str, value: object) -> str:
    if not is_token(value) and (not isinstance(value, str) or not _ROLE_ARN.match(value)):
        raise invalid(field, value, "use an IAM role ARN such as arn:aws:iam::123456789012:role/NAME (or "
                                    f"{DEPLOY_ACCOUNT} for the deploy account's id)")
    return value  # type: ignore[return-value]


def check_capacity_reservation_id(field: str, value: object) -> str:
    if not is_token(value) and (not isinstance(value, str) or not _CAPACITY_RESERVATION.match(value)):
        raise invalid(field, value, "use an ODCR or Capacity Block id such as cr-0123456789abcdef0")
    return value  # type: ignore[return-value]


def check_addon_version(field: str, value: object, *, latest: bool = False) -> str:
    """An EKS add-on version, ``vX.Y.Z-eksbuild.N`` (or ``latest`` where the caller resolves it at deploy time)."""
    if is_token(value) or (latest and value == "latest"):
        return value  # type: ignore[return-value]
    if not isinstance(value, str) or not _ADDON_VERSION.match(value):
        allowed = "'latest' or " if latest else ""
        raise invalid(field, value, f"use {allowed}an EKS add-on version vX.Y.Z-eksbuild.N, e.g. v1.19.0-eksbuild.1")
    return value


def check_metrics_namespace(field: str, value: object) -> str:
    """A CloudWatch metrics namespace of our own (the AWS/ prefix is CloudWatch's)."""
    if is_token(value):
        return value  # type: ignore[return-value]
    if not isinstance(value, str) or not _METRICS_NAMESPACE.match(value) or value.startswith("AWS/"):
        raise invalid(field, value, "use 1-255 letters, digits or '._-/#:', not starting with 'AWS/'")
    return value


def check_job_reference(field: str, value: object) -> str:
    """A training job named as ``namespace/job``, both DNS labels."""
    namespace, _, job = value.partition("/") if isinstance(value, str) else ("", "", "")
    if not (DNS_LABEL.match(namespace) and DNS_LABEL.match(job)):
        raise invalid(field, value, "use 'namespace/job', each 1-63 lowercase letters, digits or '-'")
    return value  # type: ignore[return-value]


#: EKS's quota of nodes in one managed node group (Amazon EKS service quotas: "Nodes per managed node group").
MAX_NODES_PER_NODE_GROUP = 450


def check_node_group_sizes(min_size: object, desired_size: object, max_size: object, *, smallest: int = 0) -> None:
    """A node group's sizes: whole numbers with ``smallest <= min_size <= desired_size <= max_size``, max from 1 to
    :data:`MAX_NODES_PER_NODE_GROUP`."""
    unit = f"nodes (EKS takes at most {MAX_NODES_PER_NODE_GROUP} per managed node group)"
    check_whole_number("min_size", min_size, minimum=smallest, maximum=MAX_NODES_PER_NODE_GROUP, unit=unit)
    check_whole_number("desired_size", desired_size, minimum=smallest, maximum=MAX_NODES_PER_NODE_GROUP, unit=unit)
    check_whole_number("max_size", max_size, minimum=max(smallest, 1), maximum=MAX_NODES_PER_NODE_GROUP, unit=unit)
    if any(is_token(v) for v in (min_size, desired_size, max_size)):
        return
    if min_size > max_size:  # type: ignore[operator]
        raise invalid("min_size", min_size, f"use at most max_size={max_size}")
    if not min_size <= desired_size <= max_size:  # type: ignore[operator]
        raise invalid("desired_size", desired_size, f"use from min_size={min_size} to max_size={max_size}")


def check_capacity_reservation(capacity_type: object, capacity_reservation_id: object) -> None:
    """A node group's capacity type, and the ``cr-`` id that reserved types need and the others must not have."""
    check_one_of("capacity_type", capacity_type, NODE_GROUP_CAPACITY_TYPES)
    reserved = capacity_type in RESERVED_CAPACITY_TYPES
    if reserved and capacity_reservation_id is None:
        raise invalid("capacity_reservation_id", None, f"capacity_type={capacity_type!r} needs the reservation's "
                                                       "cr- id, e.g. cr-0123456789abcdef0")
    if not reserved and capacity_reservation_id is not None:
        raise invalid("capacity_reservation_id", capacity_reservation_id,
                      f"only with capacity_type {' or '.join(RESERVED_CAPACITY_TYPES)} (not {capacity_type!r})")
    if capacity_reservation_id is not None:
        check_capacity_reservation_id("capacity_reservation_id", capacity_reservation_id)


def check_karpenter_capacity(capacity_types: object, capacity_reservation_ids: object = (), *,
                             prefix: str = "") -> None:
    """A Karpenter pool's capacity types (a non-empty list, each once) and the ``cr-`` ids that "reserved" needs
    and the other types must not have; the ids are held to :func:`check_capacity_reservation_id`."""
    types_field, ids_field = f"{prefix}capacity_types", f"{prefix}capacity_reservation_ids"
    if isinstance(capacity_types, str) or not isinstance(capacity_types, (list, tuple)) or not capacity_types:
        raise invalid(types_field, capacity_types,
                      f"use a non-empty list of {', '.join(KARPENTER_CAPACITY_TYPES)}")
    seen: set[object] = set()
    for index, capacity_type in enumerate(capacity_types):
        check_one_of(f"{types_field}[{index}]", capacity_type, KARPENTER_CAPACITY_TYPES)
        if capacity_type in seen:
            raise invalid(types_field, list(capacity_types), f"name each type once ({capacity_type!r} is given twice)")
        seen.add(capacity_type)
    if isinstance(capacity_reservation_ids, str) or not isinstance(capacity_reservation_ids, (list, tuple)):
        raise invalid(ids_field, capacity_reservation_ids, "use a list of cr- ids, e.g. ['cr-0123456789abcdef0']")
    for index, reservation in enumerate(capacity_reservation_ids):
        check_capacity_reservation_id(f"{ids_field}[{index}]", reservation)
    reserved = "reserved" in capacity_types
    if reserved and not capacity_reservation_ids:
        raise invalid(ids_field, list(capacity_reservation_ids), "capacity type 'reserved' needs the reservations' "
                                                                 "cr- ids, e.g. ['cr-0123456789abcdef0']")
    if not reserved and capacity_reservation_ids:
        raise invalid(ids_field, list(capacity_reservation_ids),
                      f"only with 'reserved' in capacity_types (not {list(capacity_types)})")


def check_addon_versions(field: str, versions: object) -> dict[str, str]:
    """Pins of the cluster's EKS add-ons: names from :data:`EKS_ADDON_VERSIONS`, each ``vX.Y.Z-eksbuild.N``.

    "latest" is refused: it writes no version into the template, so the add-on stays on the build EKS picked when it
    was created, and a Kubernetes upgrade leaves it behind.
    """
    from eks_training.core.versions import EKS_ADDON_VERSIONS

    if not isinstance(versions, dict):
        raise invalid(field, versions, "use a mapping of add-on names to versions")
    for name, version in versions.items():
        if name not in EKS_ADDON_VERSIONS:
            raise invalid(f"{field} key", name, f"use add-ons of {', '.join(EKS_ADDON_VERSIONS)}")
        if version == "latest":
            raise invalid(f"{field}[{name!r}]", version, "a build vX.Y.Z-eksbuild.N (latest pins nothing, so a "
                          "Kubernetes upgrade leaves the add-on behind), or leave the add-on out for the build "
                          "eks-training records for the cluster's version")
        check_addon_version(f"{field}[{name!r}]", version)
    return versions


def check_kubernetes_version(field: str, version: object, today: date) -> str:
    """A Kubernetes version we record (:data:`KUBERNETES_RELEASES`) that EKS still runs on ``today``."""
    from eks_training.core.versions import KUBERNETES_RELEASES, creatable_versions, refusal

    if not isinstance(version, str) or version not in KUBERNETES_RELEASES:
        raise invalid(field, version, f"use one of {', '.join(creatable_versions(today))}")
    reason = refusal(version, today)
    if reason:
        raise invalid(field, version, reason)
    return version


# A container image reference: [registry[:port]/]path/name, a tag, and optionally the digest of what the tag names.
_IMAGE_NAME = re.compile(r"^[a-z0-9][\w.-]*(:\d+)?(/[\w.-]+)+$")
_IMAGE_TAG = re.compile(r"^\w[\w.-]{0,127}$")
_IMAGE_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
PINNED_IMAGE_RULE = "use a pinned registry/name:tag (not :latest), or registry/name:tag@sha256:<64 hex> to fix the digest too"


def split_pinned_image(field: str, value: object) -> tuple[str, str]:
    """(name, tag) of a pinned image ``registry/name:tag`` or ``registry/name:tag@sha256:<64 hex>``.

    The digest stays with the tag (``tag@sha256:...``), so ``f"{name}:{tag}"`` is the whole reference again: that
    is how JupyterHub's chart (``singleuser.image.name`` and ``.tag``) and anything else that pulls ``name:tag``
    take it. A digest without a tag is refused, as those would pull ``name:sha256:...``, which is no reference.
    A name holding a CDK token (an image built at deploy time) passes; its tag is still checked.
    """
    if not isinstance(value, str):
        raise invalid(field, value, PINNED_IMAGE_RULE)
    reference, at, digest = value.partition("@")
    name, colon, tag = reference.rpartition(":")
    if not colon or "/" in tag:  # no tag (a colon before the last '/' is a registry port)
        name, tag = reference, ""
    if at and not tag:
        raise invalid(field, value, "put the tag in front of the digest, registry/name:tag@sha256:<64 hex> (images are "
                                    "pulled as name:tag, and a digest alone leaves no tag)")
    name_ok = bool(_IMAGE_NAME.match(name)) or is_token(name)
    digest_ok = not at or bool(_IMAGE_DIGEST.match(digest))
    if not (name_ok and _IMAGE_TAG.match(tag) and digest_ok) or tag == "latest":
        raise invalid(field, value, PINNED_IMAGE_RULE)
    return name, f"{tag}@{digest}" if at else tag


def check_pinned_image(field: str, value: object) -> str:
    """An image pinned as :func:`split_pinned_image` describes; returned unchanged."""
    split_pinned_image(field, value)
    return value  # type: ignore[return-value]


_HTTPS_URL = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?(/\S*)?$")
_OAUTH_CALLBACK_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(:\d+)?(/\S*)?/hub/oauth_callback$")


def check_oidc_sign_in(*, authorize_url: object, token_url: object, userdata_url: object, callback_url: object,
                       client_id: object, allowed_users: object, allowed_groups: object, prefix: str = "") -> None:
    """JupyterHub's OpenID Connect sign-in: the provider's https:// endpoints, the hub's callback, a client id and
    someone allowed in (an empty allow-list would let nobody, or with some authenticators everybody, sign in)."""
    for field, url in (("authorize_url", authorize_url), ("token_url", token_url), ("userdata_url", userdata_url)):
        if not is_token(url) and (not isinstance(url, str) or not _HTTPS_URL.match(url)):
            raise invalid(prefix + field, url, "use an https:// URL of your provider")
    if not is_token(callback_url) and (not isinstance(callback_url, str) or not _OAUTH_CALLBACK_URL.match(callback_url)):
        raise invalid(prefix + "callback_url", callback_url, "use the hub's http(s)://HOST/hub/oauth_callback URL")
    if not isinstance(client_id, str) or not client_id.strip():
        raise invalid(prefix + "client_id", client_id, "give the provider's app client id")
    if not allowed_users and not allowed_groups:
        raise invalid(prefix + "allowed_users", list(allowed_users or ()),  # type: ignore[call-overload]
                      "name who may sign in: at least one user, or a group in allowed_groups")


_ACM_CERTIFICATE_ARN = re.compile(
    r"^arn:aws(-cn|-us-gov)?:acm:([a-z]{2}(-[a-z]+)+-\d):(\d{12}):certificate/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$")


def check_certificate_arn(field: str, value: object, *, region: str | None = None) -> str:
    """An ACM certificate's ARN; in ``region`` when given (a load balancer takes only its own region's certificates,
    which AWS would say an hour into the deploy)."""
    if is_token(value):
        return value  # type: ignore[return-value]
    match = _ACM_CERTIFICATE_ARN.match(value) if isinstance(value, str) else None
    if not match:
        raise invalid(field, value, "use an ACM certificate ARN such as "
                                    "arn:aws:acm:us-west-2:123456789012:certificate/<uuid>")
    if region is not None and not is_token(region) and match.group(2) != region:
        raise invalid(field, value, f"a certificate of region {region}, where the load balancer is (ACM certificates "
                                    "are regional)")
    return value  # type: ignore[return-value]


def check_client_cidrs(field: str, value: object) -> tuple[str, ...]:
    """The IPv4 networks a load balancer admits: one or more, host bits zero, none admitting every address."""
    cidrs = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, (list, tuple)) else None
    if not cidrs:
        raise invalid(field, value, "name one or more client networks, e.g. ['10.8.0.0/16'] (your VPN)")
    for i, cidr in enumerate(cidrs):
        try:
            network = ipaddress.ip_network(cidr, strict=True) if isinstance(cidr, str) else None
        except ValueError:
            network = None
        if network is None or network.version != 4:
            raise invalid(f"{field}[{i}]", cidr, "use an IPv4 network such as 10.8.0.0/16 (host bits zero)")
    if covers_every_address(cidrs):
        raise invalid(field, list(cidrs), "private client networks: together these admit every address, "
                                          "and the load balancer is for your networks only")
    return cidrs


def check_vpc_cidr(field: str, value: object) -> str:
    """The VPC's private IPv4 range, /16 to /24 (room for the public, private and training subnets)."""
    if is_token(value):
        return value  # type: ignore[return-value]
    try:
        network = ipaddress.ip_network(value, strict=True)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise invalid(field, value, "use an IPv4 network such as 10.0.0.0/16 (host bits zero)") from None
    if network.version != 4 or not 16 <= network.prefixlen <= 24:
        raise invalid(field, value, "use an IPv4 network with a prefix from /16 to /24")
    if not network.is_private:
        raise invalid(field, value, "use a private range (RFC 1918), e.g. 10.0.0.0/16")
    return value  # type: ignore[return-value]


def check_zones(availability_zones: object, training_az: object) -> list[str]:
    """At least two distinct Availability Zones (EKS needs two), one of them the training zone."""
    zones = [availability_zones] if isinstance(availability_zones, str) else list(availability_zones)  # type: ignore[call-overload]
    if len(zones) < 2:
        raise invalid("availability_zones", zones, "name at least 2 zones (EKS needs two)")
    if len(set(zones)) != len(zones):
        raise invalid("availability_zones", zones, "name each zone once")
    if training_az not in zones:
        raise invalid("training_az", training_az, f"use one of availability_zones {zones}")
    return zones
