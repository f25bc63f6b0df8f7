// What both conformance adapters share: the scenario's data, and arguments for the tools its server lists.

/** The scenario's data (client credentials, keys, the identity provider), from MCP_CONFORMANCE_CONTEXT. */
export function scenarioContext() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw ? JSON.parse(raw) : {};
}

/** Arguments a scenario's tool accepts: a number for each required number, a string for each required string. */
export function toolArguments(tool) {
  const properties = tool.inputSchema?.properties ?? {};
  const args = {};
  for (const name of tool.inputSchema?.required ?? []) {
    const type = properties[name]?.type;
    args[name] = type === "number" || type === "integer" ? 2 : type === "boolean" ? true : "conformance";
  }
  return args;
}
