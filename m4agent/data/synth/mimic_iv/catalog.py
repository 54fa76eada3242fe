"""Dictionaries and vocabularies of the synthetic MIMIC-IV: real item ids and labels.

Every item id the mimic-code concepts read (shared/DATA_FACTS.md, m4-infra's
``m4/core/derived/builtins/mimic_iv``) is listed here with its MIMIC-IV 3.1
label, abbreviation, table, category and unit, so the synthetic ``d_items`` and
``d_labitems`` look like the real ones and a model that joins them by label works.
"""

from __future__ import annotations

# itemid, label, abbreviation, linksto, category, unitname, param_type
D_ITEMS: tuple[tuple[int, str, str, str, str, str | None, str], ...] = (
    # routine vital signs
    (220045, "Heart Rate", "HR", "chartevents", "Routine Vital Signs", "bpm", "Numeric"),
    (220048, "Heart Rhythm", "Heart Rhythm", "chartevents", "Routine Vital Signs", None, "Text"),
    (220179, "Non Invasive Blood Pressure systolic", "NBPs", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220180, "Non Invasive Blood Pressure diastolic", "NBPd", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220181, "Non Invasive Blood Pressure mean", "NBPm", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220050, "Arterial Blood Pressure systolic", "ABPs", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220051, "Arterial Blood Pressure diastolic", "ABPd", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220052, "Arterial Blood Pressure mean", "ABPm", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (225309, "ART BP Systolic", "ART BP Systolic", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (225310, "ART BP Diastolic", "ART BP Diastolic", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (225312, "ART BP Mean", "ART BP Mean", "chartevents", "Routine Vital Signs", "mmHg", "Numeric"),
    (220210, "Respiratory Rate", "RR", "chartevents", "Respiratory", "insp/min", "Numeric"),
    (220277, "O2 saturation pulseoxymetry", "SpO2", "chartevents", "Respiratory", "%", "Numeric"),
    (223761, "Temperature Fahrenheit", "Temperature F", "chartevents", "Routine Vital Signs", "°F", "Numeric"),
    (223762, "Temperature Celsius", "Temperature C", "chartevents", "Routine Vital Signs", "°C", "Numeric"),
    (224642, "Temperature Site", "Temp Site", "chartevents", "Routine Vital Signs", None, "Text"),
    (225664, "Glucose finger stick (range 70-100)", "Glucose FS (range 70 -100)", "chartevents", "Routine Vital Signs", None, "Numeric"),
    (220621, "Glucose (serum)", "Glucose (serum)", "chartevents", "Labs", "mg/dL", "Numeric"),
    (226537, "Glucose (whole blood)", "Glucose (whole blood)", "chartevents", "Labs", "mg/dL", "Numeric"),
    # neurological
    (220739, "GCS - Eye Opening", "GCS - Eye Opening", "chartevents", "Neurological", None, "Text"),
    (223900, "GCS - Verbal Response", "GCS - Verbal Response", "chartevents", "Neurological", None, "Text"),
    (223901, "GCS - Motor Response", "GCS - Motor Response", "chartevents", "Neurological", None, "Text"),
    # weight and height
    (226512, "Admission Weight (Kg)", "Admission Weight (Kg)", "chartevents", "General", "kg", "Numeric"),
    (224639, "Daily Weight", "Daily Weight", "chartevents", "General", "kg", "Numeric"),
    (226531, "Admission Weight (lbs.)", "Admission Weight (lbs.)", "chartevents", "General", "lbs", "Numeric"),
    (226707, "Height", "Height", "chartevents", "General", "Inch", "Numeric"),
    (226730, "Height (cm)", "Height (cm)", "chartevents", "General", "cm", "Numeric"),
    # oxygen delivery and ventilator settings
    (223834, "O2 Flow", "O2 Flow", "chartevents", "Respiratory", "L/min", "Numeric"),
    (227582, "BiPap O2 Flow", "BiPap O2 Flow", "chartevents", "Respiratory", "L/min", "Numeric"),
    (227287, "O2 Flow (additional cannula)", "O2 Flow (additional cannula)", "chartevents", "Respiratory", "L/min", "Numeric"),
    (226732, "O2 Delivery Device(s)", "O2 Delivery Device(s)", "chartevents", "Respiratory", None, "Text"),
    (223835, "Inspired O2 Fraction", "FiO2", "chartevents", "Respiratory", None, "Numeric"),
    (223848, "Ventilator Type", "Ventilator Type", "chartevents", "Respiratory", None, "Text"),
    (223849, "Ventilator Mode", "Ventilator Mode", "chartevents", "Respiratory", None, "Text"),
    (229314, "Ventilator Mode (Hamilton)", "Ventilator Mode (Hamilton)", "chartevents", "Respiratory", None, "Text"),
    (224684, "Tidal Volume (set)", "Tidal Volume (set)", "chartevents", "Respiratory", "mL", "Numeric"),
    (224685, "Tidal Volume (observed)", "Tidal Volume (observed)", "chartevents", "Respiratory", "mL", "Numeric"),
    (224686, "Tidal Volume (spontaneous)", "Tidal Volume (spontaneous)", "chartevents", "Respiratory", "mL", "Numeric"),
    (224687, "Minute Volume", "Minute Volume", "chartevents", "Respiratory", "L/min", "Numeric"),
    (224688, "Respiratory Rate (Set)", "Respiratory Rate (Set)", "chartevents", "Respiratory", "insp/min", "Numeric"),
    (224689, "Respiratory Rate (spontaneous)", "Respiratory Rate (spontaneous)", "chartevents", "Respiratory", "insp/min", "Numeric"),
    (224690, "Respiratory Rate (Total)", "Respiratory Rate (Total)", "chartevents", "Respiratory", "insp/min", "Numeric"),
    (224691, "Flow Rate (L/min)", "Flow Rate (L/min)", "chartevents", "Respiratory", "L/min", "Numeric"),
    (224696, "Plateau Pressure", "Plateau Pressure", "chartevents", "Respiratory", "cmH2O", "Numeric"),
    (220339, "PEEP set", "PEEP set", "chartevents", "Respiratory", "cmH2O", "Numeric"),
    (224700, "Total PEEP Level", "Total PEEP Level", "chartevents", "Respiratory", "cmH2O", "Numeric"),
    # dialysis (CRRT)
    (227290, "CRRT mode", "CRRT mode", "chartevents", "Dialysis", None, "Text"),
    (224146, "System Integrity", "System Integrity", "chartevents", "Dialysis", None, "Text"),
    (224149, "Access Pressure", "Access Pressure", "chartevents", "Dialysis", "mmHg", "Numeric"),
    (224144, "Blood Flow (ml/min)", "Blood Flow (ml/min)", "chartevents", "Dialysis", "ml/min", "Numeric"),
    (228004, "Citrate (ACD-A)", "Citrate (ACD-A)", "chartevents", "Dialysis", "ml/hr", "Numeric"),
    (225183, "Current Goal", "Current Goal", "chartevents", "Dialysis", "mL", "Numeric"),
    (224154, "Dialysate Rate", "Dialysate Rate", "chartevents", "Dialysis", "ml/hr", "Numeric"),
    (224151, "Effluent Pressure", "Effluent Pressure", "chartevents", "Dialysis", "mmHg", "Numeric"),
    (224150, "Filter Pressure", "Filter Pressure", "chartevents", "Dialysis", "mmHg", "Numeric"),
    (224145, "Heparin Dose (per hour)", "Heparin Dose (per hour)", "chartevents", "Dialysis", "units", "Numeric"),
    (224191, "Hourly Patient Fluid Removal", "Hourly Patient Fluid Removal", "chartevents", "Dialysis", "mL", "Numeric"),
    (228005, "PBP (Prefilter) Replacement Rate", "PBP (Prefilter) Replacement Rate", "chartevents", "Dialysis", "ml/hr", "Numeric"),
    (228006, "Post Filter Replacement Rate", "Post Filter Replacement Rate", "chartevents", "Dialysis", "ml/hr", "Numeric"),
    (224153, "Replacement Rate", "Replacement Rate", "chartevents", "Dialysis", "ml/hr", "Numeric"),
    (224152, "Return Pressure", "Return Pressure", "chartevents", "Dialysis", "mmHg", "Numeric"),
    (226457, "Ultrafiltrate Output", "Ultrafiltrate Output", "chartevents", "Dialysis", "mL", "Numeric"),
    (225977, "Dialysate Fluid", "Dialysate Fluid", "chartevents", "Dialysis", None, "Text"),
    (225958, "Heparin Concentration (units/mL)", "Heparin Concentration (units/mL)", "chartevents", "Dialysis", None, "Text"),
    (225976, "Replacement Fluid", "Replacement Fluid", "chartevents", "Dialysis", None, "Text"),
    # urine output
    (226559, "Foley", "Foley", "outputevents", "Output", "mL", "Numeric"),
    (226560, "Void", "Void", "outputevents", "Output", "mL", "Numeric"),
    (226561, "Condom Cath", "Condom Cath", "outputevents", "Output", "mL", "Numeric"),
    (226584, "Ileoconduit", "Ileoconduit", "outputevents", "Output", "mL", "Numeric"),
    (226563, "Suprapubic", "Suprapubic", "outputevents", "Output", "mL", "Numeric"),
    (226564, "R Nephrostomy", "R Nephrostomy", "outputevents", "Output", "mL", "Numeric"),
    (226565, "L Nephrostomy", "L Nephrostomy", "outputevents", "Output", "mL", "Numeric"),
    (226567, "Straight Cath", "Straight Cath", "outputevents", "Output", "mL", "Numeric"),
    (226557, "R Ureteral Stent", "R Ureteral Stent", "outputevents", "Output", "mL", "Numeric"),
    (226558, "L Ureteral Stent", "L Ureteral Stent", "outputevents", "Output", "mL", "Numeric"),
    (227488, "GU Irrigant Volume In", "GU Irrigant Volume In", "outputevents", "Output", "mL", "Numeric"),
    (227489, "GU Irrigant/Urine Volume Out", "GU Irrigant/Urine Volume Out", "outputevents", "Output", "mL", "Numeric"),
    (226588, "Chest Tube #1", "Chest Tube #1", "outputevents", "Output", "mL", "Numeric"),
    # vasoactive and other infusions
    (221906, "Norepinephrine", "Norepinephrine", "inputevents", "Medications", "mg", "Solution"),
    (221289, "Epinephrine", "Epinephrine", "inputevents", "Medications", "mg", "Solution"),
    (221662, "Dopamine", "Dopamine", "inputevents", "Medications", "mg", "Solution"),
    (221653, "Dobutamine", "Dobutamine", "inputevents", "Medications", "mg", "Solution"),
    (221749, "Phenylephrine", "Phenylephrine", "inputevents", "Medications", "mg", "Solution"),
    (222315, "Vasopressin", "Vasopressin", "inputevents", "Medications", "units", "Solution"),
    (221986, "Milrinone", "Milrinone", "inputevents", "Medications", "mg", "Solution"),
    (222168, "Propofol", "Propofol", "inputevents", "Medications", "mg", "Solution"),
    (221744, "Fentanyl", "Fentanyl", "inputevents", "Medications", "mg", "Solution"),
    (222062, "Vecuronium", "Vecuronium", "inputevents", "Medications", "mg", "Solution"),
    (225158, "NaCl 0.9%", "NaCl 0.9%", "inputevents", "Fluids/Intake", "mL", "Solution"),
    (227536, "KCl (CRRT)", "KCl (CRRT)", "inputevents", "Medications", "mEq", "Solution"),
    (227525, "Calcium Gluconate (CRRT)", "Calcium Gluconate (CRRT)", "inputevents", "Medications", "grams", "Solution"),
    (220490, "Free Water", "Free Water", "ingredientevents", "Ingredients", "mL", "Ingredient"),
    (220454, "Calories", "Calories", "ingredientevents", "Ingredients", "kcal", "Ingredient"),
    # procedures
    (225792, "Invasive Ventilation", "Invasive Ventilation", "procedureevents", "Ventilation", None, "Processes"),
    (225794, "Non-invasive Ventilation", "Non-invasive Ventilation", "procedureevents", "Ventilation", None, "Processes"),
    (224385, "Intubation", "Intubation", "procedureevents", "Procedures", None, "Processes"),
    (227194, "Extubation", "Extubation", "procedureevents", "Procedures", None, "Processes"),
    (225802, "Dialysis - CRRT", "Dialysis - CRRT", "procedureevents", "Dialysis", None, "Processes"),
    (225441, "Hemodialysis", "Hemodialysis", "procedureevents", "Dialysis", None, "Processes"),
    (224270, "Dialysis Catheter", "Dialysis Catheter", "procedureevents", "Access Lines - Invasive", None, "Processes"),
    (225752, "Arterial Line", "Arterial Line", "procedureevents", "Access Lines - Invasive", None, "Processes"),
    (224263, "Multi Lumen", "Multi Lumen", "procedureevents", "Access Lines - Invasive", None, "Processes"),
    # date and time
    (224288, "Arterial Line Insertion Date", "Arterial Line Insertion Date", "datetimeevents", "Access Lines - Invasive", None, "Date and time"),
    (225754, "Last Dialysis", "Last Dialysis", "datetimeevents", "Dialysis", None, "Date and time"),
)

# itemid, label, fluid, category
D_LABITEMS: tuple[tuple[int, str, str, str], ...] = (
    (52033, "Specimen Type", "Blood", "Blood Gas"),
    (50801, "Alveolar-arterial Gradient", "Blood", "Blood Gas"),
    (50802, "Base Excess", "Blood", "Blood Gas"),
    (50803, "Calculated Bicarbonate, Whole Blood", "Blood", "Blood Gas"),
    (50804, "Calculated Total CO2", "Blood", "Blood Gas"),
    (50805, "Carboxyhemoglobin", "Blood", "Blood Gas"),
    (50806, "Chloride, Whole Blood", "Blood", "Blood Gas"),
    (50807, "Comments", "Blood", "Blood Gas"),
    (50808, "Free Calcium", "Blood", "Blood Gas"),
    (50809, "Glucose", "Blood", "Blood Gas"),
    (50810, "Hematocrit, Calculated", "Blood", "Blood Gas"),
    (50811, "Hemoglobin", "Blood", "Blood Gas"),
    (50813, "Lactate", "Blood", "Blood Gas"),
    (50814, "Methemoglobin", "Blood", "Blood Gas"),
    (50815, "O2 Flow", "Blood", "Blood Gas"),
    (50816, "Oxygen", "Blood", "Blood Gas"),
    (50817, "Oxygen Saturation", "Blood", "Blood Gas"),
    (50818, "pCO2", "Blood", "Blood Gas"),
    (50819, "PEEP", "Blood", "Blood Gas"),
    (50820, "pH", "Blood", "Blood Gas"),
    (50821, "pO2", "Blood", "Blood Gas"),
    (50822, "Potassium, Whole Blood", "Blood", "Blood Gas"),
    (50823, "Required O2", "Blood", "Blood Gas"),
    (50824, "Sodium, Whole Blood", "Blood", "Blood Gas"),
    (50825, "Temperature", "Blood", "Blood Gas"),
    (50862, "Albumin", "Blood", "Chemistry"),
    (50930, "Globulin", "Blood", "Chemistry"),
    (50976, "Protein, Total", "Blood", "Chemistry"),
    (50868, "Anion Gap", "Blood", "Chemistry"),
    (50882, "Bicarbonate", "Blood", "Chemistry"),
    (50893, "Calcium, Total", "Blood", "Chemistry"),
    (50902, "Chloride", "Blood", "Chemistry"),
    (50912, "Creatinine", "Blood", "Chemistry"),
    (50931, "Glucose", "Blood", "Chemistry"),
    (50971, "Potassium", "Blood", "Chemistry"),
    (50983, "Sodium", "Blood", "Chemistry"),
    (51006, "Urea Nitrogen", "Blood", "Chemistry"),
    (50861, "Alanine Aminotransferase (ALT)", "Blood", "Chemistry"),
    (50863, "Alkaline Phosphatase", "Blood", "Chemistry"),
    (50867, "Amylase", "Blood", "Chemistry"),
    (50878, "Asparate Aminotransferase (AST)", "Blood", "Chemistry"),
    (50883, "Bilirubin, Direct", "Blood", "Chemistry"),
    (50884, "Bilirubin, Indirect", "Blood", "Chemistry"),
    (50885, "Bilirubin, Total", "Blood", "Chemistry"),
    (50910, "Creatine Kinase (CK)", "Blood", "Chemistry"),
    (50911, "Creatine Kinase, MB Isoenzyme", "Blood", "Chemistry"),
    (50927, "Gamma Glutamyltransferase", "Blood", "Chemistry"),
    (50954, "Lactate Dehydrogenase (LD)", "Blood", "Chemistry"),
    (50889, "C-Reactive Protein", "Blood", "Chemistry"),
    (50963, "NTproBNP", "Blood", "Chemistry"),
    (51003, "Troponin T", "Blood", "Chemistry"),
    (51221, "Hematocrit", "Blood", "Hematology"),
    (51222, "Hemoglobin", "Blood", "Hematology"),
    (51248, "MCH", "Blood", "Hematology"),
    (51249, "MCHC", "Blood", "Hematology"),
    (51250, "MCV", "Blood", "Hematology"),
    (51265, "Platelet Count", "Blood", "Hematology"),
    (51277, "RDW", "Blood", "Hematology"),
    (51279, "Red Blood Cells", "Blood", "Hematology"),
    (52159, "RDW-SD", "Blood", "Hematology"),
    (51300, "WBC Count", "Blood", "Hematology"),
    (51301, "White Blood Cells", "Blood", "Hematology"),
    (51755, "White Blood Cells", "Blood", "Hematology"),
    (51144, "Bands", "Blood", "Hematology"),
    (51146, "Basophils", "Blood", "Hematology"),
    (51200, "Eosinophils", "Blood", "Hematology"),
    (51244, "Lymphocytes", "Blood", "Hematology"),
    (51254, "Monocytes", "Blood", "Hematology"),
    (51256, "Neutrophils", "Blood", "Hematology"),
    (52075, "Absolute Neutrophil Count", "Blood", "Hematology"),
    (51196, "D-Dimer", "Blood", "Hematology"),
    (51214, "Fibrinogen, Functional", "Blood", "Hematology"),
    (51237, "INR(PT)", "Blood", "Hematology"),
    (51274, "PT", "Blood", "Hematology"),
    (51275, "PTT", "Blood", "Hematology"),
)

# lab itemid -> (unit, reference range lower, upper)
LAB_UNITS: dict[int, tuple[str | None, float | None, float | None]] = {
    50801: ("mm Hg", None, None), 50802: ("mEq/L", None, None), 50803: ("mEq/L", 22, 26),
    50804: ("mEq/L", 21, 30), 50813: ("mmol/L", 0.5, 2.0), 50816: ("%", None, None),
    50817: ("%", None, None), 50818: ("mm Hg", 35, 45), 50820: ("units", 7.35, 7.45),
    50821: ("mm Hg", 85, 105), 50822: ("mEq/L", 3.5, 5.3), 50824: ("mEq/L", 133, 145),
    50862: ("g/dL", 3.5, 5.2), 50868: ("mEq/L", 8, 20), 50882: ("mEq/L", 22, 32),
    50893: ("mg/dL", 8.4, 10.3), 50902: ("mEq/L", 96, 108), 50912: ("mg/dL", 0.5, 1.2),
    50931: ("mg/dL", 70, 100), 50971: ("mEq/L", 3.5, 5.3), 50983: ("mEq/L", 133, 145),
    51006: ("mg/dL", 6, 20), 50861: ("IU/L", 0, 40), 50863: ("IU/L", 35, 105),
    50878: ("IU/L", 0, 40), 50885: ("mg/dL", 0, 1.5), 50889: ("mg/L", 0, 5),
    50963: ("pg/mL", 0, 353), 51003: ("ng/mL", 0, 0.01),
    51221: ("%", 36, 48), 51222: ("g/dL", 12, 16), 51248: ("pg", 26, 32), 51249: ("%", 31, 37),
    51250: ("fL", 82, 98), 51265: ("K/uL", 150, 440), 51277: ("%", 10.5, 15.5),
    51279: ("m/uL", 4.2, 5.4), 52159: ("fL", 35.1, 46.3), 51301: ("K/uL", 4, 11),
    51300: ("K/uL", 4, 11), 51144: ("%", 0, 5), 51146: ("%", 0, 1), 51200: ("%", 0, 4),
    51244: ("%", 18, 42), 51254: ("%", 2, 11), 51256: ("%", 50, 70),
    51237: (None, 0.9, 1.1), 51274: ("sec", 9.4, 12.5), 51275: ("sec", 25, 36.5),
}

ICU_CAREUNITS: tuple[str, ...] = (
    "Medical Intensive Care Unit (MICU)",
    "Surgical Intensive Care Unit (SICU)",
    "Medical/Surgical Intensive Care Unit (MICU/SICU)",
    "Cardiac Vascular Intensive Care Unit (CVICU)",
    "Coronary Care Unit (CCU)",
    "Neuro Surgical Intensive Care Unit (Neuro SICU)",
    "Trauma SICU (TSICU)",
)
WARD_CAREUNITS: tuple[str, ...] = (
    "Medicine", "Med/Surg", "Surgery", "Transplant", "Neurology", "Cardiology",
    "Medicine/Cardiology", "Hematology/Oncology", "Vascular",
)

ANCHOR_YEAR_GROUPS: tuple[str, ...] = (
    "2008 - 2010", "2011 - 2013", "2014 - 2016", "2017 - 2019", "2020 - 2022",
)

# Charlson comorbidities, one (ICD-9, ICD-10) pair of real codes each (dots removed).
CHARLSON_CODES: dict[str, tuple[str, str]] = {
    "myocardial_infarct": ("41071", "I214"),
    "congestive_heart_failure": ("4280", "I509"),
    "peripheral_vascular_disease": ("4439", "I739"),
    "cerebrovascular_disease": ("43491", "I639"),
    "dementia": ("2900", "F0390"),
    "chronic_pulmonary_disease": ("496", "J449"),
    "rheumatic_disease": ("7140", "M069"),
    "peptic_ulcer_disease": ("5319", "K259"),
    "mild_liver_disease": ("5715", "K7460"),
    "diabetes_without_cc": ("25000", "E119"),
    "diabetes_with_cc": ("25040", "E1122"),
    "paraplegia": ("3441", "G8220"),
    "renal_disease": ("5853", "N183"),
    "malignant_cancer": ("1629", "C349"),
    "severe_liver_disease": ("5723", "K7290"),
    "metastatic_solid_tumor": ("1977", "C787"),
    "aids": ("042", "B20"),
}
# diagnoses by clinical theme, (ICD-9, ICD-10)
THEME_CODES: dict[str, tuple[tuple[str, str], ...]] = {
    "sepsis": (("0389", "A419"), ("99592", "R6520"), ("78552", "R6521")),
    "pneumonia": (("486", "J189"), ("51881", "J9601")),
    "resp_failure": (("51881", "J9600"), ("51884", "J9620")),
    "aki": (("5849", "N179"),),
    "ckd_late": (("5856", "N186"), ("40391", "I120")),
    "ckd_early": (("5853", "N183"),),
    "liver": (("5712", "K7031"), ("5723", "K7290"), ("4560", "I8501")),
    "cardiac": (("4280", "I5023"), ("41401", "I2510"), ("42731", "I4891")),
    "neuro": (("431", "I619"), ("43411", "I63412"), ("3453", "G40901")),
    "surgery": (("71536", "M1711"), ("99859", "T8149XA"), ("V4581", "Z951")),
    "copd": (("49121", "J441"), ("496", "J449")),
    "hem_malignancy": (("20410", "C9110"), ("2030", "C9000")),
    "metastases": (("1977", "C787"), ("1983", "C7931")),
    "filler": (("4019", "I10"), ("2724", "E785"), ("53081", "K219"), ("3051", "F17210"),
               ("V5861", "Z7901"), ("2449", "E039"), ("311", "F329"), ("2859", "D649")),
}

# drug, route, drug_type: antibiotics counted by the antibiotic concept
ANTIBIOTICS: tuple[tuple[str, str], ...] = (
    ("Vancomycin", "IV"), ("Piperacillin-Tazobactam", "IV"), ("CeftriaXONE", "IV"),
    ("Cefepime", "IV"), ("Meropenem", "IV"), ("Levofloxacin", "PO/NG"),
    ("MetroNIDAZOLE (FLagyl)", "IV"), ("Azithromycin", "IV"), ("CefazoLIN", "IV"),
    ("Sulfameth/Trimethoprim DS", "PO"), ("Ciprofloxacin HCl", "PO"), ("Linezolid", "IV"),
)
# rows the antibiotic concept must drop: topical/eye/ear routes, excluded forms, BASE, NULL route
EXCLUDED_ANTIBIOTICS: tuple[tuple[str, str | None, str], ...] = (
    ("Mupirocin Ointment 2%", "TP", "MAIN"),
    ("Erythromycin 0.5% Ophth Oint", "BOTH EYES", "MAIN"),
    ("Ciprofloxacin 0.3% Ophth Soln", "OU", "MAIN"),
    ("Ofloxacin 0.3% Otic Soln", "LEFT EAR", "MAIN"),
    ("Silver Sulfadiazine 1% Cream", "TP", "MAIN"),
    ("Metronidazole Gel 0.75%", "VG", "MAIN"),
    ("Penicillin G Benzathine Desensitization", "IV", "MAIN"),
    ("Vancomycin Oral Liquid", None, "MAIN"),
    ("Vancomycin", "IV", "BASE"),
)
OTHER_DRUGS: tuple[tuple[str, str, str, str], ...] = (
    # drug, route, dose unit, form
    ("Heparin", "SC", "UNIT", "mL"), ("Acetaminophen", "PO/NG", "mg", "TAB"),
    ("Pantoprazole", "IV", "mg", "VIAL"), ("Insulin", "SC", "UNIT", "SYR"),
    ("Furosemide", "IV", "mg", "VIAL"), ("Docusate Sodium", "PO", "mg", "CAP"),
    ("Lisinopril", "PO", "mg", "TAB"), ("Ibuprofen", "PO", "mg", "TAB"),
    ("Sodium Chloride 0.9%  Flush", "IV", "mL", "SYR"), ("Ondansetron", "IV", "mg", "VIAL"),
    ("Metoprolol Tartrate", "PO", "mg", "TAB"), ("Potassium Chloride", "PO", "mEq", "TAB"),
)

# microbiology: spec_itemid, spec_type_desc, test_itemid, test_name
SPECIMENS: tuple[tuple[int, str, int, str], ...] = (
    (70012, "BLOOD CULTURE", 90201, "Blood Culture, Routine"),
    (70079, "URINE", 90039, "URINE CULTURE"),
    (70062, "SPUTUM", 90115, "RESPIRATORY CULTURE"),
    (70070, "SWAB", 90079, "WOUND CULTURE"),
)
ORGANISMS: tuple[tuple[int, str], ...] = (
    (80002, "ESCHERICHIA COLI"), (80023, "STAPH AUREUS COAG +"),
    (80026, "PSEUDOMONAS AERUGINOSA"), (80004, "KLEBSIELLA PNEUMONIAE"),
    (80053, "ENTEROCOCCUS SP."),
)
NEGATIVE_ORGANISM = (90856, "NEGATIVE")
CANCELLED_ORGANISM = (90760, "CANCELLED")
SUSCEPTIBILITY: tuple[tuple[int, str], ...] = (
    (90004, "AMPICILLIN"), (90012, "GENTAMICIN"), (90025, "CEFTRIAXONE"),
    (90016, "LEVOFLOXACIN"), (90015, "VANCOMYCIN"),
)

# ventilation vocabulary (device strings as MIMIC spells them, trailing spaces included)
INVASIVE_MODES: tuple[str, ...] = ("CMV/ASSIST/AutoFlow", "CMV/ASSIST", "SIMV/PSV", "PRVC/AC", "VOL/AC", "APRV", "CPAP/PSV")
HAMILTON_INVASIVE: tuple[str, ...] = ("(S) CMV", "P-CMV", "APV (cmv)", "ASV")
HAMILTON_NIV: tuple[str, ...] = ("DuoPaP", "NIV", "NIV-ST")
SUPPLEMENTAL_DEVICES: tuple[str, ...] = (
    "Nasal cannula", "Face tent", "Non-rebreather", "Aerosol-cool", "Venti mask ",
    "Medium conc mask ", "Ultrasonic neb", "Vapomist", "Oxymizer", "High flow neb",
)
UNCLASSIFIED_DEVICES: tuple[str, ...] = ("T-piece", "Other")
UNCLASSIFIED_MODES: tuple[str, ...] = ("SPONT", "Standby")

GCS_EYES = {4: "Spontaneously", 3: "To Speech", 2: "To Pain", 1: "No Response"}
GCS_VERBAL = {5: "Oriented", 4: "Confused", 3: "Inappropriate Words", 2: "Incomprehensible sounds", 1: "No Response"}
GCS_MOTOR = {6: "Obeys Commands", 5: "Localizes Pain", 4: "Flex-withdraws", 3: "Abnormal Flexion",
             2: "Abnormal extension", 1: "No response"}
