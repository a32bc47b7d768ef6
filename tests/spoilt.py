"""A checkpoint that only reading its weights can refuse (tests of the checks that read
them before any work starts)."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spoilt_checkpoint(tmp_path: Path) -> str:
    """A copy of the shipped short-game checkpoint whose card is fine and whose weights hold
    a NaN: only reading the weights finds it."""
    import torch

    shipped = ROOT / "checkpoints" / "short_2p.zip"
    with zipfile.ZipFile(shipped) as z:
        state = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
        entries = {i.filename: z.read(i) for i in z.infolist()}
    state["value_net.bias"][0] = float("nan")
    buf = io.BytesIO()
    torch.save(state, buf)
    entries["policy.pth"] = buf.getvalue()
    path = tmp_path / "spoilt.zip"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    shutil.copy(shipped.with_suffix(".json"), tmp_path / "spoilt.json")
    return str(path)
