"""The trainer's own argv in a rendered command line, whatever starts it (the save-on-signal launcher, torchrun,
srun, mpirun, a Ray driver): the tokens after ``-m <trainer module>`` up to the end of that shell command."""

from __future__ import annotations

import re
import shlex

from eks_training.workloads.job_pods import TRAIN_MODULE
from eks_training.workloads.job_ray import RAY_TRAIN_MODULE

#: Shell operators that end the trainer's command on a line (an sbatch script's ``|| status=$?``).
_COMMAND_ENDS = {"&&", ";", "|", "||", "&"}
#: The Ray driver's own options, which the trainer's parser does not take.
_RAY_DRIVER_OPTION = re.compile(r"^--(num-workers|storage-path|run-name|resume-delay)=|^--use-gpu$")


def trainer_argv(line: str) -> list[str] | None:
    """The argv the trainer parses in ``line``; None where the line does not start the trainer."""
    if TRAIN_MODULE not in line and RAY_TRAIN_MODULE not in line:
        return None
    tokens = shlex.split(line)
    starts = [i + 2 for i, (flag, module) in enumerate(zip(tokens, tokens[1:]))
              if flag == "-m" and module in (TRAIN_MODULE, RAY_TRAIN_MODULE)]
    if not starts:
        return None
    argv = []
    for token in tokens[starts[0]:]:
        if token in _COMMAND_ENDS:
            break
        argv.append(token)
    if tokens[starts[0] - 1] == RAY_TRAIN_MODULE:
        argv = [a for a in argv if not _RAY_DRIVER_OPTION.match(a)]
    return argv
