import type { DBOS } from "@dbos-inc/dbos-sdk";

/** The last `DBOS.launch()` this process made, kept on DBOS itself (`Symbol.for`: two copies of minagent share it). */
const lastLaunch = Symbol.for("minagent.dbos.lastLaunch");

type WatchedDbos = typeof DBOS & { [lastLaunch]?: { launched: Promise<void> | undefined } };

/**
 * Makes `DBOS.launch` remember its last call, so that {@link waitForLaunch} can tell why DBOS is not running. Why:
 * DBOS records a launch before it connects to its system database, so after a launch that failed (nothing listens
 * at the database URL) `DBOS.startWorkflow` does not refuse; it retries the connection forever, and a durable run
 * started then would never settle. Called when a durable agent is registered, which DBOS requires before launch.
 * The launch's own promise is returned to its caller untouched (no handler is added to it: a launch nobody awaits
 * still rejects unhandled, as it would without minagent).
 */
export function watchLaunches(dbos: typeof DBOS): void {
  const watched = dbos as WatchedDbos;
  if (watched[lastLaunch]) return;
  const watch: { launched: Promise<void> | undefined } = { launched: undefined };
  watched[lastLaunch] = watch;
  const launch = dbos.launch;
  dbos.launch = function watchedLaunch(this: typeof DBOS, ...args: Parameters<typeof DBOS.launch>): Promise<void> {
    const launched = launch.apply(this, args);
    watch.launched = launched;
    return launched;
  };
}

/**
 * Resolves when DBOS can start workflows as far as launching goes: at once when it is running; after a launch in
 * progress ends; and rejects with the last launch's error when that launch failed and none succeeded since. When DBOS
 * was never launched (or was shut down) it resolves, and DBOS itself says that it must be launched.
 */
export async function waitForLaunch(dbos: typeof DBOS): Promise<void> {
  if (dbos.isInitialized()) return;
  await (dbos as WatchedDbos)[lastLaunch]?.launched;
}
