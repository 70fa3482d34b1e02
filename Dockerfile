# The Gin Rummy server. Build: docker build -t ginrummy .   Run: docker compose up
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GINRUMMY_HOST=0.0.0.0 \
    GINRUMMY_PORT=8000

WORKDIR /app
# The code, the migrations (applied at start-up), the web page and its rule book with the
# documents it links to, and the WebSocket protocol's document (served at /schema).
# The install is editable because the migrations are found beside
# the code (infra/migrate.py).
COPY pyproject.toml alembic.ini ./
COPY migrations ./migrations
COPY domain ./domain
COPY infra ./infra
COPY server ./server
COPY docs/rules.md docs/fair-deal.md docs/api.md docs/configuration.md ./docs/
COPY openapi/asyncapi.yaml ./openapi/
RUN pip install -e . \
    && useradd --create-home ginrummy && mkdir -p data && chown ginrummy data
USER ginrummy

EXPOSE 8000
# Liveness, not readiness: Docker marks a container that fails this unhealthy, and Swarm or
# an autoheal tool then restarts it. /readyz fails while the database is down or this
# process's read models lag (503), which a restart cannot mend, and a database outage would
# restart every container at once; a proxy should route on /readyz instead
# (docs/operations.md, "Liveness and readiness"). The check asks the port the server
# really listens on, should GINRUMMY_PORT change it.
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ['GINRUMMY_PORT'])"
# Without GINRUMMY_DATABASE_URL it runs on the embedded SQLite file in /app/data.
CMD ["ginrummy", "serve"]
