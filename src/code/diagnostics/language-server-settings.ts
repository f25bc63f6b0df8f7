import { access, constants } from "node:fs/promises";
import { delimiter, extname, isAbsolute, join, resolve } from "node:path";
import type { LoadedSettings } from "../settings/load-settings.js";
import { settingsValue } from "../settings/session-settings.js";

/**
 * A language server the session may start: the command (stdio), the file extensions it serves, and how to call it.
 * In the settings files' `lsp` object, keyed by a name, in opencode's shape (`command` a list, `extensions`) or Claude
 * Code's `.lsp.json` shape (`command` a string, `args`, `extensionToLanguage`).
 */
export type LanguageServerConfig = {
  /** The settings' key (`typescript`): how results and warnings name the server. */
  name: string;
  /** The executable and its arguments; the server speaks LSP on stdin and stdout. */
  command: readonly string[];
  /** Extensions served, with their dot (`.ts`), each with the LSP language id sent in `didOpen`. */
  extensions: Readonly<Record<string, string>>;
  /** More variables for the server's process. */
  env?: Readonly<Record<string, string>> | undefined;
  /** The `initializationOptions` of the initialize request. */
  initializationOptions?: unknown;
  /** True for the built-in default: started only when found, and silent when not. */
  builtIn?: boolean | undefined;
};

/** The built-in server, used only when `typescript-language-server` is found (the workspace's node_modules/.bin, then PATH). */
export const typescriptServer: LanguageServerConfig = {
  name: "typescript",
  command: ["typescript-language-server", "--stdio"],
  extensions: {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
  },
  builtIn: true,
};

/**
 * The `lsp` settings (the most specific file that has the key wins, as a whole), on top of the built-in TypeScript
 * server: `"lsp": false` turns every server off; an entry named like the built-in one replaces it (`{"typescript":
 * {"disabled": true}}` turns it off). A wrong entry is one warning and is left out.
 */
export function readLanguageServerSettings(settings: LoadedSettings): { servers: LanguageServerConfig[]; warnings: string[] } {
  const found = settingsValue(settings, "lsp");
  const warnings: string[] = [];
  if (found === undefined || found.value === true) return { servers: [typescriptServer], warnings };
  if (found.value === false) return { servers: [], warnings };
  const value = found.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    warnings.push(`${found.path}: "lsp" must be an object of servers by name, or false; the defaults stand.`);
    return { servers: [typescriptServer], warnings };
  }
  const servers = new Map<string, LanguageServerConfig>([[typescriptServer.name, typescriptServer]]);
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    const read = readServerEntry(name, entry);
    if (typeof read === "string") warnings.push(`${found.path}: "lsp.${name}" ${read}; it is left out.`);
    else if (read === undefined) servers.delete(name);
    else servers.set(name, read);
  }
  return { servers: [...servers.values()], warnings };
}

/** One entry: the server, undefined when disabled, or what is wrong with it. */
function readServerEntry(name: string, entry: unknown): LanguageServerConfig | undefined | string {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return "must be an object with a command";
  const fields = entry as Record<string, unknown>;
  if (fields.disabled === true) return undefined;
  const args = fields.args ?? [];
  if (!isStringList(args)) return `has "args" that is not a list of strings`;
  const command =
    typeof fields.command === "string" ? [fields.command, ...args] : isStringList(fields.command) ? [...fields.command, ...args] : [];
  if (command.length === 0 || command[0] === "") return `needs "command": ["server", "--stdio"] (or a string with "args")`;
  const extensions: Record<string, string> = {};
  const mapped = fields.extensionToLanguage;
  if (typeof mapped === "object" && mapped !== null && !Array.isArray(mapped)) {
    for (const [extension, language] of Object.entries(mapped)) if (typeof language === "string") extensions[dotted(extension)] = language;
  } else if (mapped !== undefined) return `has "extensionToLanguage" that is not an object like {".go": "go"}`;
  const listed = fields.extensions ?? [];
  if (!isStringList(listed)) return `has "extensions" that is not a list like [".go"]`;
  for (const extension of listed) extensions[dotted(extension)] ??= languageOf(dotted(extension), name);
  if (Object.keys(extensions).length === 0) return `names no file types ("extensions": [".go"] or "extensionToLanguage")`;
  const env = fields.env;
  if (env !== undefined && !(typeof env === "object" && env !== null && Object.values(env).every((item) => typeof item === "string")))
    return `has "env" that is not an object of strings`;
  return {
    name,
    command,
    extensions,
    ...(env !== undefined && { env: env as Record<string, string> }),
    ...((fields.initialization ?? fields.initializationOptions) !== undefined && {
      initializationOptions: fields.initialization ?? fields.initializationOptions,
    }),
  };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function dotted(extension: string): string {
  return extension.startsWith(".") ? extension : `.${extension}`;
}

/** The language id for an extension given without one (opencode's `extensions`): the built-in's, else the server's name. */
function languageOf(extension: string, serverName: string): string {
  return typescriptServer.extensions[extension] ?? serverName;
}

/** The server that serves a file, by its extension (the last configured wins over the built-in). */
export function serverFor(servers: readonly LanguageServerConfig[], path: string): LanguageServerConfig | undefined {
  const extension = extname(path).toLowerCase();
  return servers.findLast((server) => Object.hasOwn(server.extensions, extension));
}

/**
 * The executable a command names: a path as it is (relative to the root), else the workspace's `node_modules/.bin`
 * (where npm puts `typescript-language-server`; not with `workspaceBin: false`), then each folder of `path`
 * (default PATH). Undefined when none is executable.
 */
export async function findExecutable(
  command: string,
  root: string,
  options: { path?: string | undefined; workspaceBin?: boolean | undefined } = {},
): Promise<string | undefined> {
  const path = options.path ?? process.env.PATH ?? "";
  if (isAbsolute(command) || command.includes("/")) {
    const given = resolve(root, command);
    return (await isExecutable(given)) ? given : undefined;
  }
  const folders = [
    ...(options.workspaceBin === false ? [] : [join(root, "node_modules", ".bin")]),
    ...path.split(delimiter).filter(Boolean),
  ];
  // Every folder is asked at once, the first in order wins: one by one, a PATH of ten folders costs ten round trips
  // to the thread pool before the session's first request.
  const candidates = folders.map((folder) => join(folder, command));
  const found = await Promise.all(candidates.map(isExecutable));
  return candidates[found.indexOf(true)];
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
