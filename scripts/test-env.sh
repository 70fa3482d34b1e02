# Sourced by `make test` and `make bench`: makes sure a PostgreSQL server is up and a fresh,
# empty test database exists, then exports TEST_DATABASE_URL for the tests.
# An already set TEST_DATABASE_URL is used as it is (e.g. one from testcontainers or CI).
if [ -z "${TEST_DATABASE_URL:-}" ]; then
    PGHOST_ADDR="${PGHOST_ADDR:-127.0.0.1}"
    PGPORT_NUM="${PGPORT_NUM:-5432}"
    if ! pg_isready -q -h "$PGHOST_ADDR" -p "$PGPORT_NUM" 2>/dev/null; then
        if command -v pg_ctlcluster >/dev/null 2>&1 && ls /etc/postgresql >/dev/null 2>&1; then
            echo "starting the local PostgreSQL cluster" >&2
            pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
            for _ in $(seq 1 30); do
                pg_isready -q -h "$PGHOST_ADDR" -p "$PGPORT_NUM" && break
                sleep 1
            done
        fi
    fi
    if pg_isready -q -h "$PGHOST_ADDR" -p "$PGPORT_NUM" 2>/dev/null; then
        TEST_DB="${TEST_DB_NAME:-ginrummy_test}"
        psql -q -h "$PGHOST_ADDR" -p "$PGPORT_NUM" -U postgres -d postgres \
            -c "DROP DATABASE IF EXISTS $TEST_DB WITH (FORCE)" \
            -c "CREATE DATABASE $TEST_DB" >/dev/null
        export TEST_DATABASE_URL="postgresql+asyncpg://postgres@$PGHOST_ADDR:$PGPORT_NUM/$TEST_DB"
    else
        echo "warning: no PostgreSQL reachable; PostgreSQL tests will fail under CI=true and skip otherwise" >&2
    fi
fi
