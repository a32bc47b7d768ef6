"""`python -m skipbo_env.vector`: compile every kernel into the cache (`precompile`)."""

import sys

from .precompile import main

sys.exit(main())
