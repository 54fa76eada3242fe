"""The clinical domains of a synthetic MIMIC-IV patient, one module each, grouped as mimic-code groups concepts.

Admission: ``stays`` (admissions, transfers, ICU stays), ``services``, ``diagnoses``, ``labs``
(ward labs), ``infection`` (cultures and antibiotics), ``prescriptions``. ICU stay:
``ventilation`` (planned first, then charted), ``vitals``, ``gcs``, ``weights``,
``chart_errors``, ``crrt``, ``labs`` and ``gases``, ``outputs``, ``infusions``,
``procedures``. Each writes its own tables from the ``Patient`` and the stay or admission it
is given (``context.py``); ``patients.py`` calls them in the order of the random stream.
"""
