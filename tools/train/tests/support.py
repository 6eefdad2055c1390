"""Shared helpers for the tools/train tests: optional imports and where things live."""

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRAIN = HERE.parent
REPO = TRAIN.parents[1]
sys.path.insert(0, str(TRAIN))

HAVE_NUMPY = importlib.util.find_spec("numpy") is not None
HAVE_TORCH = importlib.util.find_spec("torch") is not None
TESTDATA = Path(os.environ.get("WAFER_TESTDATA_DIR", REPO.parent / "shared" / "testdata"))
MODELS = REPO / "models"


def wafer_binary():
    """The wafer executable CTest passes in WAFER_BIN, or build/server/wafer; None if absent."""
    for cand in (os.environ.get("WAFER_BIN"), REPO / "build" / "server" / "wafer"):
        if cand and Path(cand).is_file():
            return Path(cand)
    return None
