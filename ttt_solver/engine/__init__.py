"""The engine wing: what carries the solver's passes over the tiers, on one machine or many.

- :mod:`.engines`: what an engine is (:class:`Engine`) and the engine of one process
  (:class:`InProcess`); the Dask engine is :mod:`.engine_dask` (the ``[dask]`` extra, imported
  by name only where asked for).
- :mod:`.pipeline`: the one tier loop (:func:`run_tiers`) that the build's solve
  (:mod:`.solving`) and verify's proof (:mod:`ttt_solver.audit.proof_tasks`) drive.
- :mod:`.shuffle`: the exchange of images (or of rows, a tier of one range) between a tier's
  chunks and its ranges.
- :mod:`.scratch`: the scratch folder a build keeps its finished tiers in, and resumes from;
  :mod:`.storage`: where the tasks exchange their files.

What other packages use is exported here; they import these names from ``ttt_solver.engine``.
"""

from .engines import Engine, InProcess
from .pipeline import Tier, TierWork, run_tiers
from .scratch import (
    Scratch,
    append_column,
    first_at_least,
    open_scratch,
    read_into,
    read_range,
    read_slice,
    scratch_path,
)
from .shuffle import IMAGE_BYTES, Below, Exchange, Groups, below_bytes, write_exchange, write_images
from .solving import solve_tiers
from .storage import Storage

__all__ = [
    "IMAGE_BYTES", "Below", "Engine", "Exchange", "Groups", "InProcess", "Scratch", "Storage", "Tier", "TierWork", "append_column",
    "below_bytes", "first_at_least", "open_scratch", "read_into", "read_range", "read_slice", "run_tiers",
    "scratch_path", "solve_tiers",
    "write_exchange", "write_images",
]  # fmt: skip
