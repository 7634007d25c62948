"""Rule families; importing this package registers every rule (see doctor.rule.RULES)."""

from iolab.doctor.rules import (  # noqa: F401
    arrays,
    block,
    cpu,
    fs,
    hosts,
    invariants,
    iommu,
    kernel,
    lustre,
    md,
    memory,
    method,
    mitigations,
    nfs,
    numa,
    nvme,
    pcie,
    results,
    spdk,
    telemetry,
)
