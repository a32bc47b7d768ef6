"""Training (the train extra): configs (`config`), MaskablePPO runs (`ppo`), behaviour cloning
(`pretrain`), Ray RLlib runs (`rllib_ppo`, the rllib extra), what a run reports (`report`) and
learning curves (`plot`). The scripts in the repository's training/ folder run these."""

TRAIN_EXTRA = ("sb3_contrib", "torch", "yaml")  # what training imports, beyond the package's own
INSTALL_TRAIN = "pip install torch==2.13.0 && pip install -e '.[train]'"


def missing_train_extra(command: str) -> str | None:
    """None when the train extra imports, else the message `command` stops with: which package
    is missing and how to install the extra (torch's CPU build first)."""
    for name in TRAIN_EXTRA:
        try:
            __import__(name)
        except ImportError as err:
            return (f"{command} needs the train extra ({err.name or name} is not installed): "
                    f"{INSTALL_TRAIN}")
    return None
