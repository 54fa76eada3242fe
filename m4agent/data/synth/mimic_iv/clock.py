"""Where real MIMIC-IV times carry seconds, and what its identifiers look like.

MIMIC-IV records ICU stays (``icustays.intime``/``outtime``, the ``transfers`` rows they come
from) and services (``services.transfertime``) to the second, while charted, lab and output
events are at whole minutes (docs/data.md lists each column). The generator draws every event
on a minute clock; the stay's recorded admission and discharge, and the service changes, get
their seconds here, from the row's identifier (no random draw, so the other rows of a seed stay
as they were). Lab ``specimen_id`` values are 8-digit numbers in no particular order, as in
MIMIC-IV, so two specimens drawn together are not numbered in the order they were charted.
"""

from __future__ import annotations

SECOND = 1_000_000  # microseconds

_SPECIMEN_SPAN = 90_000_000  # 8-digit ids: 10,000,000 to 99,999,999
_SPECIMEN_STRIDE = 2_654_435_761  # coprime with the span, so the scramble is one-to-one


def stay_seconds(stay_id: int, closes_admission: bool) -> tuple[int, int]:
    """Seconds past the minute of an ICU stay's recorded intime and outtime (microseconds).

    One stay in six is admitted on the minute (from the ED, whose times are minutes); a stay
    that ends the admission (the patient dies in the ICU) leaves on the minute of the discharge.
    """
    intime = 0 if stay_id % 6 == 0 else (stay_id * 37) % 60
    outtime = 0 if closes_admission else (stay_id * 53 + 11) % 60
    return intime * SECOND, outtime * SECOND


def service_seconds(hadm_id: int) -> int:
    """Seconds (0 to 119, microseconds) from a time on the minute to the service change recorded with it."""
    return (hadm_id * 7919) % 120 * SECOND


def specimen_id(running: int) -> int:
    """The 8-digit specimen_id of the ``running``-th lab specimen (one-to-one, in no order)."""
    return 10_000_000 + (running * _SPECIMEN_STRIDE) % _SPECIMEN_SPAN
