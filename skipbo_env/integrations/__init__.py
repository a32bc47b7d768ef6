"""Adapters to outside RL libraries: stable-baselines3 (`sb3`) and Ray RLlib (`rllib`, the
rllib extra) and OpenSpiel (`openspiel`, the openspiel extra: importing it registers the game).
Each translates; none decides anything about the game."""
