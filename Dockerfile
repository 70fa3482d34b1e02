# The Gin Rummy server. Build: docker build -t ginrummy .   Run: docker compose up
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GINRUMMY_HOST=0.0.0.0 \
    GINRUMMY_PORT=8000

WORKDIR /app
# Dependencies first, so code edits do not reinstall them.
COPY pyproject.toml ./
RUN mkdir -p domain infra server && touch domain/__init__.py infra/__init__.py server/__init__.py \
    && pip install -e . && rm -rf domain infra server
# The code, the migrations (applied at start-up) and the web page.
COPY alembic.ini ./
COPY migrations ./migrations
COPY domain ./domain
COPY infra ./infra
COPY server ./server
RUN pip install --no-deps -e . && useradd --create-home ginrummy && mkdir -p data \
    && chown ginrummy data
USER ginrummy

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
    CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/readyz'); sys.exit(0)"
# Without GINRUMMY_DATABASE_URL it runs on the embedded SQLite file in /app/data.
CMD ["ginrummy", "serve"]
