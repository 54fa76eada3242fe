"""Generate one synthetic MIMIC-IV patient: admissions, ICU stays and all their events.

Each patient is drawn from its own random generator ``default_rng([seed, i])``,
so its rows depend only on the seed and its index, never on chunking or on
other patients. Scenario-critical values (the SOFA level of a graded organ, the
KDIGO path, the ventilation statuses, the culture/antibiotic ordering) are
planted deterministically inside their band; the generator only jitters them
within it.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv import clock
from m4agent.data.synth.mimic_iv.buffers import TableBuffer
from m4agent.data.synth.mimic_iv.scenarios import organ_levels, scenario_for

MIN = 60_000_000
HOUR = 60 * MIN
DAY = 24 * HOUR

SUBJECT_RANGE = (10000032, 19999987)
HADM_RANGE = (20000019, 29999928)
TRANSFER_RANGE = (30000153, 39999810)
HADM_SLOTS = 4  # admissions per patient at most
TRANSFER_SLOTS = 16  # transfers per patient at most


def year_start(year: int) -> int:
    return (dt.date(year, 1, 1) - dt.date(1970, 1, 1)).days * DAY


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


# ---------------------------------------------------------------------------
# value bands per SOFA level
# ---------------------------------------------------------------------------
PF_BANDS = ((420, 520), (310, 390), (210, 290), (110, 190), (55, 95))
PLATELET_BANDS = ((160, 320), (105, 145), (55, 95), (22, 48), (5, 18))
BILI_BANDS = ((0.3, 1.1), (1.3, 1.9), (2.2, 5.8), (6.2, 11.5), (12.5, 25.0))
CREAT_BANDS = ((0.5, 1.1), (1.25, 1.9), (2.1, 3.4), (3.6, 4.9), (5.1, 8.0))
GCS_BANDS = ((15, 15), (13, 14), (10, 12), (6, 9), (3, 5))


class PatientFactory:
    """Turns patient indices into rows of every MIMIC-IV table."""

    def __init__(self, buffers: dict[str, TableBuffer], patients: int, seed: int, counters: Counters) -> None:
        self.b = buffers
        self.n_patients = max(patients, 1)
        self.seed = seed
        self.ids = counters
        self.subject_step = (SUBJECT_RANGE[1] - SUBJECT_RANGE[0]) // self.n_patients
        self.hadm_step = (HADM_RANGE[1] - HADM_RANGE[0]) // (self.n_patients * HADM_SLOTS)
        self.transfer_step = (TRANSFER_RANGE[1] - TRANSFER_RANGE[0]) // (self.n_patients * TRANSFER_SLOTS)
        self.icu_stays = 0

    # -- ids -----------------------------------------------------------------
    def _id(self, lo: int, step: int, slot: int) -> int:
        return lo + slot * step + int(self.rng.integers(0, max(step, 1)))

    def _next(self, name: str, n: int = 1) -> int:
        first = getattr(self.ids, name)
        setattr(self.ids, name, first + n)
        return first

    def _minutes(self, lo: float, hi: float) -> int:
        return int(self.rng.uniform(lo, hi)) * MIN

    # -- patient -------------------------------------------------------------
    def add_patient(self, index: int) -> None:
        self.rng = np.random.default_rng([self.seed, index])
        self.index = index
        scen, grade = scenario_for(index)
        self.scen, self.grade = scen, grade
        self.variant = int(self.rng.integers(0, 1000))
        self.transfer_slot = 0
        self.base_cr = 0.8
        self.lab_queue: dict[str, list] = {k: [] for k in _LAB_QUEUE}
        self.chart_queue: dict[str, list] = {k: [] for k in _CHART_QUEUE}
        rng = self.rng
        subject_id = self._id(SUBJECT_RANGE[0], self.subject_step, index)
        gender = "F" if rng.random() < 0.45 else "M"
        anchor_age = int(min(91, max(18, round(rng.normal(64, 16)))))
        if grade == 4 and scen.name in ("neuro", "aki_oliguria"):
            anchor_age = 91  # older than 89, shifted to 91 as MIMIC does
        if scen.name == "short_stay" and grade == 0:
            anchor_age = 19
        anchor_year = int(rng.integers(2110, 2200))
        group = cat.ANCHOR_YEAR_GROUPS[int(rng.integers(0, len(cat.ANCHOR_YEAR_GROUPS)))]
        self.icd_version = 9 if group in cat.ANCHOR_YEAR_GROUPS[:2] or (group == "2014 - 2016" and rng.random() < 0.5) else 10
        self.subject_id = subject_id
        self.gender = gender
        t = year_start(anchor_year) + int(rng.integers(0, 2 * 365)) * DAY + self._minutes(0, 1440)
        dod = None
        hadm_slot = 0
        if scen.prior_admission or (grade in (1, 3) and scen.name in ("elective_surgery", "liver_failure")):
            end = self.admission(t, hadm_slot, index_admission=False)
            hadm_slot += 1
            t = end + int(rng.integers(20, 120)) * DAY
        died = scen.name in ("sepsis_shock", "liver_failure") and grade == 4
        death = self.admission(t, hadm_slot, index_admission=True, dies=died)
        if died:
            dod = midnight(death)
        elif rng.random() < 0.1:
            dod = midnight(death + int(rng.integers(30, 900)) * DAY)
        self.b["patients"].add(1, subject_id=subject_id, gender=gender, anchor_age=anchor_age,
                               anchor_year=anchor_year, anchor_year_group=group, dod=dod)
        self._flush_labs()

    # -- admissions ----------------------------------------------------------
    def admission(self, admittime: int, slot: int, index_admission: bool, dies: bool = False) -> int:
        """Write one hospital admission; returns its discharge (or death) time."""
        rng, scen = self.rng, self.scen
        hadm_id = self._id(HADM_RANGE[0], self.hadm_step, self.index * HADM_SLOTS + slot)
        elective = scen.admission == "elective" and index_admission
        if elective:
            admission_type = "ELECTIVE" if self.grade != 2 else "SURGICAL SAME DAY ADMISSION"
            location = "PHYSICIAN REFERRAL"
            admittime = midnight(admittime) + 6 * HOUR + self._minutes(0, 90)
        else:
            admission_type = ("EW EMER.", "URGENT", "DIRECT EMER.", "OBSERVATION ADMIT", "EU OBSERVATION")[
                (self.index + slot) % 5]
            location = ("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL", "WALK-IN/SELF REFERRAL", "EMERGENCY ROOM",
                        "PHYSICIAN REFERRAL")[(self.index + slot) % 5]
        has_ed = location in ("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL") and not elective
        edregtime = admittime - self._minutes(120, 400) if has_ed else None
        transfers: list[tuple[int | None, str, str | None, int, int | None]] = []
        if has_ed:
            transfers.append((None, "ED", "Emergency Department", edregtime, admittime))
        stays: list[IcuStay] = []
        # an earlier admission is a ward stay, or (readmission scenario, grades 3-4) an ICU stay of its own
        n_icu = scen.icu_stays if index_admission else int(scen.name == "readmission" and self.grade >= 3)
        if n_icu:
            # pre-ICU length of stay covers every OASIS band: <10 min, <5 h, <24 h, <13 d, >13 d
            pre = (self._minutes(2, 9), self._minutes(60, 280), self._minutes(400, 1400),
                   int(rng.integers(2, 11)) * DAY + self._minutes(0, 600),
                   int(rng.integers(14, 20)) * DAY)[(self.index // 3 + slot) % 5]
            if elective:
                pre = self._minutes(240, 420)
            if scen.aki != "none":  # through the ED, so the outpatient creatinine is within 7 days
                pre = self._minutes(60, 280)
            if scen.name == "short_stay":
                pre = self._minutes(2, 9) if self.grade % 2 == 0 else self._minutes(60, 280)
            t = admittime + pre
            if pre > 30 * MIN:
                ward = "Surgery" if elective else cat.WARD_CAREUNITS[self.variant % len(cat.WARD_CAREUNITS)]
                transfers.append((None, "admit", "PACU" if elective else ward, admittime, t))
            for k in range(n_icu):
                los = rng.uniform(*scen.los_h) * HOUR if k == 0 else rng.uniform(20, 60) * HOUR
                los = int(los // MIN) * MIN
                careunit = self._careunit()
                transfer_id = self._transfer_id()
                first = k == 0 and index_admission
                stay = IcuStay(self.subject_id, hadm_id, transfer_id, t, t + los, careunit, first,
                               weight=round(float(np.clip(rng.normal(80, 18), 42, 180)), 1))
                stay.levels = organ_levels(scen, self.grade, self.variant) if first else organ_levels(scen, 0, 0)
                inpatient = [x for x in transfers if x[1] != "ED"]
                transfers.append((transfer_id, "transfer" if inpatient else "admit", careunit, t, t + los))
                stays.append(stay)
                t = t + los
                gap = int(rng.integers(1, 4)) * DAY + self._minutes(0, 600)
                ward = cat.WARD_CAREUNITS[(self.variant + k) % len(cat.WARD_CAREUNITS)]
                if dies and k == n_icu - 1:
                    gap = 0
                else:
                    transfers.append((None, "transfer", ward, t, t + gap))
                t = t + gap
            dischtime = t
            for k, stay in enumerate(stays):
                stay.in_seconds, stay.out_seconds = clock.stay_seconds(
                    stay.stay_id, closes_admission=dies and k == n_icu - 1)
            transfers = _record_stay_seconds(transfers, stays)
        else:
            dischtime = admittime + int(rng.integers(2, 7)) * DAY + self._minutes(0, 600)
            transfers.append((None, "admit", cat.WARD_CAREUNITS[self.variant % len(cat.WARD_CAREUNITS)],
                              admittime, dischtime))
        deathtime = dischtime if dies else None
        discharge_location = "DIED" if dies else ("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY", "REHAB",
                                                   "HOSPICE")[self.variant % 5]
        transfers.append((None, "discharge", None, dischtime, None))
        self.b["admissions"].add(
            1, subject_id=self.subject_id, hadm_id=hadm_id, admittime=admittime, dischtime=dischtime,
            deathtime=deathtime, admission_type=admission_type,
            admit_provider_id=f"P{10000 + self.variant * 7 % 89999:05d}"[:6],
            admission_location=location, discharge_location=discharge_location,
            insurance=("Medicare", "Private", "Medicaid", "Other")[self.variant % 4],
            language=("English", "English", "Spanish", "Chinese", "Other")[self.variant % 5],
            marital_status=("MARRIED", "SINGLE", "WIDOWED", "DIVORCED", None)[self.variant % 5],
            race=("WHITE", "BLACK/AFRICAN AMERICAN", "HISPANIC/LATINO - PUERTO RICAN", "ASIAN", "WHITE",
                  "OTHER", "UNKNOWN")[self.variant % 7],
            edregtime=edregtime, edouttime=admittime if has_ed else None,
            hospital_expire_flag=1 if dies else 0)
        for transfer_id, eventtype, careunit, intime, outtime in transfers:
            self.b["transfers"].add(
                1, subject_id=self.subject_id, hadm_id=hadm_id,
                transfer_id=transfer_id if transfer_id is not None else self._transfer_id(),
                eventtype=eventtype, careunit=careunit, intime=intime, outtime=outtime)
        self.services(hadm_id, admittime, stays, elective)
        self.diagnoses(hadm_id, index_admission)
        self.hospital_labs(hadm_id, admittime, dischtime, stays)
        if index_admission:
            self.infection(hadm_id, admittime, stays)
        self.other_prescriptions(hadm_id, admittime, dischtime)
        for stay in stays:
            self.icu_stay(stay)
        return dischtime

    def _careunit(self) -> str:
        name = self.scen.name
        if name in ("elective_surgery",):
            return cat.ICU_CAREUNITS[3] if self.grade % 2 else cat.ICU_CAREUNITS[1]
        if name == "neuro":
            return cat.ICU_CAREUNITS[5]
        if name == "cardiogenic":
            return cat.ICU_CAREUNITS[4]
        if name == "tracheostomy":
            return cat.ICU_CAREUNITS[6]
        return cat.ICU_CAREUNITS[(0, 2)[self.variant % 2]]

    def _transfer_id(self) -> int:
        slot = min(self.transfer_slot, TRANSFER_SLOTS - 1)
        self.transfer_slot += 1
        return self._id(TRANSFER_RANGE[0], self.transfer_step, self.index * TRANSFER_SLOTS + slot)

    def services(self, hadm_id: int, admittime: int, stays: list[IcuStay], elective: bool) -> None:
        scen, g = self.scen, self.grade
        first = scen.service
        if elective:
            first = ("SURG", "ORTHO", "CSURG", "VSURG", "NSURG")[g]  # ORTHO: surgical for OASIS, not SAPS-II
        elif scen.name == "tracheostomy":
            first = "MED" if g % 2 else "TSURG"  # unscheduled surgical when TSURG
        rows = [(admittime, None, first)]
        if stays and scen.name == "medical_general" and g == 3:
            rows.append((stays[0].intime + 2 * DAY, first, "SURG"))  # surgical only after day one
        for transfertime, prev, curr in rows:
            self.b["services"].add(1, subject_id=self.subject_id, hadm_id=hadm_id,
                                   transfertime=transfertime + clock.service_seconds(hadm_id),
                                   prev_service=prev, curr_service=curr)

    def diagnoses(self, hadm_id: int, index_admission: bool) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        v = 0 if self.icd_version == 9 else 1
        codes: list[str] = []
        themes = list(scen.themes) if index_admission else ["filler"]
        for theme in themes:
            options = cat.THEME_CODES[theme]
            codes.append(options[(self.variant + g) % len(options)][v])
        if scen.aki == "crrt" or (scen.name == "medical_general" and g >= 3):
            codes.append(cat.THEME_CODES["ckd_late"][0][v])  # CKD: baseline creatinine is the observed minimum
        if scen.name == "medical_general" and g == 4:
            codes.append(cat.THEME_CODES["hem_malignancy"][0][v])
        if scen.name == "liver_failure" and g == 4:
            codes.append(cat.CHARLSON_CODES["aids"][v])
        if scen.name in ("tracheostomy", "liver_failure") and g == 2:
            codes.append(cat.THEME_CODES["metastases"][0][v])
        comorbidities = list(cat.CHARLSON_CODES)
        for _ in range(int(rng.integers(0, 4))):
            codes.append(cat.CHARLSON_CODES[comorbidities[int(rng.integers(0, len(comorbidities)))]][v])
        for _ in range(int(rng.integers(1, 5))):
            filler = cat.THEME_CODES["filler"]
            codes.append(filler[int(rng.integers(0, len(filler)))][v])
        seen: list[str] = []
        for code in codes:
            if code not in seen:
                seen.append(code)
        n = len(seen)
        self.b["diagnoses_icd"].add(n, subject_id=self.subject_id, hadm_id=hadm_id,
                                    seq_num=np.arange(1, n + 1), icd_code=np.array(seen, dtype=object),
                                    icd_version=self.icd_version)

    # -- labs ----------------------------------------------------------------
    def _lab_panel(self, hadm_id: int | None, t: int, items: list[int], values: list[float | None],
                   texts: list[str | None] | None = None, priority: str = "STAT") -> None:
        """Queue one specimen's results; written per patient by ``_flush_labs``."""
        vals = np.array([[np.nan if v is None else v for v in values]], dtype=float)
        self._lab_series(hadm_id, np.array([t], dtype=np.int64), items, vals, texts, priority)

    def _lab_series(self, hadm_id: int | None, times: np.ndarray, items: list[int], values: np.ndarray,
                    texts: list[str | None] | None = None, priority: str = "STAT") -> None:
        """Queue one specimen per time with the same items; ``values`` is (times x items), NaN = not drawn."""
        k, m = values.shape
        if k == 0 or m == 0:
            return
        flat = values.ravel()
        keep = ~np.isnan(flat)
        if texts is not None:
            keep |= np.tile(np.array([x is not None for x in texts]), k)
        first = self._next("specimen_id", k)
        q = self.lab_queue
        q["itemid"].append(np.tile(np.asarray(items, dtype=np.int64), k)[keep])
        q["valuenum"].append(flat[keep])
        q["value"].append(np.tile(np.array(texts if texts is not None else [None] * m, dtype=object), k)[keep])
        q["hadm_id"].append(np.full(int(keep.sum()), np.nan if hadm_id is None else float(hadm_id)))
        specimens = np.array([clock.specimen_id(n) for n in range(first, first + k)], dtype=np.int64)
        q["specimen_id"].append(np.repeat(specimens, m)[keep])
        q["charttime"].append(np.repeat(np.asarray(times, dtype=np.int64), m)[keep])
        q["priority"].append(np.full(int(keep.sum()), priority, dtype=object))

    def _flush_labs(self) -> None:
        q = self.lab_queue
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
            first = self._next("labevent_id", n)
            self.b["labevents"].add(
                n, labevent_id=np.arange(first, first + n), subject_id=self.subject_id,
                hadm_id=np.concatenate(q["hadm_id"]), specimen_id=np.concatenate(q["specimen_id"]),
                itemid=itemid, charttime=charttime, storetime=charttime + self.rng.integers(20, 180, n) * MIN,
                value=np.concatenate(q["value"]), valuenum=valuenum,
                valueuom=np.where(known, _LAB_UOM[idx], None).astype(object), ref_range_lower=lower,
                ref_range_upper=upper, flag=flag, priority=np.concatenate(q["priority"]))
        self.lab_queue = {k: [] for k in _LAB_QUEUE}

    def _lab_profile(self, levels: dict[str, int]) -> dict[str, float]:
        """Per-stay typical values of the routine analytes (before noise)."""
        rng, scen, g = self.rng, self.scen, self.grade
        p = {
            "wbc": rng.uniform(5, 11), "hct": rng.uniform(28, 44), "k": rng.uniform(3.6, 4.9),
            "na": rng.uniform(135, 144), "hco3": rng.uniform(22, 29), "bun": rng.uniform(8, 24),
            "glucose": rng.uniform(85, 170), "albumin": rng.uniform(2.6, 4.3), "inr": rng.uniform(1.0, 1.3),
            "ph": 7.40, "pco2": 40.0, "lactate": rng.uniform(0.8, 1.8),
        }
        if scen.name == "sepsis_shock":
            p.update(wbc=(24, 16, 3.5, 21, 0.6)[g], hco3=(13, 17, 19, 14, 21)[g], lactate=rng.uniform(3, 8))
        if scen.aki in ("creat", "uo", "crrt"):
            p.update(k=(5.6, 4.4, 6.2, 2.8, 5.2)[g], bun=(45, 70, 95, 38, 120)[g], hco3=(17, 21, 14, 19, 16)[g])
        if scen.name == "liver_failure":
            p.update(na=(123, 128, 132, 121, 134)[g], inr=(1.6, 2.2, 2.8, 3.5, 4.4)[g], albumin=rng.uniform(1.6, 2.8))
        if scen.name == "neuro":
            p.update(na=(146, 149, 152, 141, 147)[g], glucose=(230, 120, 310, 95, 180)[g])
        if scen.name == "medical_general":
            p.update(wbc=(12, 0.7, 18, 22, 0.5)[g], glucose=(60, 400, 150, 250, 110)[g])
        if scen.name == "respiratory_niv":
            p.update(ph=(7.18, 7.26, 7.32, 7.22, 7.15)[g], pco2=(68, 60, 52, 72, 80)[g])
        if scen.name == "ventilated_ett":
            p.update(ph=(7.44, 7.48, 7.52, 7.28, 7.12)[g], pco2=(36, 31, 27, 52, 48)[g])
        if scen.name == "sepsis_shock":
            p.update(ph=(7.15, 7.22, 7.31, 7.18, 7.36)[g], pco2=(30, 34, 44, 28, 38)[g])
        if scen.name == "cardiogenic":
            p.update(ph=(7.46, 7.58, 7.62, 7.41, 7.38)[g], pco2=(33, 38, 22, 46, 41)[g])
        return p

    def hospital_labs(self, hadm_id: int, admittime: int, dischtime: int, stays: list[IcuStay]) -> None:
        """Ward and outpatient labs outside ICU stays (the ICU labs are written per stay)."""
        rng = self.rng
        scen, g = self.scen, self.grade
        if scen.missing == "graded" and g == 0:
            return
        base_cr = round(rng.uniform(0.6, 1.0), 1)
        self.base_cr = base_cr
        # outpatient creatinine before the admission: no hadm_id (it counts for KDIGO, not for the baseline)
        if scen.aki == "creat" or (scen.name in ("medical_general", "readmission") and g in (1, 2)):
            t_out = admittime - int(rng.integers(2, 5)) * DAY + self._minutes(480, 720)
            if scen.aki != "creat":
                t_out = admittime - int(rng.integers(20, 200)) * DAY
            self._lab_panel(None, t_out, [50912, 51006, 50983, 50971], [base_cr, 15.0, 139.0, 4.1], priority="ROUTINE")
        if not stays:
            t = admittime + self._minutes(60, 300)
            while t < dischtime:
                cr = round(base_cr * rng.uniform(0.9, 1.6), 1)
                self._lab_panel(hadm_id, t, [50912, 51006, 50983, 50971, 50882, 50931],
                                [cr, round(rng.uniform(8, 30)), round(rng.uniform(134, 144)),
                                 round(rng.uniform(3.5, 5), 1), round(rng.uniform(21, 29)), round(rng.uniform(80, 180))],
                                priority="ROUTINE")
                self._lab_panel(hadm_id, t, [51265, 51301, 51222, 51221],
                                [round(rng.uniform(150, 350)), round(rng.uniform(5, 11), 1),
                                 round(rng.uniform(10, 15), 1), round(rng.uniform(30, 45), 1)], priority="ROUTINE")
                t += DAY
            return
        # daily ward labs before the ICU (ending a day before it, outside every first-day window)
        # and after the last ICU stay; chronic kidney disease keeps the creatinine high
        ward_cr = base_cr
        if scen.aki == "crrt" or (scen.name == "medical_general" and g >= 3):
            ward_cr = rng.uniform(2.4, 4.0)
        before = np.arange(admittime + 6 * HOUR, stays[0].intime - 26 * HOUR, DAY, dtype=np.int64)
        after = np.arange(stays[-1].outtime + self._minutes(300, 900), dischtime, DAY, dtype=np.int64)
        times = np.concatenate([before, after])
        n = times.size
        self._lab_series(hadm_id, times, [50912, 51006, 50983, 50971, 51265, 51301], np.column_stack([
            np.round(ward_cr * rng.uniform(0.9, 1.3, n), 1), np.round(rng.uniform(8, 30, n)),
            np.round(rng.uniform(134, 144, n)), np.round(rng.uniform(3.5, 5, n), 1),
            np.round(rng.uniform(150, 300, n)), np.round(rng.uniform(5, 11, n), 1)]).reshape(n, 6),
            priority="ROUTINE")

    # -- microbiology and antibiotics -----------------------------------------
    def _culture(self, hadm_id: int, t: int, specimen: int, result: str, chartdate_only: bool = False) -> None:
        spec_itemid, spec_desc, test_itemid, test_name = cat.SPECIMENS[specimen]
        msid = self._next("micro_specimen_id")
        charttime = None if chartdate_only else t
        rows: list[dict] = []
        if result == "positive":
            org_itemid, org_name = cat.ORGANISMS[(self.variant + self.grade) % len(cat.ORGANISMS)]
            for ab_itemid, ab_name in cat.SUSCEPTIBILITY[: 2 + self.grade % 3]:
                rows.append(dict(org_itemid=org_itemid, org_name=org_name, isolate_num=1, quantity="MODERATE GROWTH",
                                 ab_itemid=ab_itemid, ab_name=ab_name, dilution_text="<=1",
                                 dilution_comparison="<=", dilution_value=1.0,
                                 interpretation="R" if ab_itemid == 90004 else "S"))
        elif result in ("negative_org", "cancelled"):
            org_itemid, org_name = cat.NEGATIVE_ORGANISM if result == "negative_org" else cat.CANCELLED_ORGANISM
            rows.append(dict(org_itemid=org_itemid, org_name=org_name))
        else:
            rows.append(dict(comments="NO GROWTH."))
        for k, extra in enumerate(rows):
            self.b["microbiologyevents"].add(
                1, microevent_id=self._next("microevent_id"), subject_id=self.subject_id, hadm_id=hadm_id,
                micro_specimen_id=msid, chartdate=midnight(t), charttime=charttime, spec_itemid=spec_itemid,
                spec_type_desc=spec_desc, test_seq=1, storedate=midnight(t + 2 * DAY),
                storetime=t + 2 * DAY + self._minutes(0, 600), test_itemid=test_itemid, test_name=test_name,
                order_provider_id=None if k else f"P{self.variant:05d}", **extra)

    def _antibiotic(self, hadm_id: int, t: int, which: int, drug_type: str = "MAIN",
                    override: tuple[str, str | None] | None = None) -> None:
        drug, route = override if override else cat.ANTIBIOTICS[which % len(cat.ANTIBIOTICS)]
        self.b["prescriptions"].add(
            1, subject_id=self.subject_id, hadm_id=hadm_id, pharmacy_id=self._next("pharmacy_id"),
            poe_id=f"{self.subject_id}-{self._next('orderid')}", poe_seq=1, starttime=t,
            stoptime=t + int(self.rng.integers(1, 8)) * DAY, drug_type=drug_type, drug=drug,
            formulary_drug_cd=drug[:6].upper().replace(" ", ""), prod_strength="1 g Vial",
            form_rx=None, dose_val_rx="1", dose_unit_rx="g", form_val_disp="1", form_unit_disp="VIAL",
            doses_per_24_hrs=2.0, route=route)

    def infection(self, hadm_id: int, admittime: int, stays: list[IcuStay]) -> None:
        scen, g = self.scen, self.grade
        if scen.missing == "graded" and g == 4:
            return
        t0 = stays[0].intime if stays else admittime
        mode = scen.infection
        if mode == "graded":
            mode = ("abx_then_culture", "chartdate", "culture_then_abx", "abx_only", "culture_only")[g]
        if mode == "culture_then_abx":
            tc = t0 + self._minutes(30, 90)
            self._culture(hadm_id, tc, 0, "positive" if g != 1 else "negative")
            self._culture(hadm_id, tc + self._minutes(5, 30), 1, "negative")
            self._antibiotic(hadm_id, tc + self._minutes(60, 600), self.variant)
            self._antibiotic(hadm_id, tc + self._minutes(60, 600), self.variant + 1)
        elif mode == "abx_then_culture":
            ta = t0 + self._minutes(20, 120)
            self._antibiotic(hadm_id, ta, self.variant)
            self._culture(hadm_id, ta + self._minutes(60, 1200), 2, ("negative", "positive", "negative_org")[g % 3])
        elif mode == "chartdate":
            tc = t0 + self._minutes(60, 300)
            self._culture(hadm_id, tc, 3 if scen.name == "liver_failure" else 1,
                          "positive" if g % 2 == 0 else "negative", chartdate_only=True)
            self._antibiotic(hadm_id, midnight(tc) + DAY * (1 + g % 2) + self._minutes(480, 900), self.variant)
        elif mode == "abx_only":
            self._antibiotic(hadm_id, t0 - self._minutes(30, 120), 8)  # cefazolin prophylaxis, no culture
        elif mode == "culture_only":
            self._culture(hadm_id, t0 + self._minutes(60, 300), 0, "negative_org")
        if scen.name == "respiratory_niv":
            # a cancelled sputum culture: m4's concept counts it as positive (mimic-code HEAD does not)
            tc = t0 + self._minutes(600, 900)
            self._culture(hadm_id, tc, 2, "cancelled")
            self._antibiotic(hadm_id, tc + self._minutes(60, 240), self.variant + 3)
        # rows the antibiotic concept must drop
        drug, route, drug_type = cat.EXCLUDED_ANTIBIOTICS[(self.index + g) % len(cat.EXCLUDED_ANTIBIOTICS)]
        self._antibiotic(hadm_id, t0 + self._minutes(120, 1200), 0, drug_type=drug_type, override=(drug, route))

    def other_prescriptions(self, hadm_id: int, admittime: int, dischtime: int) -> None:
        rng = self.rng
        k = int(rng.integers(2, 6))
        picks = rng.choice(len(cat.OTHER_DRUGS), size=k, replace=False)
        for p in picks:
            drug, route, unit, form = cat.OTHER_DRUGS[int(p)]
            start = admittime + self._minutes(30, 1440)
            self.b["prescriptions"].add(
                1, subject_id=self.subject_id, hadm_id=hadm_id, pharmacy_id=self._next("pharmacy_id"),
                poe_id=f"{self.subject_id}-{self._next('orderid')}", poe_seq=1, starttime=start,
                stoptime=min(dischtime, start + int(rng.integers(1, 6)) * DAY), drug_type="MAIN", drug=drug,
                formulary_drug_cd=drug[:6].upper().replace(" ", ""), gsn=f"{int(rng.integers(1000, 99999)):06d}",
                ndc=f"{int(rng.integers(10**9, 10**10)):011d}", prod_strength=f"10{unit}", form_rx=None,
                dose_val_rx=str(int(rng.integers(1, 50))), dose_unit_rx=unit, form_val_disp="1",
                form_unit_disp=form, doses_per_24_hrs=float(rng.integers(1, 4)), route=route)

    # -- ICU stay ------------------------------------------------------------
    def icu_stay(self, st: IcuStay) -> None:
        self.icu_stays += 1
        self.b["icustays"].add(1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
                               first_careunit=st.careunit, last_careunit=st.careunit,
                               intime=st.recorded_intime, outtime=st.recorded_outtime,
                               los=(st.recorded_outtime - st.recorded_intime) / DAY)
        scen, g = self.scen, self.grade
        missing = set()
        if scen.missing == "chart":
            missing = {"chart"}
        elif scen.missing == "graded":
            missing = {("labs", "uo", "weight", "vitals", "micro")[g]}
        self.vent_plan(st)
        if "chart" not in missing:
            self.vitals(st, "vitals" in missing)
            if "vitals" not in missing:
                self.gcs(st)
                self.respiratory(st)
            if "weight" not in missing:
                self.weights(st)
            if "vitals" not in missing:
                self.messy_chart(st)
            if scen.aki == "crrt":
                self.crrt(st)
        if "labs" not in missing:
            self.icu_labs(st)
        if "uo" not in missing:
            self.urine(st)
        self.infusions(st)
        self.procedures(st)
        self._flush_chart(st)

    # -- chartevents helpers ---------------------------------------------------
    def _chart(self, st: IcuStay, itemid: int, times: np.ndarray, valuenum: np.ndarray | float | None = None,
               value: np.ndarray | str | None = None, uom: str | None = None) -> None:
        """Queue chart rows of one item; written per stay by ``_flush_chart``."""
        times = np.asarray(times, dtype=np.int64)
        n = times.size
        if n == 0:
            return
        q = self.chart_queue
        q["charttime"].append(times)
        q["itemid"].append(np.full(n, itemid, dtype=np.int64))
        q["valuenum"].append(np.full(n, np.nan) if valuenum is None else np.broadcast_to(np.asarray(valuenum, dtype=float), n))
        q["value"].append(np.full(n, None, dtype=object) if value is None else np.broadcast_to(np.asarray(value, dtype=object), n))
        q["valueuom"].append(np.full(n, uom, dtype=object))

    def _flush_chart(self, st: IcuStay) -> None:
        q = self.chart_queue
        if q["charttime"]:
            times = np.concatenate(q["charttime"])
            n = times.size
            self.b["chartevents"].add(
                n, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
                caregiver_id=self.rng.integers(10000, 99999, n), charttime=times,
                storetime=times + self.rng.integers(1, 90, n) * MIN, itemid=np.concatenate(q["itemid"]),
                value=np.concatenate(q["value"]), valuenum=np.concatenate(q["valuenum"]),
                valueuom=np.concatenate(q["valueuom"]), warning=0)
        self.chart_queue = {k: [] for k in _CHART_QUEUE}

    def _grid(self, st: IcuStay, step_h: float, start_h: float = 0.0, end: int | None = None) -> np.ndarray:
        end = st.outtime if end is None else end
        start = st.intime + int(start_h * HOUR)
        n = max(int((end - start) // int(step_h * HOUR)), 0) + 1
        t = start + np.arange(n, dtype=np.int64) * int(step_h * HOUR) + self.rng.integers(1, 10, n) * MIN
        return t[t < end]

    # -- vital signs -------------------------------------------------------------
    def vitals(self, st: IcuStay, hr_only: bool) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        lv = st.levels
        t = self._grid(st, 1.0)
        t[-1] = max(t[-1], st.outtime - self._minutes(2, 20))
        t[0] = st.intime + self._minutes(1, 15)
        t = np.unique(t)
        n = t.size
        hr_base = 110 if scen.fever else 82
        hr = np.clip(rng.normal(hr_base, 9, n), 45, 170)
        if st.first and n > 6:
            k = int(rng.integers(2, min(n, 20)))
            hr[k] = (36, 165, 128, 112, 58)[(self.index // 2) % 5]  # SAPS-II / OASIS heart-rate bands
        hr = np.round(hr)
        self._chart(st, 220045, t, hr, uom="bpm")
        if st.first and g == 1:
            self._chart(st, 220045, t[:2], hr[:2] + 4, uom="bpm")  # duplicate rows at one charttime
        if hr_only:
            return
        # blood pressure: MAP bounded by the cardiovascular level
        cardio = lv.get("cardio", 0)
        mbp = rng.normal(84 if cardio == 0 else 72, 7, n)
        if cardio == 0:
            mbp = np.clip(mbp, 71, 115)
        elif cardio == 1:
            mbp = np.clip(mbp, 62, 95)
            mbp[int(rng.integers(1, min(n, 20))) if n > 1 else 0] = rng.uniform(52, 66)
        else:
            mbp = np.clip(mbp, 55, 90)
        if st.first and scen.name == "medical_general" and g == 4:
            mbp[min(3, n - 1)] = 150.0  # OASIS high-MAP band
        mbp = np.round(mbp)
        pp = np.round(rng.uniform(35, 60, n))
        dbp = np.round(mbp - pp / 3)
        sbp = dbp + pp
        arterial = scen.vent in ("ett", "trach") or scen.vaso != "none" or scen.aki == "crrt"
        items = (220050, 220051, 220052) if arterial else (220179, 220180, 220181)
        if arterial and self.variant % 3 == 0:
            items = (225309, 225310, 225312)
        self._chart(st, items[0], t, sbp, uom="mmHg")
        self._chart(st, items[1], t, dbp, uom="mmHg")
        self._chart(st, items[2], t, mbp, uom="mmHg")
        if arterial:  # cuff pressures every 4 h alongside
            sel = slice(0, None, 4)
            self._chart(st, 220179, t[sel], sbp[sel] + 4, uom="mmHg")
            self._chart(st, 220181, t[sel], mbp[sel] + 2, uom="mmHg")
        # respiratory rate and SpO2
        rr_base = {"niv": 28, "ett": 18}.get(scen.vent, 24 if scen.fever else 17)
        rr = np.round(np.clip(rng.normal(rr_base, 3, n), 8, 50))
        if st.first and n > 8:
            rr[int(rng.integers(2, min(n, 20)))] = (5, 46, 33, 24, 11)[(self.index // 3) % 5]
        self._chart(st, 220210 if scen.vent != "ett" else 224690, t, rr, uom="insp/min")
        spo2 = np.round(np.clip(rng.normal(95, 2.5, n), 82, 100))
        self._chart(st, 220277, t, spo2, uom="%")
        # temperature every 4 h, in Fahrenheit or Celsius depending on the stay
        tt = t[::4]
        m = tt.size
        temp_c = rng.normal(38.6 if scen.fever else 36.9, 0.4, m)
        if st.first and m > 1:
            temp_c[1] = (34.5, 39.9, 35.6, 40.3, 36.2)[(self.index // 4) % 5] if scen.fever or g == 4 else temp_c[1]
        if scen.name == "neuro" and g == 3 and m > 2:
            temp_c[2] = 32.6  # cooled after arrest
        temp_c = np.round(temp_c, 1)
        if self.variant % 2:
            self._chart(st, 223761, tt, np.round(temp_c * 1.8 + 32, 1), uom="°F")
        else:
            self._chart(st, 223762, tt, temp_c, uom="°C")
        self._chart(st, 224642, tt, None, np.array(["Oral", "Axillary", "Rectal", "Blood"], dtype=object)[
            np.arange(m) % (1 + self.variant % 4)])
        # rhythm and glucose
        self._chart(st, 220048, tt, None, "SR (Sinus Rhythm)" if not scen.fever else "ST (Sinus Tachycardia) ")
        tg = t[::6]
        self._chart(st, 225664, tg, np.round(rng.uniform(90, 220, tg.size)), uom="mg/dL")

    def gcs(self, st: IcuStay) -> None:
        rng = self.rng
        t = self._grid(st, 4.0, 0.2)
        n = t.size
        if n == 0:
            return
        eyes = np.full(n, 4)
        verbal = np.full(n, 5)
        motor = np.full(n, 6)
        level = st.levels.get("cns", 0)
        lo, hi = GCS_BANDS[level]
        if st.first:
            k = min(int(rng.integers(0, 4)), n - 1)
            e, v, m = _split_gcs(int(rng.integers(lo, hi + 1)))
            eyes[k], verbal[k], motor[k] = e, v, m
            if level >= 2:  # a neighbouring assessment is also impaired, less so
                k2 = min(k + 1, n - 1)
                e2, v2, m2 = _split_gcs(min(15, hi + 1))
                if k2 != k:
                    eyes[k2], verbal[k2], motor[k2] = e2, v2, m2
            k3 = k + 2
            if level >= 1 and self.variant % 3 == 0 and k3 < n and m > 1 and v < 5:
                # the lowest total charted again, motor one lower and verbal one higher
                eyes[k3], verbal[k3], motor[k3] = e, v + 1, m - 1
        ett = np.zeros(n, dtype=bool)
        if st.vent_until:
            ett = t < st.vent_until
            eyes = np.where(ett, rng.integers(1, 4, n), eyes)
            motor = np.where(ett, rng.integers(4, 7, n), motor)
        verbal_text = np.array([cat.GCS_VERBAL[int(x)] for x in verbal], dtype=object)
        verbal_text[ett] = "No Response-ETT"
        verbal_num = np.where(ett, 1, verbal).astype(float)
        keep_e = np.ones(n, dtype=bool)
        if self.grade == 3 and n > 3:
            keep_e[2] = False  # a missing component, carried from the previous assessment
        self._chart(st, 220739, t[keep_e], eyes[keep_e].astype(float),
                    np.array([cat.GCS_EYES[int(x)] for x in eyes[keep_e]], dtype=object))
        self._chart(st, 223900, t, verbal_num, verbal_text)
        self._chart(st, 223901, t, motor.astype(float), np.array([cat.GCS_MOTOR[int(x)] for x in motor], dtype=object))

    def weights(self, st: IcuStay) -> None:
        rng = self.rng
        style = (self.index // 5) % 4
        if style != 3:  # admission weight
            self._chart(st, 226512, np.array([st.intime + self._minutes(20, 120)]), st.weight, uom="kg")
        if style == 2:  # a corrected admission weight a few hours later (only the first is backdated)
            self._chart(st, 226512, np.array([st.intime + self._minutes(300, 400)]), round(st.weight - 2.5, 1),
                        uom="kg")
        if style in (1, 3):  # daily weights
            t = self._grid(st, 24.0, 20.0)
            self._chart(st, 224639, t, np.round(st.weight + rng.normal(0, 1.5, t.size), 1), uom="kg")
        if self.variant % 3 == 0:
            self._chart(st, 226730, np.array([st.intime + self._minutes(20, 120)]), float(rng.integers(150, 195)),
                        uom="cm")
        elif self.variant % 3 == 1:
            self._chart(st, 226707, np.array([st.intime + self._minutes(20, 120)]), float(rng.integers(60, 76)),
                        uom="Inch")
        elif self.variant % 6 == 2:
            self._chart(st, 226730, np.array([st.intime + self._minutes(20, 120)]), 1.7, uom="cm")  # metres: dropped

    def messy_chart(self, st: IcuStay) -> None:
        """Charting errors the concepts filter out: swapped temperature units, artefacts, impossible settings."""
        k = self.index % 7
        t = np.array([st.intime + self._minutes(150, 170)])
        if k == 0:
            self._chart(st, 223762, t, 98.4, uom="°C")  # Fahrenheit typed in the Celsius field
        elif k == 1:
            self._chart(st, 223761, t, 36.9, uom="°F")  # Celsius typed in the Fahrenheit field
        elif k == 2:
            self._chart(st, 220045, t, 0.0, uom="bpm")  # artefact
        elif k == 3:
            self._chart(st, 220210, t, 88.0, uom="insp/min")  # out of range
        elif k == 4:
            self._chart(st, 220339, t, 150.0, uom="cmH2O")  # PEEP above 100: cleaned to NULL
        elif k == 5:
            self._chart(st, 220179, t, 480.0, uom="mmHg")  # systolic above 400
        else:
            self._chart(st, 225664, t, 0.0, uom="mg/dL")  # glucose 0

    # -- respiratory support -------------------------------------------------------
    def vent_plan(self, st: IcuStay) -> None:
        scen = self.scen
        st.vent_until = 0
        if scen.vent == "ett" and st.first:
            st.vent_until = st.intime + int(min(st.outtime - st.intime - 18 * HOUR, self.rng.uniform(30, 70) * HOUR))
        if scen.vent == "trach" and st.first:
            st.vent_until = st.intime + int((st.outtime - st.intime) * 0.5)
        st.vent_until -= st.vent_until % MIN  # charted on the minute

    def _fio2(self, st: IcuStay, t: np.ndarray, vented: np.ndarray) -> np.ndarray:
        lv = st.levels.get("resp", 0)
        vent_fio2 = (40, 50, 50, 70, 90)[lv] if self.scen.vent in ("ett", "trach") else 40
        return np.where(vented, vent_fio2, (21, 30, 40, 60, 80)[lv])

    def respiratory(self, st: IcuStay) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        hours = (st.outtime - st.intime) / HOUR
        dev_rows: list[tuple[int, str]] = []
        if scen.vent in ("ett", "trach") and st.vent_until:
            tv = self._grid(st, 1.0, -0.5 if scen.vent == "ett" else 0.0, st.vent_until)
            tv = tv[tv >= st.intime - HOUR]
            device = "Endotracheal tube" if scen.vent == "ett" else "Tracheostomy tube"
            for x in (tv[::2] if scen.vent == "ett" else tv):
                dev_rows.append((int(x), device))
            hamilton = self.variant % 4 == 0
            if hamilton:
                modes = np.array(cat.HAMILTON_INVASIVE, dtype=object)[np.arange(tv.size) % 2 + g % 3]
                self._chart(st, 229314, tv, None, modes)
                self._chart(st, 223848, tv[::6], None, "Hamilton")
            else:
                modes = np.array(cat.INVASIVE_MODES, dtype=object)[(np.arange(tv.size) // 6 + g) % len(cat.INVASIVE_MODES)]
                self._chart(st, 223849, tv, None, modes)
                self._chart(st, 223848, tv[::6], None, "Drager")
            vented = np.ones(tv.size, dtype=bool)
            fio2 = self._fio2(st, tv, vented)
            style = (self.index + g) % 3
            fio2_charted = fio2 / 100.0 if style == 1 else fio2.astype(float)  # FiO2 as fraction or percent
            self._chart(st, 223835, tv, fio2_charted)
            self._chart(st, 220339, tv, np.round(rng.uniform(5, 12, tv.size)), uom="cmH2O")
            self._chart(st, 224684, tv, 450.0, uom="mL")
            self._chart(st, 224685, tv, np.round(rng.uniform(380, 520, tv.size)), uom="mL")
            self._chart(st, 224688, tv, 16.0, uom="insp/min")
            self._chart(st, 224687, tv, np.round(rng.uniform(6, 11, tv.size), 1), uom="L/min")
            self._chart(st, 224696, tv[::4], np.round(rng.uniform(15, 30, tv[::4].size)), uom="cmH2O")
            if tv.size > 4:  # an unclassified vent mode between two readings
                self._chart(st, 223849, np.array([tv[3] + 20 * MIN]), None, cat.UNCLASSIFIED_MODES[g % 2])
            after = st.vent_until + 30 * MIN
            if scen.vent == "ett":
                if g % 2 == 0:  # extubated to high flow, then nasal cannula, then room air
                    dev_rows += [(after + k * HOUR, "High flow nasal cannula") for k in range(0, 6, 2)]
                    after += 6 * HOUR
                dev_rows += [(after + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
                after += 6 * HOUR
                dev_rows += [(after + k * 3 * HOUR, "None") for k in range(2)]
            else:
                dev_rows += [(after + k * 2 * HOUR, "Trach mask ") for k in range(6)]
                dev_rows += [(after + 30 * MIN, "T-piece")]
        elif scen.vent == "niv":
            t0 = st.intime + 15 * MIN
            for k in range(6):
                dev_rows.append((t0 + k * 2 * HOUR, "Bipap mask " if g % 2 == 0 else "CPAP mask "))
            if g == 1:
                self._chart(st, 229314, np.array([t0 + 3 * HOUR, t0 + 5 * HOUR]), None, cat.HAMILTON_NIV[g % 3])
            self._chart(st, 227582, np.array([t0 + k * 2 * HOUR for k in range(6)]), 10.0, uom="L/min")
            fio2 = (21, 30, 40, 60, 80)[st.levels.get("resp", 0)]
            self._chart(st, 223835, np.array([t0 + k * HOUR for k in range(12)]), float(fio2))
            t1 = t0 + 12 * HOUR
            dev_rows += [(t1 + k * 2 * HOUR, "Venti mask ") for k in range(3)]
            # nasal cannula, a gap of 16 hours, nasal cannula again: two episodes (14-hour rule)
            t2 = t1 + 6 * HOUR
            dev_rows += [(t2 + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
            t3 = t2 + 4 * HOUR + 16 * HOUR
            dev_rows += [(t3 + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
        elif scen.vent == "hfnc":
            t0 = st.intime + 20 * MIN
            dev_rows += [(t0 + k * 2 * HOUR, "High flow nasal cannula") for k in range(5)]
            self._chart(st, 223835, np.array([t0 + k * 2 * HOUR for k in range(5)]), 0.6)  # fraction
            t1 = t0 + 10 * HOUR
            dev_rows += [(t1 + k * 3 * HOUR, "Nasal cannula") for k in range(4)]
        elif scen.vent == "o2":
            t = self._grid(st, 3.0, 0.3)
            device = cat.SUPPLEMENTAL_DEVICES[(self.variant + g) % len(cat.SUPPLEMENTAL_DEVICES)]
            for x in t[: max(2, int(len(t) * 0.6))]:
                dev_rows.append((int(x), device))
            if len(t) > 3:
                dev_rows.append((int(t[1]), "Face tent" if device != "Face tent" else "Nasal cannula"))  # two devices
                dev_rows.append((int(t[2]), device))  # duplicated device row at one charttime
            for x in t[max(2, int(len(t) * 0.6)):]:
                dev_rows.append((int(x), "None"))
            flows = t[: max(2, int(len(t) * 0.6))]
            if g == 2 and flows.size > 1:
                self._chart(st, 223835, flows[:1], 4.0)  # mistyped flow in the FiO2 field: cleaned to NULL
            if self.variant % 5 == 0 and flows.size > 1:
                self._chart(st, 227287, flows[:1], 2.0, uom="L/min")
        elif scen.vent == "room" and hours > 8:
            t = self._grid(st, 8.0, 1.0)[:3]
            dev_rows += [(int(x), "None") for x in t]
            if g == 1 and t.size:
                dev_rows.append((int(t[0]) + 30 * MIN, cat.UNCLASSIFIED_DEVICES[1]))
        if dev_rows:
            times = np.array([x for x, _ in dev_rows], dtype=np.int64)
            values = np.array([d for _, d in dev_rows], dtype=object)
            keep = (times > st.intime - HOUR) & (times < st.outtime)
            self._chart(st, 226732, times[keep], None, values[keep])
            # O2 flow charted with the device (mimic-code keeps a device row only when a flow shares its time)
            flow_at: dict[int, float] = {}
            for x, device in zip(times[keep].tolist(), values[keep].tolist(), strict=True):
                if x not in flow_at and device in _DEVICE_FLOW:
                    lo, hi = _DEVICE_FLOW[device]
                    flow_at[x] = float(round(rng.uniform(lo, hi)))
            if flow_at:
                self._chart(st, 223834, np.array(list(flow_at), dtype=np.int64), np.array(list(flow_at.values())),
                            uom="L/min")

    # -- labs during the ICU stay ---------------------------------------------
    def icu_labs(self, st: IcuStay) -> None:
        rng, scen = self.rng, self.scen
        lv = st.levels
        p = self._lab_profile(lv)
        start = st.intime - self._minutes(60, 240)
        times = [start]
        t = st.intime + self._minutes(300, 420)
        while t < st.outtime:
            times.append(t)
            t += 12 * HOUR if t - st.intime < 48 * HOUR else 24 * HOUR
        times_a = np.array(times, dtype=np.int64)
        # the worst value of the first day is drawn inside the ICU stay (hourly SOFA starts at intime)
        first_day = np.flatnonzero((times_a > st.intime) & (times_a - st.intime <= 22 * HOUR))
        if first_day.size == 0:
            first_day = np.array([0])
        worst = int(first_day[int(rng.integers(0, first_day.size))]) if st.first else -1
        base_cr = getattr(self, "base_cr", 0.8)
        creat = self._creatinine_course(st, times_a, base_cr, worst)
        n = times_a.size
        plt_band = PLATELET_BANDS[lv.get("coag", 0)]
        bili_band = BILI_BANDS[lv.get("liver", 0)]
        is_worst = np.arange(n) == worst
        plt = np.where(is_worst, rng.uniform(*plt_band, n), rng.uniform(plt_band[1], plt_band[1] * 1.4 + 20, n))
        bili = np.where(is_worst, rng.uniform(*bili_band, n), rng.uniform(bili_band[0] * 0.6, bili_band[0], n))
        if not st.first:
            plt, bili = rng.uniform(160, 300, n), rng.uniform(0.3, 1.0, n)

        def around(x: float, spread: float) -> np.ndarray:
            return x * rng.normal(1, spread, n)

        hct = around(p["hct"], 0.05)
        chem = np.column_stack([
            creat, np.round(around(p["bun"], 0.05)), np.round(around(p["na"], 0.01)), np.round(around(p["k"], 0.04), 1),
            np.round(around(p["hco3"], 0.04)), np.round(rng.uniform(96, 110, n)), np.round(rng.uniform(8, 20, n)),
            np.round(around(p["glucose"], 0.1)), np.round(rng.uniform(7.8, 9.8, n), 1),
            np.round(around(p["albumin"], 0.05), 1)])
        chem_items = [50912, 51006, 50983, 50971, 50882, 50902, 50868, 50931, 50893, 50862]
        chem[np.arange(n) % 2 == 1, -1] = np.nan  # albumin on every other draw
        self._lab_series(st.hadm_id, times_a, chem_items, chem)
        cbc = np.column_stack([
            np.round(plt), np.round(around(p["wbc"], 0.1), 1), np.round(hct / 3, 1), np.round(hct, 1),
            np.round(rng.uniform(27, 33, n), 1), np.round(rng.uniform(31, 35, n), 1), np.round(rng.uniform(82, 98, n)),
            np.round(rng.uniform(2.8, 4.8, n), 2), np.round(rng.uniform(12, 17, n), 1)])
        self._lab_series(st.hadm_id, times_a + 2 * MIN, [51265, 51301, 51222, 51221, 51248, 51249, 51250, 51279, 51277],
                         cbc)
        self._lab_panel(st.hadm_id, int(times_a[0]) + 2 * MIN, [51144, 51146, 51200, 51244, 51254, 51256],
                        [float(rng.integers(0, 12)), 0.3, 1.1, round(rng.uniform(5, 30), 1), 6.0,
                         round(rng.uniform(60, 88), 1)])
        liver_draw = (np.arange(n) % 2 == 0) | is_worst  # coagulation and liver panels daily
        k = int(liver_draw.sum())
        inr = around(p["inr"], 0.05)[liver_draw]
        self._lab_series(st.hadm_id, times_a[liver_draw] + 3 * MIN, [51237, 51274, 51275],
                         np.column_stack([np.round(inr, 1), np.round(inr * 11.5, 1), np.round(rng.uniform(26, 48, k), 1)]))
        self._lab_series(st.hadm_id, times_a[liver_draw] + 3 * MIN, [50885, 50861, 50878, 50863],
                         np.column_stack([np.round(bili[liver_draw], 1), np.round(rng.uniform(10, 300, k)),
                                          np.round(rng.uniform(12, 400, k)), np.round(rng.uniform(40, 250, k))]))
        if self.index % 9 == 0:  # results withheld or unreportable: text only, no valuenum
            self._lab_panel(st.hadm_id, int(times_a[-1]) + 20 * MIN, [50912, 51265],
                            [None, None], ["___", "UNABLE TO REPORT"])
        if st.first and self.scen.name == "sepsis_shock":
            self._lab_panel(st.hadm_id, int(times[0]) + 5 * MIN, [50889, 51003], [round(rng.uniform(50, 250), 1), 0.04])
        if scen.gas or lv.get("resp", 0) > 0:
            self.blood_gases(st, p)

    def _creatinine_course(self, st: IcuStay, times: np.ndarray, base_cr: float, worst: int) -> list[float]:
        rng, scen = self.rng, self.scen
        hours = (times - st.intime) / HOUR
        if scen.aki == "creat" and st.first:
            # 1.4x on arrival, 3x the outpatient value by about a day, peaking in the second day
            factor = np.interp(hours, [-4, 8, 20, 34, 60, 120], [1.5, 2.2, 3.2, 3.7, 2.8, 1.8])
            return [round(float(base_cr * f), 1) for f in factor]
        if scen.aki == "crrt" and st.first:
            return [round(float(rng.uniform(5.2, 7.5)), 1) for _ in hours]
        band = CREAT_BANDS[st.levels.get("renal", 0)]
        out = []
        for k in range(hours.size):
            if k == worst:
                out.append(round(float(rng.uniform(*band)), 1))
            else:
                out.append(round(float(rng.uniform(max(0.4, band[0] * 0.8), band[0])), 1))
        return out

    def blood_gases(self, st: IcuStay, p: dict[str, float]) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        level = st.levels.get("resp", 0)
        offsets = [2.5, 8.5, 14.5, 20.5] + [32.5 + 12 * k for k in range(int(max(0, (st.outtime - st.intime) / HOUR - 33) // 12) + 1)]
        times = [st.intime + int(h * HOUR) + self._minutes(0, 10) for h in offsets if st.intime + h * HOUR < st.outtime]
        worst = int(rng.integers(0, min(4, len(times)))) if st.first and times else -1
        vented_stay = scen.vent in ("ett", "trach")
        n = len(times)
        if n:
            t = np.array(times, dtype=np.int64)
            vented = (t < st.vent_until) if st.vent_until else np.zeros(n, dtype=bool)
            fio2 = self._fio2(st, t, vented).astype(float)
            band = PF_BANDS[level]
            pf = np.where(np.arange(n) == worst, rng.uniform(*band, n), rng.uniform(band[1] + 20, band[1] + 160, n))
            po2 = np.round(pf * fio2 / 100.0)
            pco2 = np.round(p["pco2"] + rng.normal(0, 1.5, n))
            k = np.arange(n)
            # FiO2 travels with the gas (percent or fraction) unless a vent setting was charted
            with_fio2 = ~(vented & vented_stay) | (k % 2 == 1)
            gas_fio2 = np.where((self.index + k) % 3 == 0, fio2 / 100.0, fio2)
            aado2 = np.round(fio2 / 100 * 713 - pco2 / 0.8 - po2)
            values = np.column_stack([
                np.full(n, np.nan), po2, pco2, np.round(p["ph"] + rng.normal(0, 0.01, n), 2),
                np.round(rng.uniform(-6, 3, n)), np.round(rng.uniform(18, 30, n)),
                np.round(p["lactate"] * rng.normal(1, 0.1, n), 1),
                np.where(with_fio2, gas_fio2, np.nan), np.where(vented & (fio2 >= 50), aado2, np.nan)])
            self._lab_series(st.hadm_id, t, [52033, 50821, 50818, 50820, 50802, 50804, 50813, 50816, 50801], values,
                             ["ART.", None, None, None, None, None, None, None, None])
        if st.first and times and not vented_stay:  # a venous gas: not used by the arterial-only scores
            # drawn with the first arterial gas (one charttime, two specimens) on every other stay
            t = times[0] if self.variant % 2 == 0 else times[0] + 40 * MIN
            self._lab_panel(st.hadm_id, t, [52033, 50821, 50818, 50820],
                            [None, 38.0, float(round(p["pco2"] + 6)), round(p["ph"] - 0.03, 2)],
                            [("VEN.", "MIX.", "CENTRAL VENOUS.")[g % 3], None, None, None])

    # -- urine output ------------------------------------------------------------
    def urine(self, st: IcuStay) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        void = scen.name in ("short_stay", "neuro") and g % 2 == 1
        t = self._grid(st, 4.0 if void else 1.0, 1.0 if not void else 2.0)
        n = t.size
        if n == 0:
            return
        hours = (t - st.intime) / HOUR
        step = 4.0 if void else 1.0
        rate = np.clip(rng.normal(70, 20, n), 30, 180)  # mL/h
        if scen.aki == "uo" and st.first:
            # falling urine output: oliguria (about 0.1 mL/kg/h) from hour 6 to hour 40; anuria for some
            low = (hours >= 6) & (hours <= 40)
            rate = np.where(low, 0.0 if g in (2, 4) else rng.uniform(4, 12, n), np.where(hours < 6, 45.0, rate))
        if scen.aki == "crrt" and st.first:
            rate = rng.uniform(0, 15, n)
        if scen.aki == "creat" and st.first:
            rate = np.where(hours > 12, rng.uniform(25, 45, n), rate)
        vol = np.round(rate * step)
        item = 226560 if void else (226559 if self.variant % 7 else 226561)
        self.b["outputevents"].add(
            n, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
            caregiver_id=rng.integers(10000, 99999, n), charttime=t, storetime=t + rng.integers(1, 60, n) * MIN,
            itemid=item, value=vol, valueuom="mL")
        if scen.name == "elective_surgery" and g in (1, 3):
            # bladder irrigation: irrigant in is subtracted from the combined volume out
            ti = t[::4]
            out = np.round(rng.uniform(600, 1200, ti.size))
            irrigant = np.round(out * rng.uniform(0.6, 0.8, ti.size))
            for itemid, vals in ((227489, out), (227488, irrigant)):
                self.b["outputevents"].add(
                    ti.size, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=12345,
                    charttime=ti, storetime=ti + 5 * MIN, itemid=itemid, value=vals, valueuom="mL")
        if scen.service.endswith("SURG") or scen.name == "elective_surgery":
            tc = t[::8]
            self.b["outputevents"].add(
                tc.size, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=23456,
                charttime=tc, storetime=tc + 5 * MIN, itemid=226588, value=np.round(rng.uniform(10, 80, tc.size)),
                valueuom="mL")

    # -- CRRT ----------------------------------------------------------------------
    def crrt(self, st: IcuStay) -> None:
        rng, g = self.rng, self.grade
        if not st.first:
            return
        t = self._grid(st, 1.0, 2.0, min(st.outtime, st.intime + 60 * HOUR))
        n = t.size
        mode = ("CVVHDF", "CVVH", "CVVHD", "SCUF", "CVVHDF")[g]
        self._chart(st, 227290, t[::2], None, mode)
        status = np.array(["Active"] * n, dtype=object)
        status[0] = "Initiated"
        if n > 8:
            status[5] = ("Clots Present", "No Clot Present", "Clots Increasing", "Clotted", "New Filter")[g]
            status[6] = "Reinitiated" if g != 4 else "Recirculating"
            status[-1] = "Discontinued"
        self._chart(st, 224146, t, None, status)
        self._chart(st, 224144, t, np.round(rng.uniform(150, 250, n)), uom="ml/min")
        self._chart(st, 224149, t, np.round(rng.uniform(-120, -40, n)), uom="mmHg")
        self._chart(st, 224150, t, np.round(rng.uniform(100, 220, n)), uom="mmHg")
        self._chart(st, 224151, t, np.round(rng.uniform(40, 160, n)), uom="mmHg")
        self._chart(st, 224152, t, np.round(rng.uniform(50, 150, n)), uom="mmHg")
        self._chart(st, 224191, t, np.round(rng.uniform(0, 200, n)), uom="mL")
        self._chart(st, 226457, t, np.round(rng.uniform(50, 300, n)), uom="mL")
        if mode in ("CVVHDF", "CVVHD"):
            self._chart(st, 224154, t[::4], 1500.0, uom="ml/hr")
            self._chart(st, 225977, t[:1], None, "Prismasate K4")
        if mode in ("CVVHDF", "CVVH"):
            self._chart(st, 228005, t[::4], 1000.0, uom="ml/hr")
            self._chart(st, 228006, t[::4], 200.0, uom="ml/hr")
            self._chart(st, 224153, t[::4], 1200.0, uom="ml/hr")
            self._chart(st, 225976, t[:1], None, "Prismasate K4")
        if g % 2:
            self._chart(st, 228004, t[::4], 180.0, uom="ml/hr")
        else:
            self._chart(st, 224145, t[::4], 500.0, uom="units")
            self._chart(st, 225958, t[:1], None, "1000 units/mL")
        self._chart(st, 225183, t[::6], 100.0, uom="mL")

    # -- infusions and procedures ---------------------------------------------------
    def _infusion(self, st: IcuStay, itemid: int, start: int, rates: list[float], seg_h: list[float], rateuom: str,
                  amountuom: str = "mg", weight: float | None = -1.0, category: str = "Continuous Med") -> int:
        """Consecutive rate segments of one order (one linkorderid); returns the end time."""
        rng = self.rng
        link = self._next("orderid")
        t = start
        w = st.weight if weight == -1.0 else weight
        for k, (rate, hours) in enumerate(zip(rates, seg_h, strict=True)):
            end = t + int(hours * HOUR)
            per_min = rate * (w or 80.0) if "/kg/" in rateuom else rate
            if rateuom.endswith("/hour"):
                per_min = rate / 60.0
            mult = 1000.0 if rateuom.startswith("mcg") else 1.0
            amount = round(per_min * hours * 60 / mult, 4)
            orderid = link if k == 0 else self._next("orderid")
            self.b["inputevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
                caregiver_id=int(rng.integers(10000, 99999)), starttime=t, endtime=end,
                storetime=t + self._minutes(1, 30), itemid=itemid, amount=amount, amountuom=amountuom, rate=rate,
                rateuom=rateuom, orderid=orderid, linkorderid=link, ordercategoryname="01-Drips",
                secondaryordercategoryname="Additive", ordercomponenttypedescription="Main order parameter",
                ordercategorydescription=category, patientweight=np.nan if w is None else w,
                totalamount=250.0, totalamountuom="mL", isopenbag=0, continueinnextdept=0,
                statusdescription="FinishedRunning" if k == len(rates) - 1 else "ChangeDose/Rate",
                originalamount=amount, originalrate=rate)
            t = end
        return t

    def infusions(self, st: IcuStay) -> None:
        rng, scen, g = self.rng, self.scen, self.grade
        lv = st.levels
        t0 = st.intime + self._minutes(40, 100)
        if scen.vaso == "escalating" and st.first:
            if lv["cardio"] == 4:
                if (self.index // 16) % 3 == 1:  # a norepinephrine row in mg/kg/min (x1000)
                    end = self._infusion(st, 221906, t0, [0.00008, 0.00018], [2, 3], "mg/kg/min")
                    end = self._infusion(st, 221906, end, [0.3, 0.2, 0.1], [4, 6, 8], "mcg/kg/min")
                else:
                    end = self._infusion(st, 221906, t0, [0.05, 0.12, 0.25, 0.4, 0.2, 0.08], [2, 2, 3, 4, 6, 8],
                                         "mcg/kg/min")
                self._infusion(st, 222315, t0 + 4 * HOUR, [2.4, 2.4], [6, 10], "units/hour", "units")
                if g % 2 == 0:
                    self._infusion(st, 221289, t0 + 6 * HOUR, [0.05, 0.1], [3, 4], "mcg/kg/min")
                if g == 4:
                    self._infusion(st, 222315, t0 + 20 * HOUR, [0.04], [4], "units/min", "units")
            else:
                self._infusion(st, 221906, t0, [0.03, 0.06, 0.09, 0.05], [3, 4, 6, 8], "mcg/kg/min")
                self._infusion(st, 221749, t0 + 2 * HOUR, [0.5, 1.0], [3, 3], "mcg/kg/min")
        if scen.vaso == "escalating" and st.first:
            if g == 1:  # an epinephrine push: an amount without a rate
                t = t0 + 30 * MIN
                self.b["inputevents"].add(
                    1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=22222,
                    starttime=t, endtime=t + MIN, storetime=t + 5 * MIN, itemid=221289, amount=1.0, amountuom="mg",
                    orderid=self._next("orderid"), ordercategoryname="11-Prophylaxis (IV)",
                    ordercomponenttypedescription="Main order parameter", ordercategorydescription="Drug Push",
                    patientweight=st.weight, isopenbag=0, continueinnextdept=0, statusdescription="FinishedRunning",
                    originalamount=1.0, originalrate=0.0)
            if g == 3:  # norepinephrine charted per minute: read as per kilogram, an outlier dose
                self._infusion(st, 221906, t0 + 30 * HOUR, [8.0], [2], "mcg/min")
        if scen.vaso == "cardiogenic" and st.first:
            if g == 0:
                self._infusion(st, 221986, t0, [0.375, 0.5], [8, 12], "mcg/kg/min")
            elif g == 2:
                self._infusion(st, 221653, t0, [2.5, 5.0], [6, 12], "mcg/kg/min")
                self._infusion(st, 221662, t0 + HOUR, [3.0], [5], "mcg/kg/min")
            elif g == 3:
                self._infusion(st, 221662, t0, [5.0, 8.0, 12.0], [3, 4, 6], "mcg/kg/min")
                # phenylephrine charted per minute without a weight: its dose cannot be normalised
                self._infusion(st, 221749, t0 + HOUR, [60.0, 100.0], [3, 3], "mcg/min", weight=None)
            elif g == 4:
                self._infusion(st, 221289, t0, [0.08, 0.15, 0.2], [3, 4, 4], "mcg/kg/min")
                self._infusion(st, 222315, t0 + HOUR, [0.03, 0.04], [4, 4], "units/min", "units")
                self._infusion(st, 221662, t0 + 2 * HOUR, [18.0], [3], "mcg/kg/min")
        if scen.aki == "crrt" and st.first:
            for k in range(3):
                self._infusion(st, 227536, st.intime + (3 + 8 * k) * HOUR, [10.0], [8], "mEq/hour", "mEq",
                               category="Continuous IV")
        if scen.vent == "ett" and st.vent_until:
            self._infusion(st, 222168, st.intime, [30.0, 40.0], [6, 12], "mcg/kg/min")
        # fluid boluses with their ingredient rows
        for _ in range(int(rng.integers(1, 3))):
            t = st.intime + self._minutes(10, 600)
            if t >= st.outtime:
                continue
            orderid = self._next("orderid")
            amount = float((500, 1000)[int(rng.integers(0, 2))])
            self.b["inputevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=33333,
                starttime=t, endtime=t + 30 * MIN, storetime=t + 35 * MIN, itemid=225158, amount=amount,
                amountuom="mL", rate=amount * 2, rateuom="mL/hour", orderid=orderid, linkorderid=orderid,
                ordercategoryname="02-Fluids (Crystalloids)", secondaryordercategoryname=None,
                ordercomponenttypedescription="Main order parameter", ordercategorydescription="Bolus",
                patientweight=st.weight, totalamount=amount, totalamountuom="mL", isopenbag=0,
                continueinnextdept=0, statusdescription="FinishedRunning", originalamount=amount,
                originalrate=amount * 2)
            self.b["ingredientevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=33333,
                starttime=t, endtime=t + 30 * MIN, storetime=t + 35 * MIN, itemid=220490, amount=amount,
                amountuom="mL", rate=amount * 2, rateuom="mL/hour", orderid=orderid, linkorderid=orderid,
                statusdescription="FinishedRunning", originalamount=0.0, originalrate=amount * 2)

    def procedures(self, st: IcuStay) -> None:
        scen = self.scen
        rows: list[tuple[int, int, int, float, str, str]] = []
        if st.vent_until:
            rows.append((225792, st.intime - 30 * MIN, st.vent_until, (st.vent_until - st.intime) / MIN + 30, "min",
                         "Ventilation"))
            rows.append((224385, st.intime - 30 * MIN, st.intime - 29 * MIN, 1.0, "None", "Procedures"))
        if scen.vent == "niv":
            rows.append((225794, st.intime + 15 * MIN, st.intime + 11 * HOUR, 645.0, "min", "Ventilation"))
        if scen.aki == "crrt" and st.first:
            end = min(st.outtime, st.intime + 60 * HOUR)
            rows.append((225802, st.intime + 2 * HOUR, end, (end - st.intime) / MIN - 120, "min", "Dialysis"))
            rows.append((224270, st.intime + HOUR, st.outtime, (st.outtime - st.intime) / MIN - 60, "min",
                         "Access Lines - Invasive"))
        if scen.vent in ("ett", "trach") or scen.vaso != "none":
            rows.append((225752, st.intime - 20 * MIN, st.outtime, (st.outtime - st.intime) / MIN + 20, "min",
                         "Access Lines - Invasive"))
            self.b["datetimeevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=44444,
                charttime=st.intime + 10 * MIN, storetime=st.intime + 12 * MIN, itemid=224288,
                value=midnight(st.intime - 20 * MIN), valueuom="Date", warning=0)
        for itemid, start, end, value, uom, category in rows:
            self.b["procedureevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=55555,
                starttime=start, endtime=end, storetime=end + 10 * MIN, itemid=itemid, value=value, valueuom=uom,
                location=None, locationcategory=None, orderid=self._next("orderid"), linkorderid=None,
                ordercategoryname=category, ordercategorydescription="Task", patientweight=st.weight,
                isopenbag=0, continueinnextdept=0, statusdescription="FinishedRunning",
                originalamount=value, originalrate=0.0)


_CHART_QUEUE = ("charttime", "itemid", "valuenum", "value", "valueuom")
_LAB_QUEUE = ("itemid", "valuenum", "value", "hadm_id", "specimen_id", "charttime", "priority")
_LAB_IDS = np.array(sorted(cat.LAB_UNITS), dtype=np.int64)
_LAB_UOM = np.array([cat.LAB_UNITS[i][0] for i in _LAB_IDS], dtype=object)
_LAB_LOWER = np.array([np.nan if cat.LAB_UNITS[i][1] is None else cat.LAB_UNITS[i][1] for i in _LAB_IDS])
_LAB_UPPER = np.array([np.nan if cat.LAB_UNITS[i][2] is None else cat.LAB_UNITS[i][2] for i in _LAB_IDS])

# O2 flow (L/min) charted alongside each device; intubated patients have none (the ventilator mode counts)
_DEVICE_FLOW: dict[str, tuple[float, float]] = {
    "Tracheostomy tube": (5, 10), "Trach mask ": (8, 12), "T-piece": (8, 12), "High flow nasal cannula": (40, 60),
    "Nasal cannula": (2, 6), "Face tent": (8, 12), "Non-rebreather": (12, 15), "Aerosol-cool": (8, 12),
    "Venti mask ": (6, 10), "Medium conc mask ": (6, 10), "Ultrasonic neb": (6, 10), "Vapomist": (20, 40),
    "Oxymizer": (4, 8), "High flow neb": (10, 15), "None": (0, 0), "Other": (2, 4),
}


def _record_stay_seconds(transfers: list[tuple[int | None, str, str | None, int, int | None]],
                         stays: list[IcuStay]) -> list[tuple[int | None, str, str | None, int, int | None]]:
    """Transfers with each ICU stay's minute-clock intime and outtime replaced by its recorded one
    (the ward stays around an ICU stay begin and end when it does)."""
    recorded = {}
    for stay in stays:
        recorded[stay.intime] = stay.recorded_intime
        recorded[stay.outtime] = stay.recorded_outtime
    return [(tid, kind, unit, recorded.get(start, start), None if end is None else recorded.get(end, end))
            for tid, kind, unit, start, end in transfers]


def _split_gcs(total: int) -> tuple[int, int, int]:
    """Eyes, verbal, motor summing to a GCS total between 3 and 15."""
    total = max(3, min(15, total))
    eyes = max(1, min(4, math.ceil(total * 4 / 15)))
    motor = max(1, min(6, math.ceil(total * 6 / 15)))
    verbal = total - eyes - motor
    while verbal < 1:
        if motor > 1:
            motor -= 1
        else:
            eyes -= 1
        verbal += 1
    while verbal > 5:
        if motor < 6:
            motor += 1
        else:
            eyes += 1
        verbal -= 1
    return eyes, verbal, motor
