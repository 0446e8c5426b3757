"""A fleet's world: five local bare origins seeded from the demo repository, the fleet stand-in
(GitHub's repository, search and issue endpoints; one App token that reaches some repositories),
a home repository for the tracking issue, and checkouts the way the workflow's legs make them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.testing.github_standin_fleet import FleetStandIn
from tests.github.conftest import DEMO, git

APP = "fleet-app[bot]"
APP_TOKEN = "ghs_" + "Fleet" * 8
HOME = "octo/fleet-home"
BOT = [str(Path(sys.executable).parent / "bot")]


@dataclass
class FleetWorld:
    gh: FleetStandIn
    tmp: Path
    origins: dict[str, Path]

    def origin(self, repository: str) -> Path:
        return self.origins[repository]

    def checkout(self, repository: str) -> Path:
        """What the leg's actions/checkout step leaves: a clone of the repository's origin."""
        target = self.tmp / "checkouts" / repository.replace("/", "__")
        subprocess.run(
            ["git", "clone", "-q", str(self.origin(repository)), str(target)], check=True, env=self.git_env()
        )
        return target

    def env(self, **extra: str) -> dict[str, str]:
        """What a workflow step gives the bot: the runner basics, the API, the App's token."""
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp / "home"),
            "GITHUB_API_URL": self.gh.api_url,
            "GITHUB_SERVER_URL": self.gh.server_url,
            "GITHUB_RUN_ID": "777",
            "GITHUB_TOKEN": APP_TOKEN,
        }
        env.update(extra)
        return env

    @staticmethod
    def git_env() -> dict[str, str]:
        return {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "GIT_CONFIG_NOSYSTEM": "1"}


def seed_origin(tmp: Path, name: str) -> Path:
    origin = tmp / "origins" / f"{name}.git"
    origin.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    seed = tmp / "seeds" / name
    shutil.copytree(DEMO, seed)
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    git(seed, "push", "-q", str(origin), "main")
    return origin


@pytest.fixture
def fleet_world(tmp_path: Path) -> Iterator[FleetWorld]:
    (tmp_path / "home").mkdir()
    names = ["alpha", "beta", "gamma", "delta", "epsilon"]
    origins = {f"octo/{n}": seed_origin(tmp_path, n) for n in names}
    with FleetStandIn(tokens={APP_TOKEN: APP}, bot_login=APP) as gh:
        for repository, origin in origins.items():
            gh.add_repo(repository, git_dir=origin, topics=["python", "fleet-demo"])
        gh.add_repo(HOME)
        for repository in ("octo/alpha", "octo/beta", "octo/gamma", "octo/delta", HOME):
            gh.set_permission(repository, APP, "write")
        # The App is installed on epsilon with read access only; octo/ghost does not exist for it.
        gh.set_permission("octo/epsilon", APP, "read")
        yield FleetWorld(gh, tmp_path, origins)
