"""Training (the train extra): configs (`config`), MaskablePPO runs (`ppo`), behaviour cloning
(`pretrain`), Ray RLlib runs (`rllib_ppo`, the rllib extra), what a run reports (`report`) and
learning curves (`plot`). The scripts in the repository's training/ folder run these."""
