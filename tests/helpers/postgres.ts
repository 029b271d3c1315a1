// The test Postgres of the control-plane suites, for cross-process scenarios.
export { startPostgres, postgresMissing, type PostgresServer } from '../../control-plane/src/testing/postgres';
