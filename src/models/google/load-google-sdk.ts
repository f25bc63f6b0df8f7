import { type OptionalPackage, optionalPackageError } from "../../optional-peer.js";

/** The part of `@google/genai` the adapter uses. */
export type GoogleSdk = { GoogleGenAI: typeof import("@google/genai").GoogleGenAI };

const googleGenAi: OptionalPackage = { name: "@google/genai", neededBy: "GoogleModel needs", install: "npm i @google/genai" };

/**
 * Loads `@google/genai` when a GoogleModel makes its first call, not when `minagent/google` is imported (Node
 * caches the module: later loads cost nothing). It is an optional peer dependency; when it is missing this
 * rejects with a UsageError naming the command that installs it. `load` is the import (replaceable in tests).
 */
export function loadGoogleSdk(load: () => Promise<GoogleSdk> = () => import("@google/genai")): Promise<GoogleSdk> {
  return load().then(
    (sdk) => ({ GoogleGenAI: sdk.GoogleGenAI }),
    (error: unknown) => {
      throw optionalPackageError(error, googleGenAi);
    },
  );
}
