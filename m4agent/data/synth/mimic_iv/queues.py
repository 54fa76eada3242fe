"""Chart and lab rows collected from several domains, then written as one block.

A stay's chartevents come from the vitals, GCS, respiratory, weight, chart-error and CRRT domains, a
patient's labevents from its ward labs, ICU labs and blood gases. Collecting them first makes
one buffer append per block, with the caregivers, store times and labevent ids drawn once for
the block: a chart queue lives for one stay, a lab queue for one patient. When a queue is
flushed is part of the random stream's order, so ``patients.py`` decides it.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv import clock
from m4agent.data.synth.mimic_iv.context import MIN, IcuStay, Patient

_CHART_COLUMNS = ("charttime", "itemid", "valuenum", "value", "valueuom")
_LAB_COLUMNS = ("itemid", "valuenum", "value", "hadm_id", "specimen_id", "charttime", "priority")
_LAB_IDS = np.array(sorted(cat.LAB_UNITS), dtype=np.int64)
_LAB_UOM = np.array([cat.LAB_UNITS[i][0] for i in _LAB_IDS], dtype=object)
_LAB_LOWER = np.array([np.nan if cat.LAB_UNITS[i][1] is None else cat.LAB_UNITS[i][1] for i in _LAB_IDS])
_LAB_UPPER = np.array([np.nan if cat.LAB_UNITS[i][2] is None else cat.LAB_UNITS[i][2] for i in _LAB_IDS])


class ChartQueue:
    """The chartevents of one ICU stay."""

    def __init__(self, patient: Patient, st: IcuStay) -> None:
        self.patient = patient
        self.stay = st
        self._columns: dict[str, list] = {k: [] for k in _CHART_COLUMNS}

    def add(self, itemid: int, times: np.ndarray, valuenum: np.ndarray | float | None = None,
            value: np.ndarray | str | None = None, uom: str | None = None) -> None:
        """Queue chart rows of one item at ``times`` (a scalar value is charted at every time)."""
        times = np.asarray(times, dtype=np.int64)
        n = times.size
        if n == 0:
            return
        q = self._columns
        q["charttime"].append(times)
        q["itemid"].append(np.full(n, itemid, dtype=np.int64))
        q["valuenum"].append(np.full(n, np.nan) if valuenum is None else np.broadcast_to(np.asarray(valuenum, dtype=float), n))
        q["value"].append(np.full(n, None, dtype=object) if value is None else np.broadcast_to(np.asarray(value, dtype=object), n))
        q["valueuom"].append(np.full(n, uom, dtype=object))

    def flush(self) -> None:
        """Write the queued rows to chartevents, with their caregivers and store times."""
        q, st, rng = self._columns, self.stay, self.patient.rng
        if q["charttime"]:
            times = np.concatenate(q["charttime"])
            n = times.size
            self.patient.tables["chartevents"].add(
                n, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
                caregiver_id=rng.integers(10000, 99999, n), charttime=times,
                storetime=times + rng.integers(1, 90, n) * MIN, itemid=np.concatenate(q["itemid"]),
                value=np.concatenate(q["value"]), valuenum=np.concatenate(q["valuenum"]),
                valueuom=np.concatenate(q["valueuom"]), warning=0)
        self._columns = {k: [] for k in _CHART_COLUMNS}


class LabQueue:
    """The labevents of one patient; specimens are numbered as they are queued, results when written."""

    def __init__(self, patient: Patient) -> None:
        self.patient = patient
        self._columns: dict[str, list] = {k: [] for k in _LAB_COLUMNS}

    def panel(self, hadm_id: int | None, t: int, items: list[int], values: list[float | None],
              texts: list[str | None] | None = None, priority: str = "STAT") -> None:
        """Queue one specimen's results (None = not reported)."""
        vals = np.array([[np.nan if v is None else v for v in values]], dtype=float)
        self.series(hadm_id, np.array([t], dtype=np.int64), items, vals, texts, priority)

    def series(self, hadm_id: int | None, times: np.ndarray, items: list[int], values: np.ndarray,
               texts: list[str | None] | None = None, priority: str = "STAT") -> None:
        """Queue one specimen per time with the same items; ``values`` is (times x items), NaN = not drawn."""
        k, m = values.shape
        if k == 0 or m == 0:
            return
        flat = values.ravel()
        keep = ~np.isnan(flat)
        if texts is not None:
            keep |= np.tile(np.array([x is not None for x in texts]), k)
        first = self.patient.next_id("specimen_id", k)
        q = self._columns
        q["itemid"].append(np.tile(np.asarray(items, dtype=np.int64), k)[keep])
        q["valuenum"].append(flat[keep])
        q["value"].append(np.tile(np.array(texts if texts is not None else [None] * m, dtype=object), k)[keep])
        q["hadm_id"].append(np.full(int(keep.sum()), np.nan if hadm_id is None else float(hadm_id)))
        specimens = np.array([clock.specimen_id(n) for n in range(first, first + k)], dtype=np.int64)
        q["specimen_id"].append(np.repeat(specimens, m)[keep])
        q["charttime"].append(np.repeat(np.asarray(times, dtype=np.int64), m)[keep])
        q["priority"].append(np.full(int(keep.sum()), priority, dtype=object))

    def flush(self) -> None:
        """Write the queued results to labevents, with units, reference ranges, flags and store times."""
        q, patient = self._columns, self.patient
        if q["itemid"]:
            itemid = np.concatenate(q["itemid"])
            n = itemid.size
            valuenum = np.concatenate(q["valuenum"])
            idx = np.searchsorted(_LAB_IDS, itemid).clip(0, _LAB_IDS.size - 1)
            known = _LAB_IDS[idx] == itemid
            lower = np.where(known, _LAB_LOWER[idx], np.nan)
            upper = np.where(known, _LAB_UPPER[idx], np.nan)
            flag = np.where((valuenum < lower) | (valuenum > upper), "abnormal", None).astype(object)
            charttime = np.concatenate(q["charttime"])
            first = patient.next_id("labevent_id", n)
            patient.tables["labevents"].add(
                n, labevent_id=np.arange(first, first + n), subject_id=patient.subject_id,
                hadm_id=np.concatenate(q["hadm_id"]), specimen_id=np.concatenate(q["specimen_id"]),
                itemid=itemid, charttime=charttime, storetime=charttime + patient.rng.integers(20, 180, n) * MIN,
                value=np.concatenate(q["value"]), valuenum=valuenum,
                valueuom=np.where(known, _LAB_UOM[idx], None).astype(object), ref_range_lower=lower,
                ref_range_upper=upper, flag=flag, priority=np.concatenate(q["priority"]))
        self._columns = {k: [] for k in _LAB_COLUMNS}
