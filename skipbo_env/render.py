"""Deprecated import path (see skipbo_env/_moved.py): use the module named there."""
from skipbo_env._moved import moved

moved(__name__)
