"""Adapters to outside RL libraries: stable-baselines3 (`sb3`) and Ray RLlib (`rllib`, the
rllib extra). Each translates; none decides anything about the game."""
