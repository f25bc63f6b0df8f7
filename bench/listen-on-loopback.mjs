// The bench's scripted servers listen the same way: 127.0.0.1, a random port, and a close that ends open connections.

/**
 * Starts `server` on 127.0.0.1 at a port the system picks.
 * @param {import("node:http").Server} server
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function listenOnLoopback(server) {
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
