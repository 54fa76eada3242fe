"""Where the workspace store keeps things on the host, under ``DIR/workspaces/``.

::

    DIR/workspaces/
      .lock                              serialises preparation across processes
      native/
        stamps/<dataset>.json            what each export was made from (see export.py)
        data/<schema>/<table>.parquet    read-only export of the source and derived tables
        mounts/<digest>/...              hard-link folders, one per distinct plan (see mounts.py)
      obfuscated/ | restructured/
        stamp.json                       what the variant was derived from
        dictionary.json                  native name -> neutral name; never mounted
        data/ds_N/t_NNN.parquet          the rewritten data under neutral names
        mounts/<digest>/...

Only a ``mounts/<digest>`` folder is ever bound into a container, so stamps and the
dictionary stay on the host.
"""

from __future__ import annotations

from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.paths import resolve_data_dir

NATIVE = "native"
OBFUSCATED = "obfuscated"
RESTRUCTURED = "restructured"
VARIANTS = (NATIVE, OBFUSCATED, RESTRUCTURED)
TRANSFORMED = (OBFUSCATED, RESTRUCTURED)


def check_variant(variant: str) -> str:
    """``variant`` itself when it is a known schema variant, else a user-facing error."""
    if variant not in VARIANTS:
        raise M4AgentError(f"unknown schema variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def store_root(data_dir: str | Path | None) -> Path:
    return resolve_data_dir(data_dir) / "workspaces"


def variant_dir(data_dir: str | Path | None, variant: str) -> Path:
    return store_root(data_dir) / check_variant(variant)


def data_root(data_dir: str | Path | None, variant: str) -> Path:
    """The folder a plan's relative Parquet paths are relative to."""
    return variant_dir(data_dir, variant) / "data"


def mounts_root(data_dir: str | Path | None, variant: str) -> Path:
    return variant_dir(data_dir, variant) / "mounts"


def dictionary_path(data_dir: str | Path | None, variant: str) -> Path:
    return variant_dir(data_dir, variant) / "dictionary.json"


def stamp_path(data_dir: str | Path | None, variant: str, dataset: str | None = None) -> Path:
    """The native export's stamp of ``dataset``, or a transformed variant's stamp."""
    if variant == NATIVE:
        if dataset is None:
            raise ValueError("the native export has one stamp per dataset")
        return variant_dir(data_dir, NATIVE) / "stamps" / f"{dataset}.json"
    return variant_dir(data_dir, variant) / "stamp.json"


def lock_path(data_dir: str | Path | None) -> Path:
    return store_root(data_dir) / ".lock"
