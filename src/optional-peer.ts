/**
 * True when `error` says that the package `name` could not be found (Node's ESM and CommonJS wordings): the
 * sign that an optional peer dependency is not installed, as opposed to one that failed while loading.
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && error instanceof Error && error.message.includes(name);
}
