"""The fuzz suite's modules import each other by name (``harness``, ``cases``)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
