"""The package's version (the facade, skipbo_env, and every model card read it here)."""

__version__ = "0.1.0"
