# The Agents Club gateway image.
#
#   docker build -t agents-club .
#   docker run -p 8000:8000 -e AGENTS_CLUB_ORGANISER_KEY=... -e AGENTS_CLUB_SIGNING_KEY_PEM="$(cat key.pem)" \
#       -e REDIS_URL=redis://redis-host:6379/0 agents-club
#
# compose.yaml runs it next to a Redis with append-only persistence. Without
# REDIS_URL the image starts its own redis-server (AOF in the /data volume).
#
# Two stages: the first installs the uv workspace (the server, the SDK from sdk/ and
# the engine from engine/: three distributions, none editable) into /opt/venv from
# uv.lock, every file's hash checked; the second copies that environment alone, so
# the image holds no source tree.

FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_PROJECT_ENVIRONMENT=/opt/venv \
    UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy

# uv, pinned by hash as ./run pins it.
COPY requirements/uv.txt /tmp/uv.txt
RUN pip install --require-hashes -r /tmp/uv.txt

WORKDIR /src
# The locked runtime dependencies first, in their own layer (they change less often
# than the sources): the workspace's project files and the lock are all it reads.
COPY pyproject.toml uv.lock README.md LICENSE ./
COPY sdk/pyproject.toml sdk/README.md sdk/LICENSE ./sdk/
COPY engine/pyproject.toml engine/README.md engine/LICENSE ./engine/
RUN uv sync --locked --no-editable --no-install-workspace
# Then the three distributions themselves, built from their sources.
COPY gateway ./gateway
COPY quiz ./quiz
COPY agents_club_cli ./agents_club_cli
COPY tournament ./tournament
COPY sdk ./sdk
COPY engine ./engine
RUN uv sync --locked --no-editable


FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# redis-server only serves the embedded mode (no REDIS_URL); compose uses its own Redis.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 agents \
    && useradd --system --uid 10001 --gid agents --home-dir /app --shell /usr/sbin/nologin agents \
    && mkdir -p /app /data \
    && chown agents:agents /app /data

COPY --from=build /opt/venv /opt/venv

USER agents
WORKDIR /app
ENV AGENTS_CLUB_ENVIRONMENT=production \
    AGENTS_CLUB_DATA_DIR=/data \
    AGENTS_CLUB_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8000

# Readiness, not liveness: /readyz answers 503 while Redis does not, so an orchestrator
# stops routing to a gateway that can only answer 503 (/healthz stays 200 all along).
HEALTHCHECK --interval=15s --timeout=3s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status == 200 else 1)"]

# Production refuses to start without AGENTS_CLUB_ORGANISER_KEY and AGENTS_CLUB_SIGNING_KEY_PEM.
CMD ["agents-club", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
