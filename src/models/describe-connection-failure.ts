import { ProviderError } from "./provider-error.js";

/** Where an adapter sends its requests, and what chose that address: both named when the connection fails. */
export type ProviderEndpoint = {
  /** The base URL, e.g. "https://api.anthropic.com" or "http://127.0.0.1:8000/v1". */
  url: string;
  /** What set it, in the user's words: "ANTHROPIC_BASE_URL", "the baseURL option", "the default". */
  setBy: string;
};

/**
 * The endpoint an adapter talks to: the `baseURL` option (said to come from `baseURLSource` when a resolver
 * read it from a variable or a model string), else the SDK's own base-URL variable when it is set (the SDKs
 * read it themselves), else the provider's default address.
 */
export function resolveEndpoint(
  options: { baseURL?: string | undefined; baseURLSource?: string | undefined },
  defaults: { url: string; variable?: string | undefined },
  env: Record<string, string | undefined> = process.env,
): ProviderEndpoint {
  if (options.baseURL !== undefined) return { url: options.baseURL, setBy: options.baseURLSource ?? "the baseURL option" };
  const fromVariable = defaults.variable === undefined ? undefined : env[defaults.variable];
  if (defaults.variable !== undefined && fromVariable) return { url: fromVariable, setBy: defaults.variable };
  return { url: defaults.url, setBy: "the default" };
}

/**
 * A connection error that says where the adapter tried to go and why it could not: the URL, what set it,
 * and the network's reason in plain words (`ECONNREFUSED`, a DNS failure, a TLS error). fetch's own
 * "fetch failed" says none of that, and a user with a mistyped `ANTHROPIC_BASE_URL` needs all three.
 * Other errors (a connection that dropped once the response had begun says so already) come back unchanged.
 */
export function nameEndpoint(error: Error, endpoint: ProviderEndpoint | undefined): Error {
  const before = /^the connection failed:?\s*/; // createTransportError's words for a request that never got a response
  if (!(error instanceof ProviderError) || error.kind !== "connection" || endpoint === undefined || !before.test(error.providerMessage))
    return error;
  const reason = describeNetworkCause(error.cause) ?? error.providerMessage.replace(before, "");
  const providerMessage = `the connection to ${endpoint.url} (set by ${endpoint.setBy}) failed${reason ? `: ${reason}` : ""}`;
  return new ProviderError({ ...error.details(), providerMessage }, { cause: error.cause });
}

const explanations: Record<string, string> = {
  ECONNREFUSED: "connection refused; nothing is listening at that address and port",
  ENOTFOUND: "DNS lookup failed; the host name does not exist or cannot be resolved",
  EAI_AGAIN: "DNS lookup failed for now; the name server did not answer",
  ECONNRESET: "the server closed the connection",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  EPIPE: "the server closed the connection while the request was sent",
  UND_ERR_SOCKET: "the server closed the connection",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
};

/** TLS failures, by the codes Node's TLS layer gives them. */
const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_)/;

function describeTlsFailure(code: string): string {
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG")
    return "the server does not speak TLS there: is it an http:// address?";
  if (/CERT|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code))
    return "the server's certificate is not trusted; a private CA can be added with NODE_EXTRA_CA_CERTS";
  return "the TLS handshake failed";
}

/**
 * The network's reason for a failed request, found in the error's causes (fetch hides it two levels down,
 * and a host with several addresses gives an AggregateError of them): "ECONNREFUSED (connection refused; …)".
 */
function describeNetworkCause(error: unknown): string | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 12; seen++) {
    const current = queue.shift();
    if (!(current instanceof Error)) continue;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (tlsCode.test(code)) return `TLS error ${code} (${describeTlsFailure(code)})`;
      const explanation = explanations[code];
      if (explanation) return `${code} (${explanation})`;
    }
    if (current instanceof AggregateError) queue.push(...current.errors);
    queue.push(current.cause);
  }
  return undefined;
}
