-- One service's database, included by postgres-init.sql with the psql variable `service` set (verification,
-- testresult, submission or portal): owned by the migration role, used by the role <service>_service.
\set role :service '_service'
CREATE DATABASE :"service" OWNER exposure_migration;
-- Nobody else connects: not the other services' roles, not PUBLIC (which may by default).
REVOKE ALL ON DATABASE :"service" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"service" TO :"role";
\connect :"service"
-- The schema belongs to the migration role (from PostgreSQL 15 it is the database owner's already; before, PUBLIC
-- could create tables in it).
ALTER SCHEMA public OWNER TO exposure_migration;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"role";
-- Every table and sequence the migration role creates from now on, the service may read and write, and no more.
ALTER DEFAULT PRIVILEGES FOR ROLE exposure_migration IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"role";
ALTER DEFAULT PRIVILEGES FOR ROLE exposure_migration IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"role";
\connect postgres
