/**
 * Variables a stdio server inherits from minagent's environment on top of the SDK's few (HOME, PATH, USER, SHELL,
 * TERM, LOGNAME): how to reach the network (a proxy, and the hosts that bypass it) and which certificate
 * authorities to trust. Without them a server started with `npx` behind a corporate proxy or a custom CA hangs
 * fetching its package until the start-up timeout.
 */
export const inheritedNetworkVariables: readonly string[] = [
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** npm's own settings (`npm_config_registry`, `NPM_CONFIG_CAFILE`…): what `npx` reads for its registry, proxy and CA. */
const npmConfigPrefix = /^npm_config_/i;

/** Variables whose value is a credential rather than a setting (an npm token, say). */
const credentialName = /auth|token|password|_pass|secret/i;

/**
 * The environment a stdio server is given (the SDK adds its default few under it): the proxy, CA and npm variables
 * {@link inheritedNetworkVariables} lists, as this process has them, under the server's own `env`, which wins
 * (an empty value included).
 */
export function serverEnvironment(
  own: Readonly<Record<string, string | undefined>> | undefined,
  parent: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) if (value !== undefined && isInherited(name)) environment[name] = value;
  for (const [name, value] of Object.entries(own ?? {})) if (value !== undefined) environment[name] = value;
  return environment;
}

/**
 * The inherited values to hide in what minagent shows of a server (its problems, its last output): an npm token,
 * and the password of a proxy URL (`http://ada:secret@proxy:8080`), never the proxy's address, which a message
 * may usefully name.
 */
export function inheritedSecretValues(parent: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || !isInherited(name)) continue;
    if (npmConfigPrefix.test(name) && credentialName.test(name)) secrets.push(value);
    else if (/proxy$/i.test(name)) secrets.push(...urlCredentials(value));
  }
  return secrets;
}

function isInherited(name: string): boolean {
  return inheritedNetworkVariables.includes(name) || npmConfigPrefix.test(name);
}

function urlCredentials(value: string): string[] {
  try {
    const url = new URL(value);
    return [url.password, decodeURIComponent(url.password)].filter((part) => part !== "");
  } catch {
    return [];
  }
}
