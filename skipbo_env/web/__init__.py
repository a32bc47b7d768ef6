"""Deprecated import path (see skipbo_env/_moved.py): use skipbo_env.apps.web."""
import warnings

warnings.warn("skipbo_env.web moved to skipbo_env.apps.web; the old path works for one more "
              "release", DeprecationWarning, stacklevel=2)
