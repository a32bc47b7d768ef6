"""The optional extras: what each imports and the line that installs it, asked for by whatever
needs one (loading a checkpoint, training, the exploitability proxy) before it starts."""

from __future__ import annotations

TRAIN_EXTRA = ("sb3_contrib", "torch", "yaml")  # what training imports, beyond the package's own
INSTALL_TRAIN = "pip install torch==2.13.0 && pip install -e '.[train]'"


def missing_train_extra(command: str) -> str | None:
    """None when the train extra imports, else the message `command` stops with: which package
    is missing (or fails to import, and why) and how to install the extra (torch's CPU build
    first)."""
    for name in TRAIN_EXTRA:
        try:
            __import__(name)
        except ImportError as err:
            missing = (f"{err.name} is not installed" if err.name
                       else f"{name} does not import: {err}")
            return f"{command} needs the train extra ({missing}): {INSTALL_TRAIN}"
        except Exception as err:  # installed but broken (a missing shared library, say)
            return (f"{command} needs the train extra ({name} is installed but does not "
                    f"import: {type(err).__name__}: {err}): {INSTALL_TRAIN}")
    return None
