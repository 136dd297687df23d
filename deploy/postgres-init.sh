#!/bin/sh
# docker-compose.yml's PostgreSQL runs this once, when its data volume is first created: the databases and roles of
# postgres-init.sql, with the passwords from the container's environment.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v migration_password="$MIGRATION_DB_PASSWORD" \
    -v verification_password="$VERIFICATION_DB_PASSWORD" \
    -v testresult_password="$TESTRESULT_DB_PASSWORD" \
    -v submission_password="$SUBMISSION_DB_PASSWORD" \
    -v portal_password="$PORTAL_DB_PASSWORD" \
    -f /deploy/postgres-init.sql
