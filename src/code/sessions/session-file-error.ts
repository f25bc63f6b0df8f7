import { userInfo } from "node:os";
import { UsageError } from "../../errors.js";

/** What was being done with a session's file (or its folder, or its lock) when the system refused. */
export type SessionFileAction = "read" | "write" | "create";

/**
 * A session file (or its folder, or its lock) that the system refused to read or write: a folder where the file
 * should be, missing permissions, a full or read-only disk. The message names the path and what to do; `code` is
 * the system's (`EISDIR`, `EACCES`…) and `cause` its error. A UsageError, so that the CLI reports it as it reports
 * other problems the person can fix (exit 2), not as a crash.
 */
export class SessionFileError extends UsageError {
  /** The path the system refused. */
  readonly path: string;
  /** The system's error code (`EISDIR`, `EACCES`, `ENOTDIR`…), or undefined when it gave none. */
  readonly code: string | undefined;

  constructor(message: string, path: string, code: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
    this.code = code;
  }
}

/**
 * The error to throw for a system error met while reading, writing or creating `path` (`what` it is: the session
 * file, its lock file, a folder). Errors that are not system errors (a UsageError already worded) come back unchanged.
 */
export function sessionFileError(error: unknown, path: string, action: SessionFileAction, what = "session file"): unknown {
  if (error instanceof UsageError || !(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const verb = action === "write" ? "write to" : action;
  const why = (() => {
    switch (code) {
      case "EISDIR":
        return `${path} is a folder, not a ${what}. Move it away (or delete it) and try again, or use another session.`;
      case "EEXIST": // only asked for a folder: a file is in its place
      case "ENOTDIR":
        return `Cannot ${verb} ${path}: a part of that path is a file, not a folder. Move that file away, or keep sessions in another data directory (MINAGENT_HOME).`;
      case "EACCES":
      case "EPERM":
        return `No permission to ${verb} ${path} (this process runs as ${currentUser()}). Give it back to that user (chown, or chmod u+rw; folders also u+x), or run as the user who owns it.`;
      case "EROFS":
        return `Cannot ${verb} ${path}: it is on a read-only file system. Keep sessions in a writable data directory (MINAGENT_HOME).`;
      case "ENOSPC":
      case "EDQUOT":
        return `Cannot ${verb} ${path}: no space left on the disk (or the quota is used up). Free some space, then go on with the session.`;
      case "ELOOP":
        return `Cannot ${verb} ${path}: it is a symbolic link that leads to itself, or to too many others. Replace it with the session file it should be.`;
      case "ENAMETOOLONG":
        return `Cannot ${verb} ${path}: the path is too long for the file system. Keep sessions in a data directory with a shorter path (MINAGENT_HOME).`;
      case "EMFILE":
      case "ENFILE":
        return `Cannot ${verb} ${path}: too many files are open. Close some programs (or raise the limit: ulimit -n) and try again.`;
      default:
        return `Could not ${verb} the ${what} ${path}: ${error.message}`;
    }
  })();
  return new SessionFileError(why, path, code, { cause: error });
}

function currentUser(): string {
  try {
    const { username, uid } = userInfo();
    return uid >= 0 ? `${username} (uid ${uid})` : username;
  } catch {
    return "this user";
  }
}
