// Diagnostics after edits for minagent/code: language servers (LSP over stdio) started on first need, whose new
// errors for a file are appended to the result of the tool that changed it. Explicit named exports only.
export { Diagnostics, type DiagnosticsOptions } from "./diagnostics.js";
export { LanguageServer, type PublishedDiagnostics } from "./language-server.js";
export {
  findExecutable,
  type LanguageServerConfig,
  readLanguageServerSettings,
  serverFor,
  typescriptServer,
} from "./language-server-settings.js";
export { type DiagnosedText, formatErrors, newErrors } from "./new-errors.js";
export { withDiagnostics } from "./with-diagnostics.js";
