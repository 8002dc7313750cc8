"""The training priorities: one ladder for the pods' PriorityClasses (Volcano, the scheduler) and for Kueue's
WorkloadPriorityClasses (which job a queue admits or preempts first). Plain data: the render command reads it
without loading cdk8s."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainingPriority:
    """A priority for training jobs: a PriorityClass (`priorityClassName` in pod templates) and a Kueue
    WorkloadPriorityClass (the `kueue.x-k8s.io/priority-class` label) of the same name and value."""

    name: str
    value: int
    preempts: bool
    description: str


# Far below the system classes (2,000,000,000+). Low-priority runs never preempt, so backfill cannot evict real work.
TRAINING_PRIORITIES = (
    TrainingPriority("training-high", 100000, True, "Urgent training runs: may preempt lower-priority training pods."),
    TrainingPriority("training-default", 10000, True, "Normal training runs: may preempt training-low pods."),
    TrainingPriority("training-low", 1000, False, "Backfill and experiments: never preempts, first to be preempted."),
)
DEFAULT_PRIORITY = "training-default"
