import { createRequire } from "node:module";
import type * as DbosSdk from "@dbos-inc/dbos-sdk";
import { type OptionalPackage, optionalPackageError } from "../optional-peer.js";

/** What to run to install the optional peer dependency. */
export const installDbosSdk = "npm i @dbos-inc/dbos-sdk";

const dbosSdk: OptionalPackage = { name: "@dbos-inc/dbos-sdk", neededBy: "minagent/dbos needs", install: installDbosSdk };

/**
 * The DBOS SDK, loaded when minagent/dbos is first used rather than when it is imported (nothing runs at import),
 * and synchronously, since a workflow must be registered before `DBOS.launch()`. Node caches it: later calls cost a
 * lookup. It is an optional peer dependency; when it is missing this throws a UsageError naming the command that
 * installs it. The SDK is CommonJS, so this is the very object `import { DBOS } from "@dbos-inc/dbos-sdk"` gives.
 */
export function loadDbosSdk(require: NodeJS.Require = createRequire(import.meta.url)): typeof DbosSdk {
  try {
    return require("@dbos-inc/dbos-sdk") as typeof DbosSdk;
  } catch (error) {
    throw optionalPackageError(error, dbosSdk);
  }
}
