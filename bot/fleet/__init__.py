"""Fleets: one task run across many repositories, with GitHub Actions' job matrix as the engine.

Where each question is answered:

- what a fleet file may say, and its errors with file and line: :mod:`bot.fleet.spec`
- which repositories a fleet covers and whether the token can push to each: :mod:`bot.fleet.plan`
  (the GitHub calls: :mod:`bot.github.fleet_api`)
- one leg, a ``bot run`` in one repository, and its record: :mod:`bot.fleet.leg`
- the report over every leg, and the tracking issue: :mod:`bot.fleet.report`

The workflow that ties them together is ``workflows/fleet.yml``; the guide is ``docs/fleet.md``.
"""

from bot.fleet.leg import Leg, run_leg
from bot.fleet.plan import Plan, build_plan, plan_fleet
from bot.fleet.report import Row, build_rows, gather, publish, render
from bot.fleet.spec import FleetSpec, Limits, Query, Target, load_fleet, parse_fleet

__all__ = [
    "FleetSpec",
    "Leg",
    "Limits",
    "Plan",
    "Query",
    "Row",
    "Target",
    "build_plan",
    "build_rows",
    "gather",
    "load_fleet",
    "parse_fleet",
    "plan_fleet",
    "publish",
    "render",
    "run_leg",
]
