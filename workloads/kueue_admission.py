"""All-or-nothing admission of Kueue's jobs (its manager's ``waitForPodsReady``): what the Kueue add-on writes into
Kueue's Configuration and the environment file's ``services.kueue_gang_admission`` sets. Imports nothing heavy: the
config layer reads its defaults."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.validation import invalid


@dataclass(frozen=True)
class GangAdmission:
    """All-or-nothing admission (Kueue's ``waitForPodsReady``): an admitted job whose pods are not all Ready within
    ``timeout_minutes`` is evicted, gives its quota back and is requeued after an exponential backoff.

    * ``timeout_minutes``: admission to every pod Ready. Default: 15 (a cold start of a multi-node job is a node
      launch and join, a few minutes for an accelerated AMI, plus a pull of a training image of tens of GB; Kueue's
      own default, 30, holds a gang that can never start on its quota for half an hour at every try).
    * ``recovery_timeout_minutes``: for a running job that lost a pod, until its replacement is Ready (else the job
      is suspended and requeued, so it resumes from its checkpoint elsewhere). Default: 15, as a first start.
    * ``backoff_base_seconds`` / ``backoff_max_seconds``: the n-th requeue waits about base x 2^(n-1), at most max.
      Default: 60 and 1800 (1, 2, 4, 8, 16, then 30 minutes).
    * ``backoff_limit_count``: requeues before Kueue deactivates the job (``spec.active: false``, visible on its
      Workload) rather than let it take quota for a timeout out of every backoff for ever; None: never. Default: 6
      (7 tries over about 2.8 hours).

    ``blockAdmission`` stays false: true stops admission on every queue while any admitted job is not Ready, so one
    team's cold start would stall every other team for up to the timeout. Quotas never exceed what their node sources
    can hold (the config refuses more), so two gangs can only deadlock on capacity the cloud does not deliver, and
    the timeout frees both; requeuing by eviction time puts the evicted job behind those that waited meanwhile.
    """

    timeout_minutes: int = 15
    recovery_timeout_minutes: int = 15
    backoff_base_seconds: int = 60
    backoff_max_seconds: int = 1800
    backoff_limit_count: int | None = 6

    def __post_init__(self) -> None:
        for name in ("timeout_minutes", "recovery_timeout_minutes", "backoff_base_seconds", "backoff_max_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise invalid(f"GangAdmission.{name}", value, "a whole number of at least 1")
        if self.backoff_max_seconds < self.backoff_base_seconds:
            raise invalid("GangAdmission.backoff_max_seconds", self.backoff_max_seconds,
                          f"at least backoff_base_seconds ({self.backoff_base_seconds})")
        limit = self.backoff_limit_count
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise invalid("GangAdmission.backoff_limit_count", limit, "a whole number of at least 0, or None (never)")

    def wait_for_pods_ready(self) -> dict:
        """The ``waitForPodsReady`` block of Kueue's Configuration."""
        strategy: dict = {"timestamp": "Eviction", "backoffBaseSeconds": self.backoff_base_seconds,
                          "backoffMaxSeconds": self.backoff_max_seconds}
        if self.backoff_limit_count is not None:
            strategy["backoffLimitCount"] = self.backoff_limit_count
        return {"timeout": f"{self.timeout_minutes}m", "recoveryTimeout": f"{self.recovery_timeout_minutes}m",
                "blockAdmission": False, "requeuingStrategy": strategy}
