"""scripts/sqitch_release.py as a module of the upgrade suite (it is a script, not on any import path)."""
import importlib.util
import os

from harness import env as harness_env

_spec = importlib.util.spec_from_file_location(
    "sqitch_release", os.path.join(harness_env.REPO_ROOT, "scripts", "sqitch_release.py"))
sqitch_release = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sqitch_release)
