# The container form of the bot: the same `bot run`, with git, ripgrep and bubblewrap installed.
# Build: docker build -t headless-bot .   Run: docker run --rm -v "$PWD:/work" -w /work headless-bot run --local ...
FROM python:3.12-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends git ripgrep bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/bot
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY policies ./policies
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 1001 bot

# Unprivileged by default: the sandbox (bubblewrap) needs user namespaces, not root.
USER bot
ENTRYPOINT ["bot"]
CMD ["run"]
