"""Every row of our instance catalog agrees with the EC2 catalog that the moto package ships (AWS's own data)."""

from __future__ import annotations

import gzip
import json
import os

import moto
import pytest

from eks_training.core.catalog import INSTANCE_TYPES

EC2_CATALOG = json.load(gzip.open(os.path.join(os.path.dirname(moto.__file__), "ec2/resources/instance_types.json.gz")))
#: Where moto's data is known to disagree with AWS's published specification, and why we keep ours.
KNOWN_DISAGREEMENTS = {
    ("trn2.48xlarge", "accelerator_memory_gib"): "AWS specifies 96 GiB of HBM per Trainium2 device (1.5 TiB per "
                                                  "instance); moto's catalog reports 512 GiB per device",
}


def ec2_facts(instance_type: str) -> dict:
    row = EC2_CATALOG[instance_type]
    network = row["NetworkInfo"]
    gpus = row.get("GpuInfo", {}).get("Gpus", [])
    neuron = row.get("NeuronInfo", {}).get("NeuronDevices", [])
    device = (gpus or neuron)[0]
    memory_mib = device["MemoryInfo"]["SizeInMiB"]
    return {
        "accelerator": "nvidia" if gpus else "neuron",
        "accelerator_name": device["Name"],
        "accelerators": device["Count"],
        "accelerator_memory_gib": round(memory_mib / 1024, 2),
        "neuron_cores": device["Count"] * device["CoreInfo"]["Count"] if neuron else 0,
        "efa_interfaces": network.get("EfaInfo", {}).get("MaximumEfaInterfaces", 0),
        "network_cards": network["MaximumNetworkCards"],
        "vcpus": row["VCpuInfo"]["DefaultVCpus"],
        "memory_gib": row["MemoryInfo"]["SizeInMiB"] // 1024,
        "local_nvme_gb": row.get("InstanceStorageInfo", {}).get("TotalSizeInGB", 0),
    }


@pytest.mark.parametrize("instance_type", sorted(INSTANCE_TYPES))
def test_catalog_row_matches_ec2(instance_type):
    ours = INSTANCE_TYPES[instance_type]
    theirs = ec2_facts(instance_type)
    for field, expected in theirs.items():
        if (instance_type, field) in KNOWN_DISAGREEMENTS:
            assert getattr(ours, field) != expected, f"moto now agrees on {field}: drop the known disagreement"
            continue
        actual = getattr(ours, field)
        if isinstance(expected, float):
            assert actual == pytest.approx(expected, abs=0.01), (instance_type, field)
        else:
            assert actual == expected, (instance_type, field)


def test_efa_interfaces_match_the_design_card():
    assert {t: INSTANCE_TYPES[t].efa_interfaces for t in ("p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge",
                                                         "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge")} == {
        "p4d.24xlarge": 4, "p5.48xlarge": 32, "p5en.48xlarge": 16, "trn1.32xlarge": 8, "trn1n.32xlarge": 16,
        "trn2.48xlarge": 16}
