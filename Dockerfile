# The Agents Club gateway image.
#
#   docker build -t agents-club .
#   docker run -p 8000:8000 -e AGENTS_CLUB_ORGANISER_KEY=... -e AGENTS_CLUB_SIGNING_KEY_PEM="$(cat key.pem)" \
#       -e REDIS_URL=redis://redis-host:6379/0 agents-club
#
# compose.yaml runs it next to a Redis with append-only persistence. Without
# REDIS_URL the image starts its own redis-server (AOF in the /data volume).
#
# Two stages: the first builds the wheels from the sources (the server's, the
# SDK's from sdk/ and the engine's from engine/: three distributions), the
# second installs them as any user would (pip install *.whl), so the image holds
# no source tree, and runs what tests/test_wheel_install.py tests.

FROM python:3.11-slim AS wheel

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# What the wheels are built from: each project file, the files it names and its
# packages (a distribution in its own folder is copied whole and listed on the
# pip wheel line).
COPY pyproject.toml README.md LICENSE ./
COPY gateway ./gateway
COPY quiz ./quiz
COPY agents_club_cli ./agents_club_cli
COPY tournament ./tournament
COPY sdk ./sdk
COPY engine ./engine
RUN pip wheel --no-deps --wheel-dir /wheels . ./sdk ./engine


FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# redis-server only serves the embedded mode (no REDIS_URL); compose uses its own Redis.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 agents \
    && useradd --system --uid 10001 --gid agents --home-dir /app --shell /usr/sbin/nologin agents

# The locked runtime dependencies first (every file hash checked), in their own
# layer; then the built wheels alone (--no-deps: the lock already installed what
# they need; pip check confirms the server's wheel found the SDK and engine ones).
COPY requirements/main.txt /tmp/requirements.txt
RUN pip install --require-hashes -r /tmp/requirements.txt && rm /tmp/requirements.txt
COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-deps /tmp/wheels/*.whl \
    && pip check \
    && rm -rf /tmp/wheels \
    && mkdir -p /app /data \
    && chown agents:agents /app /data

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
