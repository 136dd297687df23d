-- One database per service, each service connecting as a role of its own with only the rights it needs, and one
-- migration role that owns the databases and their schema (docs/operations.md, "Database roles").
--
-- Run once as a superuser with psql, the passwords given as variables:
--   psql -v ON_ERROR_STOP=1 -v migration_password=… -v verification_password=… -v testresult_password=… \
--        -v submission_password=… -v portal_password=… -f deploy/postgres-init.sql
-- (docker-compose.yml runs it through deploy/postgres-init.sh when the data volume is first created).
--
--   exposure_migration    owns the four databases and their public schema: runs `<service> migrate` (DDL)
--   verification_service  SELECT, INSERT, UPDATE, DELETE on verification's tables, nothing else
--   testresult_service    the same on testresult's
--   submission_service    the same on submission's
--   portal_service        the same on portal's, and its sequences
-- A service role cannot create, alter or drop a table, nor connect to another service's database.
CREATE ROLE exposure_migration LOGIN PASSWORD :'migration_password';
CREATE ROLE verification_service LOGIN PASSWORD :'verification_password';
CREATE ROLE testresult_service LOGIN PASSWORD :'testresult_password';
CREATE ROLE submission_service LOGIN PASSWORD :'submission_password';
CREATE ROLE portal_service LOGIN PASSWORD :'portal_password';

\set service verification
\ir postgres-database.sql
\set service testresult
\ir postgres-database.sql
\set service submission
\ir postgres-database.sql
\set service portal
\ir postgres-database.sql
