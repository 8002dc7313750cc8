"""An architecture diagram (PNG) of one environment, drawn from its synthesized template and config.

``python -m eks_training.infra.tools.diagram --env prod --out docs/architecture-prod.png`` reads
``cdk.out/EksTraining-prod.template.json`` (or synthesizes the app into a temporary folder when there is none)
and draws the VPC with its subnets per AZ, the cluster, node groups and Karpenter pools (EFA marked), FSx
and its S3 associations, EFS, the buckets and the operators. Drawing uses Pillow only (its built-in font):
no Graphviz binary, so ``make diagram`` works on a fresh machine. Beside the PNG it writes what it drew as JSON
(``architecture-prod.json``, :func:`facts`), which a test compares with the environment as it synthesizes today.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from PIL import Image, ImageDraw, ImageFont

from eks_training.core.versions import KUBERNETES_RELEASES
from eks_training.infra.config import ConfigError, PlatformConfig, load_environment
from eks_training.infra.tools.review import ReviewError, load_templates, summarize

WIDTH = 1800
_INK = (33, 37, 41)
_MUTED = (108, 117, 125)
_FILL = {"vpc": (235, 244, 255), "public": (220, 252, 231), "private": (224, 231, 255), "training": (255, 237, 213),
         "cluster": (255, 255, 255), "system node group": (241, 243, 245), "node group": (254, 226, 226),
         "karpenter pool": (237, 233, 254), "storage": (254, 249, 195), "bucket": (209, 250, 229),
         "operator": (229, 231, 235)}


@dataclass(frozen=True)
class Subnet:
    """A subnet as the template declares it."""

    kind: str  # public, private or training
    cidr: str
    zone: str


def subnets(templates: dict[str, dict[str, Any]]) -> list[Subnet]:
    """The VPC's subnets, kind from CDK's subnet-type tag or our training tag."""
    found = []
    for template in templates.values():
        for resource in template.get("Resources", {}).values():
            if resource.get("Type") != "AWS::EC2::Subnet":
                continue
            props = resource["Properties"]
            tags = {t["Key"]: t["Value"] for t in props.get("Tags", []) if isinstance(t.get("Value"), str)}
            kind = "training" if tags.get("eks-training/subnet") == "training" else tags.get("aws-cdk:subnet-type", "private").lower()
            found.append(Subnet(kind, str(props.get("CidrBlock", "?")), str(props.get("AvailabilityZone", "?"))))
    return sorted(found, key=lambda s: (s.zone, ["public", "private", "training"].index(s.kind)
                                        if s.kind in ("public", "private", "training") else 3))


class _Canvas:
    """Boxes, arrows and text on one white image."""

    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width, height), "white")
        self.draw = ImageDraw.Draw(self.image)
        self.fonts = {size: ImageFont.load_default(size=size) for size in (13, 15, 18, 26)}

    def box(self, xy: tuple[int, int, int, int], title: str, lines: Sequence[str] = (), *, fill: tuple[int, int, int],
            outline: tuple[int, int, int] = _INK, dashed: bool = False, title_size: int = 15) -> None:
        x0, y0, x1, y1 = xy
        self.draw.rounded_rectangle(xy, radius=8, fill=fill, outline=None if dashed else outline, width=2)
        if dashed:  # a configured item that the template does not hold
            for x in range(x0, x1, 12):
                self.draw.line((x, y0, min(x + 6, x1), y0), fill=_MUTED, width=2)
                self.draw.line((x, y1, min(x + 6, x1), y1), fill=_MUTED, width=2)
            for y in range(y0, y1, 12):
                self.draw.line((x0, y, x0, min(y + 6, y1)), fill=_MUTED, width=2)
                self.draw.line((x1, y, x1, min(y + 6, y1)), fill=_MUTED, width=2)
        self.draw.text((x0 + 10, y0 + 8), title, fill=_INK, font=self.fonts[title_size])
        for i, line in enumerate(lines):
            self.draw.text((x0 + 10, y0 + 14 + title_size + i * 17), line, fill=_MUTED if dashed else _INK,
                           font=self.fonts[13])

    def arrow(self, start: tuple[int, int], end: tuple[int, int], label: str = "") -> None:
        self.draw.line((*start, *end), fill=_INK, width=2)
        (sx, sy), (ex, ey) = start, end
        length = max(((ex - sx) ** 2 + (ey - sy) ** 2) ** 0.5, 1)
        ux, uy = (ex - sx) / length, (ey - sy) / length
        head = [(ex, ey), (ex - 12 * ux + 6 * uy, ey - 12 * uy - 6 * ux), (ex - 12 * ux - 6 * uy, ey - 12 * uy + 6 * ux)]
        self.draw.polygon(head, fill=_INK)
        if label:
            # On a white patch beside the line's middle, so line and label never cross.
            at = ((sx + ex) / 2 + 8, (sy + ey) / 2 - 8)
            self.draw.rectangle(self.draw.textbbox(at, label, font=self.fonts[13]), fill="white")
            self.draw.text(at, label, fill=_MUTED, font=self.fonts[13])

    def text(self, xy: tuple[int, int], text: str, size: int = 15, color: tuple[int, int, int] = _INK) -> None:
        self.draw.text(xy, text, fill=color, font=self.fonts[size])


def facts(templates: dict[str, dict[str, Any]], config: PlatformConfig) -> dict[str, Any]:
    """Everything the diagram draws, as plain data.

    ``make diagram`` writes it beside the PNG (``architecture-<env>.json``), so a test can hold the committed picture
    to what the environment synthesizes today without drawing it again. Nothing in it depends on the day it is made:
    the version is drawn with the day its standard support ends, and the cost at standard-support prices.
    """
    version = next((r["Properties"].get("Version") for t in templates.values() for r in t.get("Resources", {}).values()
                    if r.get("Type") == "AWS::EKS::Cluster"), "")
    release = KUBERNETES_RELEASES.get(version)
    summary = summarize(templates, config, today=release.end_of_standard_support if release else None)
    cost, storage = summary["cost"], summary["storage"]
    vpc_cidrs = [r["Properties"].get("CidrBlock") for t in templates.values()
                 for r in t.get("Resources", {}).values() if r.get("Type") == "AWS::EC2::VPC"]
    fsx = config.storage.fsx
    return {
        "environment": config.name, "region": config.region, "kubernetes_version": version,
        "standard_support_until": str(release.end_of_standard_support) if release else None,
        "resources_total": summary["resources_total"],
        "cost_per_hour": {"idle": round(cost["idle"]["per_hour"], 2), "full_scale": round(cost["full_scale"]["per_hour"], 2),
                          "full_scale_accelerators": cost["full_scale"]["accelerators"],
                          "prices_as_of": cost["prices_as_of"]},
        "vpc": {"cidr": (vpc_cidrs or [config.network.cidr])[0],
                "nat_gateways": summary["resources_by_type"].get("AWS::EC2::NatGateway", 0),
                "zones": list(config.availability_zones), "training_az": config.training_az,
                "subnets": [[s.zone, s.kind, s.cidr] for s in subnets(templates)]},
        "capacity": [{k: row[k] for k in ("kind", "name", "instance_types", "min_nodes", "max_nodes", "max_accelerators",
                                          "efa")} for row in summary["capacity"]],
        "operators": [f"{o['release']} {o['version']}" for o in summary["operators"]],
        "eks_addons": [f"{a['name']} {a['version']}" for a in summary["eks_addons"]],
        "storage": {
            "fsx": [f"{f['deployment_type']} {f['capacity_gib']} GiB, {f['per_unit_throughput'] or '-'} MB/s/TiB"
                    for f in storage["fsx"]],
            "fsx_configured": f"{fsx.deployment_type} {fsx.storage_capacity_gib} GiB" if fsx.enabled else None,
            "buckets": [{"id": b["id"], "name": str(b["name"])[:52]} for b in storage["buckets"]],
            "associations": [{"path": a["file_system_path"], "to": a.get("data_repository_path", "")}
                             for a in storage["fsx_s3_associations"]]
                            or [{"path": a.file_system_path, "to": ""} for a in fsx.data_repository_associations],
            "efs": len(storage["efs"]), "efs_configured": config.storage.efs.enabled,
        },
    }


def render(templates: dict[str, dict[str, Any]], config: PlatformConfig) -> Image.Image:
    """The diagram of one environment as a Pillow image."""
    return draw(facts(templates, config))


def draw(facts: dict[str, Any]) -> Image.Image:
    """The diagram of :func:`facts`."""
    rows = facts["capacity"]
    per_row, card_h = 3, 118
    cards_bottom = 375 + -(-len(rows) // per_row) * (card_h + 14)
    cluster_box = (50, 330, 1220, cards_bottom + 110)
    vpc_box = (30, 95, 1240, cluster_box[3] + 20)
    storage = facts["storage"]
    buckets = storage["buckets"] or [{"name": f"{kind} bucket (configured; not in this template)"}
                                     for kind in ("data", "checkpoints")]
    efs_y = 330 + len(buckets) * 95 + 20
    legend_y = efs_y + 110
    canvas = _Canvas(WIDTH, max(vpc_box[3] + 30, legend_y + 6 * 26 + 20))
    cost = facts["cost_per_hour"]
    canvas.text((30, 20), f"eks-training: {facts['environment']} ({facts['region']}), Kubernetes "
                          f"{facts['kubernetes_version']}, {facts['resources_total']} CloudFormation resources", 26)
    canvas.text((30, 58), f"idle ~{cost['idle']:.2f} USD/h, full scale ~{cost['full_scale']:.2f} USD/h "
                          f"({cost['full_scale_accelerators']} accelerators; on-demand list prices {cost['prices_as_of']})",
                15, _MUTED)

    # The VPC, one column per AZ with its subnets.
    vpc = facts["vpc"]
    canvas.box(vpc_box, f"VPC {vpc['cidr']}  (NAT gateways: {vpc['nat_gateways']})", fill=_FILL["vpc"], title_size=18)
    zones = vpc["zones"]
    column = (vpc_box[2] - vpc_box[0] - 40) // max(len(zones), 1)
    for i, zone in enumerate(zones):
        x0 = vpc_box[0] + 20 + i * column
        canvas.text((x0, 130), zone + ("  (training AZ)" if zone == vpc["training_az"] else ""), 15)
        for j, (_, kind, cidr) in enumerate(s for s in vpc["subnets"] if s[0] == zone):
            canvas.box((x0, 155 + j * 52, x0 + column - 20, 200 + j * 52), f"{kind} subnet {cidr}",
                       fill=_FILL.get(kind, _FILL["private"]), title_size=13)

    # The cluster and its capacity.
    support = f", standard support until {facts['standard_support_until']}" if facts["standard_support_until"] else ""
    canvas.box(cluster_box, f"EKS cluster eks-training-{facts['environment']} (Kubernetes {facts['kubernetes_version']}"
                            f"{support})", fill=_FILL["cluster"], title_size=18)
    card_w = (cluster_box[2] - cluster_box[0] - 40) // per_row
    for i, row in enumerate(rows):
        x0 = cluster_box[0] + 20 + (i % per_row) * card_w
        y0 = cluster_box[1] + 45 + (i // per_row) * (card_h + 14)
        lines = [", ".join(row["instance_types"]), f"nodes {row['min_nodes']}..{row['max_nodes']}",
                 f"max accelerators {row['max_accelerators']}" if row["max_accelerators"] else "controllers and operators"]
        if row["efa"]:
            lines.append(f"EFA, placement: {vpc['training_az']}")
        canvas.box((x0, y0, x0 + card_w - 14, y0 + card_h), f"{row['kind']}: {row['name']}", lines,
                   fill=_FILL[row["kind"]])

    # Operators along the bottom of the cluster.
    operators = facts["operators"]
    addons = [a.split(" ", 1)[0] for a in facts["eks_addons"]]
    per_line = max(1, -(-len(operators) // 2))  # two lines fit under the title
    operator_lines = ["   ".join(operators[i:i + per_line]) for i in range(0, len(operators), per_line)] or [
        "none in this template"]
    canvas.box((70, cards_bottom + 10, 1200, cards_bottom + 95), "operators (Helm)",
               [*operator_lines[:2], "EKS add-ons: " + ", ".join(addons)], fill=_FILL["operator"])

    # Storage to the right of the VPC; dashed where the config enables it but the template has none yet.
    x0, x1 = 1290, 1770
    canvas.text((x0, 100), "Storage", 18)
    fsx_missing = bool(storage["fsx_configured"]) and not storage["fsx"]
    canvas.box((x0, 135, x1, 245), "FSx for Lustre (training AZ)", storage["fsx"] or
               [storage["fsx_configured"] or "not configured", "configured; not in this template"],
               fill=_FILL["storage"], dashed=fsx_missing)
    for i, bucket in enumerate(buckets):
        y0 = 330 + i * 95
        canvas.box((x0 + 120, y0, x1, y0 + 70), "S3 bucket", [bucket["name"]], fill=_FILL["bucket"],
                   dashed=not storage["buckets"])
    for i, association in enumerate(storage["associations"][:len(buckets)]):
        # An association names its bucket by a token that holds the bucket's logical id.
        target = next((j for j, bucket in enumerate(buckets) if "id" in bucket and bucket["id"] in association["to"]), i)
        canvas.arrow((x0 + 60, 245), (x0 + 120, 330 + target * 95 + 35), association["path"])
    canvas.box((x0, efs_y, x1, efs_y + 75), "EFS model store", [f"{storage['efs']} file system(s)"
               if storage["efs"] else "configured; not in this template"], fill=_FILL["storage"],
               dashed=storage["efs_configured"] and not storage["efs"])
    canvas.arrow((x0, 190), (cluster_box[2], 400), "mount (988, 1018-1023)")
    canvas.arrow((x0, efs_y + 40), (cluster_box[2], 600), "NFS 2049")

    # Legend.
    for i, kind in enumerate(("public", "private", "training", "system node group", "node group", "karpenter pool")):
        canvas.box((1290, legend_y + i * 26, 1310, legend_y + i * 26 + 18), "", fill=_FILL[kind])
        canvas.text((1320, legend_y + i * 26), kind, 13)
    canvas.text((1500, legend_y), "dashed: configured, not", 13, _MUTED)
    canvas.text((1500, legend_y + 18), "yet in the template", 13, _MUTED)
    return canvas.image


def _templates_for(config: PlatformConfig, cdk_out: Path, workdir: Path) -> dict[str, dict[str, Any]]:
    """The synthesized templates from ``cdk_out``, or a fresh offline synth (no cdk-nag) into ``workdir``."""
    try:
        return load_templates(cdk_out, config.name)
    except ReviewError:
        import aws_cdk as cdk

        from eks_training.infra.app_builder import build_app

        # The feature flags `cdk synth` would read from the project's cdk.json, when run from its root.
        cdk_json = Path("cdk.json")
        context = json.loads(cdk_json.read_text()).get("context", {}) if cdk_json.is_file() else {}
        app = cdk.App(outdir=str(workdir), context={**context, "nag": "false"})
        build_app(app, config)
        app.synth()
        return load_templates(workdir, config.name)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--env NAME --out FILE.png [--cdk-out cdk.out]``; a mistake prints one line and exits 2."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.infra.tools.diagram", description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True, help="environment name (infra/environments/NAME.yaml)")
    parser.add_argument("--out", required=True, type=Path, help="the PNG file to write")
    parser.add_argument("--cdk-out", default=Path("cdk.out"), type=Path, help="where `cdk synth` wrote the templates")
    args = parser.parse_args(argv)
    if args.out.suffix.lower() != ".png":
        print(f"error: --out: '{args.out}' must be a .png file", file=sys.stderr)
        return 2
    try:
        config = load_environment(args.env)
        with tempfile.TemporaryDirectory(prefix="eks-training-diagram-") as workdir:
            drawn = facts(_templates_for(config, args.cdk_out, Path(workdir)), config)
        image = draw(drawn)
    except (ConfigError, ReviewError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    image.save(args.out, format="PNG", optimize=True)
    # What the picture shows, as data beside it: tests compare it with a fresh synth instead of drawing again.
    args.out.with_suffix(".json").write_text(json.dumps(drawn, indent=1) + "\n")
    print(f"wrote {args.out} ({image.width}x{image.height}) and {args.out.with_suffix('.json').name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
