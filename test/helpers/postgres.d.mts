/** The message a run without PostgreSQL fails with. */
export declare const postgresNotFound: string;
/** The folder holding initdb, pg_ctl and postgres; throws {@link postgresNotFound} when there is none. */
export declare function findPostgresBin(root?: string, path?: string): string;
/** A running throwaway cluster: its URL (with its password), port, and a synchronous teardown. */
export type TestPostgres = { url: string; port: number; password: string; stop: () => void };
/** Starts a throwaway cluster in a temporary folder on a free 127.0.0.1 port (fsync off unless `durable`). */
export declare function startPostgres(options?: { durable?: boolean }): Promise<TestPostgres>;
/** The URL of another database on the same server. */
export declare function databaseUrl(url: string, name: string): string;
