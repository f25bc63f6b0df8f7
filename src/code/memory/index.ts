export {
  defaultMaxMemoryFileCharacters,
  formatProjectMemory,
  listMemoryFiles,
  loadProjectMemory,
  type MemoryFileSummary,
  type ProjectMemory,
  type ProjectMemoryOptions,
} from "./load-project-memory.js";
export {
  type MemoryFileLocation,
  type MemoryLocationOptions,
  type MemoryScope,
  memoryFileLocations,
  memoryFileNames,
} from "./memory-file-paths.js";
export { findMemoryImports, type ImportBounds, importLocation, type MemoryImport, maxImportDepth } from "./memory-imports.js";
export { type MemoryFile, readMemoryFile } from "./read-memory-file.js";
