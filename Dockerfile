# The container form of the bot: the same `bot run`, with git, ripgrep and bubblewrap installed.
#
# As a Docker container action (container/action.yml) it runs as the image's default user, root:
# GitHub requires it (a USER instruction leaves the action unable to write GITHUB_WORKSPACE, which
# the runner mounts and owns) and sets the working directory itself, so this file has no USER and
# no WORKDIR, and its ENTRYPOINT is an absolute path.
#
# Locally, run it as yourself, so files written to the mounted repository are yours, not root's:
#   docker build -t headless-bot .
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" -w /work headless-bot run --local ...
#
# The shell sandbox (bubblewrap) needs user namespaces, which Docker's default seccomp profile
# refuses: under a policy with `sandbox: required` (the shipped presets) shell commands are denied
# in this form. The composite action (action.yml) sets the sandbox up on the runner; prefer it.
FROM python:3.12-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends git ripgrep bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md /opt/bot/
COPY bot /opt/bot/bot
COPY policies /opt/bot/policies
# Every model provider's extra, so the action's model_provider input works without a rebuild.
RUN pip install --no-cache-dir "/opt/bot[bedrock,vertex]" \
    # The checkout is mounted owned by the runner's user; root's git would refuse it as "dubious
    # ownership". Trusted for that one path only.
    && git config --system --add safe.directory /github/workspace

# python -I: no PYTHON* variable the job passes in (a PYTHONPATH naming the mounted workspace,
# which the model writes) and no working directory on the import path (bot/core/import_path.py).
ENTRYPOINT ["/usr/local/bin/python", "-I", "/usr/local/bin/bot"]
CMD ["run"]
