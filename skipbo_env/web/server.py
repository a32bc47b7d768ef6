"""Deprecated import path (see skipbo_env/_moved.py): use skipbo_env.apps.web.server."""
from skipbo_env._moved import moved

moved(__name__)
