"""Training (the train extra): configs (`config`), MaskablePPO runs (`ppo`), behaviour cloning
(`pretrain`), best responses for the exploitability proxy (`exploit`), Ray RLlib runs
(`rllib_ppo`, the rllib extra), what a run reports (`report`) and learning curves (`plot`).
The scripts in the repository's training/ folder run these; `skipbo_env.extras` says whether
the extra is installed."""
