"""Adapters to outside RL libraries: stable-baselines3 (`sb3`) and Ray RLlib (`rllib`, the
rllib extra), OpenSpiel (`openspiel`, the openspiel extra: importing it registers the game) and
Minari (`minari`, the minari extra: game records as an offline-RL dataset).
Each translates; none decides anything about the game."""
