import { createServer, type Server } from "node:http";

/** The browser's way back after a login: the code the authorization server sent, and the state it echoed. */
export type AuthorizationRedirect = { code: string; state: string | undefined };

/**
 * A listener on 127.0.0.1 that receives the authorization server's redirect (`/callback?code=…&state=…`), answers
 * the browser with a short page, and resolves with the code. Port 0 takes a free one. Only loopback: nothing on
 * the network can hand minagent a code.
 */
export class LoopbackRedirect {
  readonly #server: Server;
  readonly #received: Promise<AuthorizationRedirect>;
  readonly #giveUp: () => void;

  private constructor(server: Server, received: Promise<AuthorizationRedirect>, giveUp: () => void) {
    this.#server = server;
    this.#received = received;
    this.#giveUp = giveUp;
  }

  /**
   * Starts listening; rejects when the port is taken (a configured `callbackPort` another program holds). Only a
   * redirect that echoes `state` (the one the login sent) is taken: any other is refused with 400 and the login
   * keeps waiting, so that a forged or stale link can neither log minagent in nor cut the real login short.
   */
  static async listen(port: number, state: string | undefined): Promise<LoopbackRedirect> {
    let settle: { resolve: (redirect: AuthorizationRedirect) => void; reject: (error: Error) => void } | undefined;
    const received = new Promise<AuthorizationRedirect>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Never an unhandled rejection when nobody waits (a login given up before the browser came back).
    received.catch(() => undefined);
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/callback") {
        response.writeHead(404).end();
        return;
      }
      const page = (status: number, text: string) =>
        response.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(`<p>${text}</p>`);
      if (state !== undefined && url.searchParams.get("state") !== state) {
        page(400, "This is not the login minagent is waiting for (its state differs). Start the login again from minagent.");
        return;
      }
      const code = url.searchParams.get("code");
      if (code) {
        page(200, "Logged in. You can close this tab and go back to minagent.");
        settle?.resolve({ code, state: url.searchParams.get("state") ?? undefined });
        return;
      }
      page(400, "The login did not succeed. Go back to minagent for what happened.");
      const description = url.searchParams.get("error_description");
      settle?.reject(
        new Error(
          `the authorization server answered the login with ${url.searchParams.get("error") ?? "no code"}${description ? `: ${description}` : ""}`,
        ),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return new LoopbackRedirect(server, received, () => settle?.reject(new Error("the login was given up")));
  }

  /** Resolves with the code when the browser comes back; rejects after `timeoutMs` or when `signal` aborts. */
  received(timeoutMs: number, signal: AbortSignal): Promise<AuthorizationRedirect> {
    const received = new Promise<AuthorizationRedirect>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no login came back within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const abort = () => reject(new Error("the login was cancelled"));
      if (signal.aborted) abort();
      signal.addEventListener("abort", abort, { once: true });
      this.#received.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener("abort", abort);
      });
    });
    // The browser may come back with an error before anybody awaits this (while the URL is still being shown).
    received.catch(() => undefined);
    return received;
  }

  /** Stops listening; a login still waiting is given up (its timer cleared: nothing keeps the process alive). */
  close(): Promise<void> {
    this.#giveUp();
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}
