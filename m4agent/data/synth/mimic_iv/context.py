"""What the clinical domains of one synthetic patient share: time units, identifiers, the patient.

Every row of a patient comes from one random stream drawn in a fixed order (``patients.py``
calls the domains of ``domains/`` one after another), so a domain may read only what is handed
to it: the ``Patient`` (its stream, scenario, identity, the table buffers and the running ids)
and the ``Admission`` or ``IcuStay`` it writes about. Nothing a domain keeps for itself is read
by another one, which is what lets each domain be read and changed alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from m4agent.data.synth.mimic_iv.buffers import TableBuffer
from m4agent.data.synth.mimic_iv.scenarios import Scenario

MIN = 60_000_000  # microseconds: every event is drawn on a minute clock
HOUR = 60 * MIN
DAY = 24 * HOUR

# each patient owns a block of each id range, so its ids depend on its index, not on the rows before it
SUBJECT_RANGE = (10000032, 19999987)
HADM_RANGE = (20000019, 29999928)
TRANSFER_RANGE = (30000153, 39999810)
HADM_SLOTS = 4  # admissions per patient at most
TRANSFER_SLOTS = 16  # transfers per patient at most


def midnight(t: int) -> int:
    return t - t % DAY


@dataclass
class Counters:
    """Running ids shared by all chunks of one database (advanced in patient order)."""

    labevent_id: int = 1
    specimen_id: int = 1000000
    microevent_id: int = 1
    micro_specimen_id: int = 1000000
    pharmacy_id: int = 1000000
    orderid: int = 1000000


@dataclass(frozen=True)
class IdBlocks:
    """The width of each patient's block of subject, admission and transfer ids in a database of n patients."""

    subject_step: int
    hadm_step: int
    transfer_step: int

    @classmethod
    def for_patients(cls, patients: int) -> IdBlocks:
        return cls(subject_step=(SUBJECT_RANGE[1] - SUBJECT_RANGE[0]) // patients,
                   hadm_step=(HADM_RANGE[1] - HADM_RANGE[0]) // (patients * HADM_SLOTS),
                   transfer_step=(TRANSFER_RANGE[1] - TRANSFER_RANGE[0]) // (patients * TRANSFER_SLOTS))

    def subject_id(self, rng: np.random.Generator, index: int) -> int:
        return _draw_id(rng, SUBJECT_RANGE[0], self.subject_step, index)


def _draw_id(rng: np.random.Generator, lo: int, step: int, slot: int) -> int:
    return lo + slot * step + int(rng.integers(0, max(step, 1)))


@dataclass
class IcuStay:
    subject_id: int
    hadm_id: int
    stay_id: int
    intime: int
    outtime: int
    careunit: str
    first: bool  # first ICU stay of the index admission: organ levels are planted here
    weight: float
    levels: dict[str, int] = field(default_factory=dict)
    vent_until: int = 0  # invasive ventilation end (0 = none)
    # seconds past intime's and outtime's minute in the recorded stay (icustays, transfers);
    # every event is drawn on the minute clock of intime and outtime (clock.py)
    in_seconds: int = 0
    out_seconds: int = 0

    @property
    def recorded_intime(self) -> int:
        return self.intime + self.in_seconds

    @property
    def recorded_outtime(self) -> int:
        return self.outtime + self.out_seconds


@dataclass(frozen=True)
class Admission:
    """One hospital admission as the domains after ``stays.admit`` read it."""

    hadm_id: int
    admittime: int
    dischtime: int
    elective: bool
    stays: list[IcuStay]


@dataclass
class Patient:
    """The patient being generated: its random stream, scenario, identity, and where its rows go."""

    rng: np.random.Generator
    index: int
    scen: Scenario
    grade: int
    variant: int  # picks among equivalent options (care unit, insurance, item variants, ...)
    subject_id: int
    icd_version: int
    blocks: IdBlocks
    tables: dict[str, TableBuffer]
    counters: Counters
    transfers_numbered: int = field(default=0, init=False)

    def minutes(self, lo: float, hi: float) -> int:
        """A duration of a whole number of minutes between ``lo`` and ``hi``."""
        return int(self.rng.uniform(lo, hi)) * MIN

    def next_id(self, name: str, n: int = 1) -> int:
        """The first of ``n`` running ids of the counter ``name`` (database-wide, in patient order)."""
        first = getattr(self.counters, name)
        setattr(self.counters, name, first + n)
        return first

    def hadm_id(self, slot: int) -> int:
        return _draw_id(self.rng, HADM_RANGE[0], self.blocks.hadm_step, self.index * HADM_SLOTS + slot)

    def transfer_id(self) -> int:
        """The next transfer id of the patient (across its admissions)."""
        slot = min(self.transfers_numbered, TRANSFER_SLOTS - 1)
        self.transfers_numbered += 1
        return _draw_id(self.rng, TRANSFER_RANGE[0], self.blocks.transfer_step, self.index * TRANSFER_SLOTS + slot)

    def grid(self, st: IcuStay, step_h: float, start_h: float = 0.0, end: int | None = None) -> np.ndarray:
        """Charting times every ``step_h`` hours from ``start_h`` after intime to ``end``, each 1-9 minutes late."""
        end = st.outtime if end is None else end
        start = st.intime + int(start_h * HOUR)
        n = max(int((end - start) // int(step_h * HOUR)), 0) + 1
        t = start + np.arange(n, dtype=np.int64) * int(step_h * HOUR) + self.rng.integers(1, 10, n) * MIN
        return t[t < end]
