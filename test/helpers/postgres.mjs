// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary folder, a server on a free
// 127.0.0.1 port with its unix socket in that folder, and a teardown (pg_ctl stop -m immediate, folder removed)
// that also runs when the process exits. Nothing outside the folder changes: no system service is started.
// As root, Postgres refuses to run, so the cluster belongs to the `postgres` user that Debian's package creates.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const postgresNotFound = "PostgreSQL not found: run scripts/install-test-deps.sh, or apt-get install postgresql";

/** The folder holding initdb, pg_ctl and postgres: the newest <root>/<version>/bin, else the PATH's; else throws {@link postgresNotFound}. */
export function findPostgresBin(root = "/usr/lib/postgresql", path = process.env.PATH) {
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length > 0) return join(root, versions[0], "bin");
  const found = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8", env: { ...process.env, PATH: path } });
  if (found.status === 0 && found.stdout.trim()) return join(found.stdout.trim(), "..");
  throw new Error(postgresNotFound);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Who runs the server: as root, the `postgres` user (and the folder is handed to it); else whoever we are. */
function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const group = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (lookup.status !== 0)
    throw new Error("PostgreSQL refuses to run as root and there is no `postgres` user: apt-get install postgresql creates one");
  return { name: "postgres", uid: Number(lookup.stdout.trim()), gid: Number(group.stdout.trim()) };
}

function runAs(user, command, args, options = {}) {
  const [file, argv] = user ? ["runuser", ["-u", user.name, "--", command, ...args]] : [command, args];
  return execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", ...options });
}

/**
 * Starts a cluster and returns its connection URL (with a random password) and `stop()`.
 * `durable: false` (the default) turns fsync off: tests kill clients, never the server, and run faster.
 * @returns {Promise<{ url: string, port: number, password: string, stop: () => void }>}
 */
export async function startPostgres({ durable = false } = {}) {
  const bin = findPostgresBin();
  const user = serverUser();
  const folder = mkdtempSync(join(tmpdir(), "minagent-pg-"));
  const data = join(folder, "data");
  let started = false;
  const stop = () => {
    process.off("exit", stop);
    if (started) spawnSync(...asUser(user, join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]), { stdio: "ignore" });
    started = false;
    rmSync(folder, { recursive: true, force: true });
  };
  process.on("exit", stop);
  try {
    const password = randomBytes(18).toString("hex");
    const passwordFile = join(folder, "password");
    writeFileSync(passwordFile, password, { mode: 0o600 });
    if (user) {
      chownSync(folder, user.uid, user.gid);
      chownSync(passwordFile, user.uid, user.gid);
    }
    chmodSync(folder, 0o700);
    runAs(user, join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "minagent",
      `--pwfile=${passwordFile}`,
      "--auth-host=scram-sha-256",
      "--auth-local=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    rmSync(passwordFile);
    const settings = ["-c listen_addresses=127.0.0.1", `-k ${folder}`, "-c max_connections=200"];
    if (!durable) settings.push("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off");
    // A port found free may be taken before the server binds it: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        runAs(user, join(bin, "pg_ctl"), [
          "-D",
          data,
          "-l",
          join(folder, "server.log"),
          "-o",
          `-p ${port} ${settings.join(" ")}`,
          "-w",
          "-t",
          "60",
          "start",
        ]);
        started = true;
        return { url: `postgresql://minagent:${password}@127.0.0.1:${port}/postgres`, port, password, stop };
      } catch (error) {
        if (attempt >= 3) throw new Error(`PostgreSQL did not start: ${serverLog(folder) || error.message}`);
      }
    }
  } catch (error) {
    stop();
    throw error;
  }
}

function asUser(user, command, args) {
  return user ? ["runuser", ["-u", user.name, "--", command, ...args]] : [command, args];
}

function serverLog(folder) {
  try {
    return readFileSync(join(folder, "server.log"), "utf8").slice(-2000);
  } catch {
    return "";
  }
}

/** The URL of another database on the same server (DBOS creates it on launch when missing). */
export function databaseUrl(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
